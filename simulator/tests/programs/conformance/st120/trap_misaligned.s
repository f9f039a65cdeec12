# Conformance (README: misaligned accesses trap, naming address, function and cycle).
# Layout: g1 0x1000-0x1007, g2 0x1008-0x100f, g3 CALL 0x1010, f: f1 0x1014, f2 0x1018,
# f3 0x101c; data at 0x1020: w = 0x1020.
#   g1 MAKEA P0, %hi(w); MAKE R1, 1     t=0
#   g2 MOREA P0, %lo(w); MAKE R2, 2     t=1
#   g3 CALL f                           t=2 -> 6
#   f1 ADDBA P1 = P0 + 2 bytes          t=6
#   f2 LDW R0, @(P1 + 0)                t=7: misaligned 4-byte access at 0x1022 -> trap
# The cycle named is the issue cycle of the faulting group (as on ST231).
# expect: trap="misaligned 4-byte access at 0x00001022" trap_pc=0x1018 trap_fn=f trap_cycle=7 exit=-1
        .target st120
        .data
w:      .word 0, 0
        .text
main:   MAKEA P0, %hi(w)
        MAKE R1, 1 ;;
        MOREA P0, %lo(w)
        MAKE R2, 2 ;;
        CALL f ;;
f:      ADDBA P1, P0, 2 ;;
        LDW R0, @(P1 + 0) ;;
        RTS ;;
