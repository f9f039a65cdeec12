# Conformance: JUMP through P3 into the middle of the data (d + 4, not the first address
# after the code) traps at the JUMP, naming it, its function and its issue cycle.
# Code: g1 0x1000, g2 0x1004, g3 0x1008, g4 0x100c; data at 0x1010: d + 4 = 0x1014.
#   g1 MAKEA P3, %hi(d+4)  t=0;  g2 MOREA P3, %lo(d+4)  t=1;  g3 JUMP  t=2 -> trap
# expect: trap="jump to 0x00001014" trap_pc=0x1008 trap_fn=main trap_cycle=2 exit=-1
        .target st120
        .data
d:      .word 0, 0
        .text
main:   MAKEA P3, %hi(d+4) ;;
        MOREA P3, %lo(d+4) ;;
        JUMP ;;
        RTS ;;
