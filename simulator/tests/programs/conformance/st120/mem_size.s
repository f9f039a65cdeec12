# Conformance (README: --mem-size; the ST120 stack pointer P15 starts at the top of memory):
# with 64 KiB, P15 = 65536; the word below it is the last one; @(P15 + 0) is out of range.
# (The trap cycle is not asserted here: see the ignored trap_* programs.)
#   g1 0x1000 COPYD R0, P15            t=0
#   g2 0x1004 TRAP 2 "65536"           t=1
#   g3 0x1008 SDW @(P15 - 1), R0       t=2 (0xFFFC)
#   g4 0x100c LDW R0, @(P15 - 1)       t=3
#   g5 0x1010 TRAP 2 "65536"           t=4
#   g6 0x1014 SDW @(P15 + 0), R0       t=5: bad address 0x00010000
# options: mem_size=65536
# expect: output="6553665536" trap="bad address 0x00010000" trap_pc=0x1014 trap_fn=main exit=-1
        .target st120
main:   COPYD R0, P15 ;;
        TRAP 2 ;;
        SDW @(P15 - 1), R0 ;;
        LDW R0, @(P15 - 1) ;;
        TRAP 2 ;;
        SDW @(P15 + 0), R0 ;;
        RTS ;;
