# Multiply-accumulate chain: MP/MA/MS have latency 2 (isa.md §B3 ASSUMPTION "MPY/MAC 2"),
# so each MAC that reads the previous one's result stalls 1 cycle. The accumulator is a
# separate input (not tied, §B4).
#
#   g1 MAKE R1,R2 t=0    g2 MAKE R3,R7 t=1
#   g3 MASSLL t=2 (R3 = 10 + 3*4 = 22, ready 4)
#   g4 MASSLL needs R3 at 4: stall 1, t=4 (R3 = 22 + 12 = 34, ready 6)
#   g5 MSSSLL needs R3 at 6: stall 1, t=6 (R3 = 34 - 3*3 = 25, ready 8)
#   g6 MPSSLL R4 = 4*4 = 16, t=7 (ready 9)
#   g7 ADD needs R3 (8) and R4 (9): stall 1, t=9 (R0 = 41)
#   g8 MAUULL with acc R0 (latency 1 from the ADD): t=10; R5 = 41 + 0xFFFF*0xFFFF,
#      a 40-bit result (no 32-bit wrap): 41 + 4294836225 = 4294836266 (ready 12)
#   g9 EXTW R6 = sext32(R5) needs R5: stall 1, t=12; R6 = 4294836266 - 2^32 = -131030
#   g10 RTS t=13 -> 14 + 3 = 17
# stalls = 4; bundles = 10; ops = 12; cycles = 10 + 4 + 3 = 17.
# Exit code = R0 = 41 (truncated to 32 bits).
#
# expect: exit = 41
# expect: cycles = 17
# expect: stall_operand = 4
# expect: bundles = 10
# expect: ops = 12
# expect: taken_branches = 1
# expect: R5 = 4294836266
# expect: R6 = -131030
        .target st120
main:   MAKE R1, 3
        MAKE R2, 4 ;;                        # g1
        MAKE R3, 10
        MAKE R7, -1 ;;                       # g2
        MASSLL R3, R3, R1, R2 ;;             # g3
        MASSLL R3, R3, R1, R2 ;;             # g4
        MSSSLL R3, R3, R1, R1 ;;             # g5
        MPSSLL R4, R2, R2 ;;                 # g6
        ADD R0, R3, R4 ;;                    # g7
        MAUULL R5, R0, R7, R7 ;;             # g8
        EXTW R6, R5 ;;                       # g9
        RTS ;;                               # g10
