# Conformance (README: traps name the place; every ST120 operation has its own address): in
# a group of two loads, the second (slot 1, at 0x1014) reads address 0 and traps; the trap
# names that operation, not the group's first word. (Cycle not asserted: see trap_*.)
#   g1 0x1000 MAKEA P0, %hi(w); MAKEA P1, 0     g2 0x1008 MOREA P0, %lo(w); MAKE R3, 0
#   g3 0x1010 LDW R1, @(P0 + 0); 0x1014 LDW R2, @(P1 + 0) -> bad address 0x00000000
# expect: trap="bad address 0x00000000" trap_pc=0x1014 trap_fn=main exit=-1
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
