# Calls and returns with per-function attribution. CALL writes P11 (the return address);
# main saves its own P11 in P10. Every taken CALL/RTS costs 3 bubble cycles, charged to the
# function that executed it (the profiler charges the calling group to the caller and the
# returning group to the callee).
#
#   main g1 t=0 -> 1; g2 t=1 -> 2; g3 CALL t=2 -> 3+3 = 6          (main so far: 6 cycles)
#   square s1 MPSSLL t=6 (R0 ready 8); s2 RTS t=7 -> 8+3 = 11       (square: 5 cycles)
#   main g4 ADD t=11 -> 12; g5 t=12 -> 13; g6 CALL t=13 -> 17        (main: +6)
#   square s1 t=17 (ready 19); s2 t=18 -> 22                          (square: +5)
#   main g7 t=22 -> 23; g8 RTS t=23 -> 27                             (main: +5)
# totals: cycles 27, bundles 12, ops 14 (main 10, square 4), taken 5, no stalls;
# main: exclusive 17 cycles, inclusive 27; square: 2 calls, 10 cycles exclusive = inclusive.
# Exit code = 5*5 + 7*7 = 74.
#
# expect: exit = 74
# expect: cycles = 27
# expect: bundles = 12
# expect: ops = 14
# expect: taken_branches = 5
# expect: stall_operand = 0
# expect: fn.main.calls = 1
# expect: fn.main.excl.cycles = 17
# expect: fn.main.incl.cycles = 27
# expect: fn.main.excl.ops = 10
# expect: fn.main.incl.ops = 14
# expect: fn.square.calls = 2
# expect: fn.square.excl.cycles = 10
# expect: fn.square.incl.cycles = 10
# expect: fn.square.excl.bundles = 4
# expect: fn.square.excl.taken_branches = 2
        .target st120
        .text
        .global main
main:   MOVEA P10, P11
        MAKE R4, 0 ;;                   # g1
        MAKE R0, 5 ;;                   # g2
        CALL square ;;                  # g3
        ADD R4, R4, R0 ;;               # g4
        MAKE R0, 7 ;;                   # g5
        CALL square ;;                  # g6
        ADD R0, R4, R0
        MOVEA P11, P10 ;;               # g7
        RTS ;;                          # g8
square: MPSSLL R0, R0, R0 ;;            # s1
        RTS ;;                          # s2
