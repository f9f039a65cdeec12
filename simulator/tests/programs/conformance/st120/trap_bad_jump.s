# Conformance: JUMP through P3 to a data address (mapped, not code) traps naming the target.
# The target is the first address after the code (the start of .data), a case the ST231
# simulator gets right (st231/trap_bad_icall.s).
# Code: g1 0x1000, g2 0x1004, g3 0x1008, g4 0x100c -> data at 0x1010 = d.
#   g1 MAKEA P3, %hi(d)  t=0;  g2 MOREA P3, %lo(d)  t=1;  g3 JUMP  t=2 -> trap at the JUMP
# expect: trap="jump to 0x00001010" trap_pc=0x1008 trap_fn=main trap_cycle=2 exit=-1
        .target st120
        .data
d:      .word 0
        .text
main:   MAKEA P3, %hi(d) ;;
        MOREA P3, %lo(d) ;;
        JUMP ;;
        RTS ;;
