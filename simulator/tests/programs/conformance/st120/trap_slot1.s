# Conformance (README: traps name the place; every ST120 operation has its own address): in
# a group of two loads, the second (slot 1, at 0x1014) reads address 0 and traps; the trap
# names that operation, not the group's first word.
#   g1 0x1000 MAKEA P0, %hi(w); MAKEA P1, 0     g2 0x1008 MOREA P0, %lo(w); MAKE R3, 0
#   g3 0x1010 LDW R1, @(P0 + 0); 0x1014 LDW R2, @(P1 + 0) -> bad address 0x00000000
# Timing (session 6, after the trap convention was fixed): AU latency 1, so g1 issues at 0,
# g2 at 1 (MOREA reads P0, ready 1), g3 at 2 (P0 ready 2, P1 ready 1): the trap names cycle 2.
# expect: trap="bad address 0x00000000" trap_pc=0x1014 trap_fn=main trap_cycle=2 exit=-1
        .target st120
        .data
w:      .word 5
        .text
main:   MAKEA P0, %hi(w)
        MAKEA P1, 0 ;;
        MOREA P0, %lo(w)
        MAKE R3, 0 ;;
        LDW R1, @(P0 + 0)
        LDW R2, @(P1 + 0) ;;
        RTS ;;
