# Conformance (README "Counters" on a long run: counts beyond 2^16 and many thousand cycles,
# so any packed or periodically flushed counter must carry): N = 70000 iterations.
#   M0 mov r1 = 70000 (imml); mov r16 = 0            t=0
#   iteration from s (s = 1 + 6i):
#     L0 r16 += 1; r1 -= 1                           s
#     L1 cmpne b0 = r1, 0                            s+1, b0 ready s+2
#     L2 br b0, loop: needs s+4 (stall 2)            s+4, taken -> s+6
#   the last br (i = N-1, at 6N - 1) falls through -> 6N
#   E  return                                        t=6N -> 6N + 2
# cycles 6N + 2 = 420002; bundles 1 + 3N + 1 = 210002; stalls 2N = 140000;
# taken (N - 1) + 1 = 70000; ops 2 + 4N + 1 = 280003; exit 70000.
# expect: exit=70000 cycles=420002 bundles=210002 stall_operand=140000 taken_branches=70000
# expect: ops=280003 fn.main.incl.cycles=420002 fn.main.excl.ops=280003 fn.main.excl.stall_operand=140000
.target st231
.text
main:
    mov $r1 = 70000
    mov $r16 = 0 ;;
loop:
    add $r16 = $r16, 1
    add $r1 = $r1, -1 ;;
    cmpne $b0 = $r1, 0 ;;
    br $b0, loop ;;
    return $r63 ;;
