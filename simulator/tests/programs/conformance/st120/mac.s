# Conformance (isa.md §B4: MAC is not 2-operand, separate accumulator input; "the compiler's
# 32-bit multiply is MPSUHL t; MAUSLH t2,t,a,b; SHLU t3,t2,16; MAUULL d,t3,a,b"; letters =
# signedness then half of op1 and op2; MS* subtracts; §B3 ASSUMPTION MPY/MAC latency 2).
# a = R1 = -123456 = 0xFFFE1DC0 (hi 0xFFFE = -2, lo 0x1DC0 = 7616), b = R2 = 789 (hi 0).
#   g1  MAKE R1, 0xFFFE (-2); MAKE R2, 789                           t=0
#   g2  MORE R1, 0x1DC0 -> (-2 << 16) | 0x1DC0 = -123456; MAKE R9, 0    t=1
#   g3  MPSUHL R3 = sext(hi a) * zext(lo b) = -2 * 789 = -1578         t=2, ready 4
#   g4  MAUSLH R4 = R3 + zext(lo a) * sext(hi b) = -1578 + 7616*0      t=4 (stall 1), ready 6
#   g5  SHLU R5 = (-1578 << 16) as 32 bits, zext = 0xF9D60000 = 4191551488   t=6 (stall 1)
#   g6  MAUULL R6 = R5 + 7616*789 = 4191551488 + 6009024 = 4197560512 (40-bit, no wrap)  t=7, ready 9
#   g7  EXTW R7 = sext32(R6) = -97406784 (= -123456 * 789)             t=9 (stall 1)
#   g8  MSSSLL R8 = R7 - 789*789 = -98029305                           t=10, ready 12
#   g9  MASSHH R10 = R8 + (-2)*(-2) = -98029301 (R8 unchanged: not tied)  t=12 (stall 1), ready 14
#   g10 MSSULL R11 = R10 - sext(0x1DC0)*zext(789) = -104038325          t=14 (stall 1), ready 16
#   g11 EXTW R0 = R11                                                  t=16 (stall 1)
#   g12 RTS                                                            t=17 -> 18 + 3 = 21
# groups 12, ops 14, stalls 6, cycles 12 + 6 + 3 = 21.
# expect: exit=-104038325 cycles=21 bundles=12 ops=14 stall_operand=6 taken_branches=1
# expect: R1=-123456 R3=-1578 R4=-1578 R5=4191551488 R6=4197560512 R7=-97406784
# expect: R8=-98029305 R10=-98029301 R11=-104038325 R0=-104038325
        .target st120
main:   MAKE R1, 0xFFFE
        MAKE R2, 789 ;;
        MORE R1, 0x1DC0
        MAKE R9, 0 ;;
        MPSUHL R3, R1, R2 ;;
        MAUSLH R4, R3, R1, R2 ;;
        SHLU R5, R4, 16 ;;
        MAUULL R6, R5, R1, R2 ;;
        EXTW R7, R6 ;;
        MSSSLL R8, R7, R2, R2 ;;
        MASSHH R10, R8, R1, R1 ;;
        MSSULL R11, R10, R1, R2 ;;
        EXTW R0, R11 ;;
        RTS ;;
