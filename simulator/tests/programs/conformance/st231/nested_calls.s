# Conformance (README "Counters": exclusive = while the function is the innermost
# activation, inclusive = while it is active; isa.md §A4/§A6): main calls A, B, A; A calls B.
# A keeps its return address in r9 (B does not touch it). Calls write $r63 with latency 1;
# ALU -> return 2.
#   A entered at e: A0 r9 = r63; r16 += 10   e      (r63 ready e-1)
#                   A1 call B                e+1 -> B at e+3
#   B entered at f: B0 r16 += 100            f
#                   B1 return (r63 ready f-1) f+1 -> f+3: B lasts 3 cycles
#                   A2 r63 = r9              e+6, ready e+7
#                   A3 return: stall 1       e+8 -> e+10: A lasts 10 (3 of them in B)
#   main: M0 r60 = r63; r16 = 1   t=0
#         M1 call A               t=1 -> A 3..13
#         M2 call B               t=13 -> B 15..18
#         M3 call A               t=18 -> A 20..30
#         M4 r63 = r60            t=30, ready 31
#         M5 return: stall 1      t=32 -> 34
# r16 = 1 + 10 + 100 + 100 + 10 + 100 = 321.
# bundles 6 + 2*4 + 3*2 = 20; stalls 1 + 2 = 3; taken 4 + 2*2 + 3 = 11; cycles 34.
# ops main 7, A 2*5, B 3*2: 23.
# B: 3 calls, 9 cycles excl = incl. A: 2 calls, excl 2*7 = 14, incl 20, excl stalls 2,
#   excl taken 4, incl taken 6, excl ops 10, incl ops 14. main: excl 34 - 20 - 3 = 11, incl 34.
# expect: exit=321 cycles=34 bundles=20 stall_operand=3 taken_branches=11 ops=23
# expect: fn.B.calls=3 fn.B.excl.cycles=9 fn.B.incl.cycles=9 fn.B.excl.ops=6
# expect: fn.A.calls=2 fn.A.excl.cycles=14 fn.A.incl.cycles=20 fn.A.excl.stall_operand=2
# expect: fn.A.excl.taken_branches=4 fn.A.incl.taken_branches=6 fn.A.excl.ops=10 fn.A.incl.ops=14
# expect: fn.main.calls=1 fn.main.excl.cycles=11 fn.main.incl.cycles=34 fn.main.excl.ops=7
# expect: fn.main.excl.stall_operand=1 fn.main.incl.stall_operand=3
.target st231
.text
main:
    mov $r60 = $r63
    mov $r16 = 1 ;;
    call A ;;
    call B ;;
    call A ;;
    mov $r63 = $r60 ;;
    return $r63 ;;
A:
    mov $r9 = $r63
    add $r16 = $r16, 10 ;;
    call B ;;
    mov $r63 = $r9 ;;
    return $r63 ;;
B:
    add $r16 = $r16, 100 ;;
    return $r63 ;;
