# Conformance: TRAP with a number the README does not list (1..4) traps.
#   g1 0x1000 MAKE R0, 1  t=0;  g2 0x1004 TRAP 9  t=1 -> trap
# expect: trap="unknown system call 9" trap_pc=0x1004 trap_fn=main trap_cycle=1 exit=-1
        .target st120
main:   MAKE R0, 1 ;;
        TRAP 9 ;;
        RTS ;;
