# Conformance (isa.md §A5: no divide instruction, division is a routine): a signed division
# routine written from §A7 operations only (restoring shift-subtract on magnitudes, C
# truncation), called three times through the ABI: INT_MIN / -1 (wraps to INT_MIN, rem 0),
# -7 / 2 = -3 rem -1, 100 / -7 = -14 rem 2. div(a = r16, b = r17) -> q in r16, rem in r17,
# using caller-saved registers only.
#   INT_MIN / -1: |a| = 0 - 0x80000000 = 0x80000000 (unsigned), |b| = 1 -> q 0x80000000,
#   rem 0; sign of q = sign of a ^ b = 0x7fffffff: positive -> q = 0x80000000 = INT_MIN.
#
# div, entered at t:
#   D0 cmplt b0 = a<0; cmplt b1 = b<0; r8 = 0-a; r9 = 0-b        t
#   D1 r10 = |a|; r11 = |b| (slct); r18 = a^b; r19 = mfb b0       t+1
#   D2 q = 0; rem = 0; n = 32                                    t+2
#   loop, iteration from s (32 iterations, s = t+3+6i):
#     L0 r23 = a>>u31; a <<= 1; rem <<= 1; n -= 1                 s
#     L1 rem |= r23; q <<= 1; cmpne b2 = n, 0                     s+1  (b2 ready s+2)
#     L2 cmpgeu b3 = rem, |b|; r8 = rem - |b|                     s+2
#     L3 rem = slct b3, r8, rem; r9 = mfb b3                      s+3
#     L4 br b2, loop (first syllable); q |= r9                    s+4 (b2 ready + 2 = s+4: no stall)
#        taken -> s+6; the last (i = 31, s = t+189) falls through at t+193 -> t+194
#   E0 r8 = 0-q; r9 = 0-rem; cmplt b4 = r18<0; cmpne b5 = r19,0   t+194
#   E1 r16 = b4 ? r8 : q; r17 = b5 ? r9 : rem                     t+195
#   E2 return (r63 written by the call long before)               t+196, taken -> t+198
#   per call: 198 cycles, 3 + 160 + 3 = 166 bundles, 11 + 32*13 + 7 = 434 ops, 32 taken,
#   0 stalls.
# main:
#   M0 r16 = INT_MIN (imml); r17 = -1; r60 = r63   t=0
#   M1 call div                                    t=1 -> div at 3, back at 201
#   M2 syscall 2 ("-2147483648"); M3 r16 = 10; M4 syscall 3; M5 r16 = r17; M6 syscall 2 ("0");
#   M7 r16 = 10; M8 syscall 3                      t=201..207
#   M9 r16 = -7; r17 = 2                           t=208
#   M10 call div                                   t=209 -> 211, back at 409
#   M11..M17 print q ("-3"), "\n", rem ("-1"), "\n"   t=409..415
#   M18 r16 = 100; r17 = -7                        t=416
#   M19 call div                                   t=417 -> 419, back at 617
#   M20..M24 print q ("-14"), "\n", rem ("2")      t=617..621
#   M25 r63 = r60; r16 = r17 (2)                   t=622, r63 ready 623
#   M26 return: needs 623 + 1, stall 1             t=624, taken -> 626
# main: 27 bundles, 32 ops, 1 stall, 4 taken; excl cycles 3 + 10 + 10 + 9 = 32.
# totals: bundles 27 + 3*166 = 525; ops 32 + 3*434 = 1334; taken 4 + 96 = 100;
#   cycles 525 + 1 + 100 = 626.
# expect: exit=2 output="-2147483648\n0\n-3\n-1\n-14\n2"
# expect: cycles=626 bundles=525 ops=1334 stall_operand=1 taken_branches=100 nops=0
# expect: fn.div.calls=3 fn.div.excl.cycles=594 fn.div.incl.cycles=594 fn.main.excl.cycles=32
# expect: fn.main.incl.cycles=626 fn.div.excl.ops=1302
.target st231
.text
main:
    mov $r16 = 0x80000000
    mov $r17 = -1
    mov $r60 = $r63 ;;
    call div ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r17 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = -7
    mov $r17 = 2 ;;
    call div ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r17 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = 100
    mov $r17 = -7 ;;
    call div ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r17 ;;
    syscall 2 ;;
    mov $r63 = $r60
    mov $r16 = $r17 ;;
    return $r63 ;;

.type div, @function
div:
    cmplt $b0 = $r16, 0
    cmplt $b1 = $r17, 0
    sub $r8 = 0, $r16
    sub $r9 = 0, $r17 ;;
    slct $r10 = $b0, $r8, $r16
    slct $r11 = $b1, $r9, $r17
    xor $r18 = $r16, $r17
    mfb $r19 = $b0 ;;
    mov $r20 = 0
    mov $r21 = 0
    mov $r22 = 32 ;;
loop:
    shru $r23 = $r10, 31
    shl $r10 = $r10, 1
    shl $r21 = $r21, 1
    add $r22 = $r22, -1 ;;
    or $r21 = $r21, $r23
    shl $r20 = $r20, 1
    cmpne $b2 = $r22, 0 ;;
    cmpgeu $b3 = $r21, $r11
    sub $r8 = $r21, $r11 ;;
    slct $r21 = $b3, $r8, $r21
    mfb $r9 = $b3 ;;
    br $b2, loop
    or $r20 = $r20, $r9 ;;
    sub $r8 = 0, $r20
    sub $r9 = 0, $r21
    cmplt $b4 = $r18, 0
    cmpne $b5 = $r19, 0 ;;
    slct $r16 = $b4, $r8, $r20
    slct $r17 = $b5, $r9, $r21 ;;
    return $r63 ;;
