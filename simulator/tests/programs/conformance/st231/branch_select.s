# Conformance (isa.md §A4, §A5, §A7 "Select", "Control"): compares into $b, slct/slctf with
# register and immediate operands, mtb (logical: 5 -> 1) / mfb, br and brf both taken and
# not taken, goto, igoto and icall through $r63, and their costs:
#   - $b read by slct: latency 1 (no stall); compare/mtb -> br/brf: 3 (2 stalls if adjacent);
#   - ALU -> $r63 read by igoto/icall/return: 2 (1 stall if adjacent);
#   - icall writes $r63 (README: latency 1), read by the callee's return 3 bundles later;
#   - taken br/brf/goto/igoto/icall/return: 1 bubble; not-taken branches cost nothing.
# The bundles after each taken transfer (bad1..bad4) would exit with 91..94 if executed.
#
#   B0  mov r60 = r63; mov r1 = 3; mov r2 = 5             t=0  -> 1
#   B1  cmplt b0 = 3 < 5 = 1; cmpgt b1 = 3 > 5 = 0          t=1  -> 2   (b0, b1 ready 2)
#   B2  slct r4 = b0 ? r1 : r2 = 3; slctf r5 = b0 ? 77 : r1 = 77;
#       slct r6 = b1 ? r1 : -5 = -5; slctf r7 = b1 ? 9 : r2 = 5   t=2 -> 3 (no stall)
#   B3  mtb b2 = r2 (5 -> 1); mfb r8 = b0 = 1; mtb b3 = r0 (0)   t=3 -> 4 (b2, b3 ready 4)
#   B4  br b2, L1: needs 4 + 2 = 6, stall 2                 t=6  taken -> 8
#   L1  brf b3, L2: b3 = 0, taken (6 <= 8, no stall)        t=8  taken -> 10
#   L2  br b1, bad3: b1 = 0, not taken                      t=10 -> 11
#   B7  brf b0, bad3: b0 = 1, not taken                     t=11 -> 12
#   B8  goto L3                                             t=12 taken -> 14
#   L3  mov r63 = L4 (imml); mfb r9 = b2 = 1                t=14 -> 15 (r63 ready 15)
#   B10 igoto $r63: needs 15 + 1 = 16, stall 1             t=16 taken -> 18
#   L4  mov r63 = sub1 (imml)                              t=18 -> 19
#   B12 icall $r63: stall 1                                t=20 taken -> 22, r63 = 0x... ready 21
#   sub1: S0 mov r11 = 42                                  t=22 -> 23
#         S1 return $r63: needs 21 + 1 = 22 <= 23           t=23 taken -> 25
#   P   print r4, r5, r6, r7, r8, r9, r11: 7 x 4 bundles    t=25..52 -> 53
#   E0  mov r63 = r60; mov r16 = r4                        t=53 -> 54 (r63 ready 54)
#   E1  return $r63: needs 55, stall 1                     t=55 taken -> 57
# bundles: main 13 + 28 + 2 = 43, sub1 2: 45. stalls 2 + 1 + 1 + 1 = 5.
# taken: br, brf, goto, igoto, icall, return (sub1), return (main) = 7.
# cycles = 45 + 5 + 7 = 57 (= the timeline).
# ops: B0 3, B1 2, B2 4, B3 3, B4 1, L1 1, L2 1, B7 1, B8 1, L3 2, B10 1, L4 1, B12 1 = 22;
#      print 28; E0 2, E1 1 -> main 53; sub1 2 -> 55.
# sub1: 1 call, exclusive = inclusive = 25 - 22 = 3 cycles, 2 bundles, 2 ops, 1 taken.
# main: exclusive 57 - 3 = 54, inclusive 57.
# expect: exit=3 output="3\n77\n-5\n5\n1\n1\n42\n"
# expect: cycles=57 bundles=45 ops=55 nops=0 stall_operand=5 taken_branches=7
# expect: fn.main.calls=1 fn.main.excl.cycles=54 fn.main.incl.cycles=57 fn.main.excl.stall_operand=5
# expect: fn.sub1.calls=1 fn.sub1.excl.cycles=3 fn.sub1.incl.cycles=3 fn.sub1.excl.bundles=2
# expect: fn.sub1.excl.ops=2 fn.sub1.excl.taken_branches=1 fn.main.excl.taken_branches=6
.target st231
.text
main:
    mov $r60 = $r63
    mov $r1 = 3
    mov $r2 = 5 ;;
    cmplt $b0 = $r1, $r2
    cmpgt $b1 = $r1, $r2 ;;
    slct $r4 = $b0, $r1, $r2
    slctf $r5 = $b0, $r1, 77
    slct $r6 = $b1, $r1, -5
    slctf $r7 = $b1, $r2, 9 ;;
    mtb $b2 = $r2
    mfb $r8 = $b0
    mtb $b3 = $r0 ;;
    br $b2, L1 ;;
bad1:
    mov $r16 = 91 ;;
    return $r63 ;;
L1:
    brf $b3, L2 ;;
bad2:
    mov $r16 = 92 ;;
    return $r63 ;;
L2:
    br $b1, bad3 ;;
    brf $b0, bad3 ;;
    goto L3 ;;
bad3:
    mov $r16 = 93 ;;
    return $r63 ;;
L3:
    mov $r63 = L4
    mfb $r9 = $b2 ;;
    igoto $r63 ;;
bad4:
    mov $r16 = 94 ;;
    return $r63 ;;
L4:
    mov $r63 = sub1 ;;
    icall $r63 ;;
    mov $r16 = $r4 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r5 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r6 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r7 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r8 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r9 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r11 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r63 = $r60
    mov $r16 = $r4 ;;
    return $r63 ;;
.type sub1, @function
sub1:
    mov $r11 = 42 ;;
    return $r63 ;;
