# Conformance: a post-decrement walk that leaves mapped memory. P0 = 0x1008 (inside the
# code, readable), LDW @(P0 !- 2) reads 0x1008 then P0 = 0x1000, then 0x0FF8: below the
# code base (README: addresses below 0x1000 are unmapped).
#   g1 0x1000 MAKEA P0, 0x1008          t=0
#   g2 0x1004 LDW R1, @(P0 !- 2)        t=1 (fine, P0 = 0x1000)
#   g3 0x1008 LDW R2, @(P0 !- 2)        t=2 (fine, P0 = 0x0FF8)
#   g4 0x100c LDW R3, @(P0 + 0)         t=3: bad address 0x00000ff8 -> trap
# expect: trap="bad address 0x00000ff8" trap_pc=0x100c trap_fn=main trap_cycle=3 exit=-1
        .target st120
main:   MAKEA P0, 0x1008 ;;
        LDW R1, @(P0 !- 2) ;;
        LDW R2, @(P0 !- 2) ;;
        LDW R3, @(P0 + 0) ;;
        RTS ;;
