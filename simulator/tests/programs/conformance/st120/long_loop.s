# Conformance (README "Counters" on a long run: counts beyond 2^16, so any packed or
# periodically flushed counter must carry): N = 70000 iterations.
#   g0 MAKE R0, 0; MAKE R1, 1                        t=0
#   g1 MORE R1, 0x1170 -> 65536 + 4464 = 70000       t=1
#   iteration from s (s = 2 + 6i):
#     L0 ADD R0 += 1; SUB R1 -= 1                    s
#     L1 EQW G0 = (R1 == 0)                          s+1
#     L2 G0! GOTO loop                               s+2, taken -> s+6
#   the last GOTO (i = N-1, at 6N - 2) falls through -> 6N - 1
#   E  RTS                                           t=6N - 1 -> 6N + 3
# cycles 6N + 3 = 420003; groups 2 + 3N + 1 = 210003; taken N = 70000; no stalls;
# ops 3 + 4N + 1 = 280004; exit 70000.
# expect: exit=70000 cycles=420003 bundles=210003 stall_operand=0 taken_branches=70000
# expect: ops=280004 fn.main.incl.cycles=420003 fn.main.excl.ops=280004 R1=0
        .target st120
main:   MAKE R0, 0
        MAKE R1, 1 ;;
        MORE R1, 0x1170 ;;
loop:   ADD R0, R0, 1
        SUB R1, R1, 1 ;;
        EQW G0, R1, 0 ;;
        G0! GOTO loop ;;
        RTS ;;
