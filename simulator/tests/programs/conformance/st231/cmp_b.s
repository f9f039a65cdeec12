# Conformance (isa.md §A3 "the same compares into $b 30-3D", §A5, §A7): the ten compares and
# the four logical operations (andl, orl, nandl, norl) writing a branch register, read back
# with mfb (= slctf $d = $b, $r0, 1); a compare and slct/slctf with long immediates (imml).
# A $b read by mfb/slct is an ordinary operand (latency 1): no stalls.
#   r1 = -1, r2 = 1, r3 = INT_MIN (imml), r4 = INT_MAX (imml)
#   round 1 (b0..b3): eq -1,1 = 0; ne = 1; ge = 0; geu = 1   -> r10 r11 r13 r14
#   round 2 (b4..b7): gt = 0; gtu = 1; le = 1; leu = 0       -> r15 r17 r18 r19
#   round 3: cmplt INT_MIN, INT_MAX = 1; cmpltu = 0; andl -1, 0 = 0; orl 0, 1 = 1  -> r20..r23
#   round 4: nandl -1, 1 = 0; norl 0, 0 = 1; cmpgtu INT_MIN, 0x7fffffff = 1   -> r24 r25 r26
#   r27 = slct b6 ? r4 : 100000 = 2147483647; r28 = slctf b6 ? 100000 : r4 = 100000
# Bundles: B0 (3 ops, 4 syllables), B1 (1 op, 2 syllables), rounds 1-3: 2 bundles of 4 ops,
# round 4: compares (3 ops, 4 syllables), mfbs (3 ops), selects (2 ops, 4 syllables):
# 11 bundles, 36 ops; 17 values printed (68 bundles/ops); exit 2.
# bundles 81, ops 106, cycles 82, no stalls; exit = r28 = 100000.
# expect: exit=100000 cycles=82 bundles=81 ops=106 stall_operand=0 taken_branches=1
# expect: output="0\n1\n0\n1\n0\n1\n1\n0\n1\n0\n0\n1\n0\n1\n1\n2147483647\n100000\n"
.target st231
.text
main:
    mov $r1 = -1
    mov $r2 = 1
    mov $r3 = 0x80000000 ;;
    mov $r4 = 0x7fffffff ;;
    cmpeq $b0 = $r1, $r2
    cmpne $b1 = $r1, $r2
    cmpge $b2 = $r1, $r2
    cmpgeu $b3 = $r1, $r2 ;;
    mfb $r10 = $b0
    mfb $r11 = $b1
    mfb $r13 = $b2
    mfb $r14 = $b3 ;;
    cmpgt $b4 = $r1, $r2
    cmpgtu $b5 = $r1, $r2
    cmple $b6 = $r1, $r2
    cmpleu $b7 = $r1, $r2 ;;
    mfb $r15 = $b4
    mfb $r17 = $b5
    mfb $r18 = $b6
    mfb $r19 = $b7 ;;
    cmplt $b0 = $r3, $r4
    cmpltu $b1 = $r3, $r4
    andl $b2 = $r1, $r0
    orl $b3 = $r0, $r2 ;;
    mfb $r20 = $b0
    mfb $r21 = $b1
    mfb $r22 = $b2
    mfb $r23 = $b3 ;;
    nandl $b4 = $r1, $r2
    norl $b5 = $r0, $r0
    cmpgtu $b6 = $r3, 0x7fffffff ;;
    mfb $r24 = $b4
    mfb $r25 = $b5
    mfb $r26 = $b6 ;;
    slct $r27 = $b6, $r4, 100000
    slctf $r28 = $b6, $r4, 100000 ;;
    mov $r16 = $r10 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r11 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r13 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r14 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r15 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r17 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r18 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r19 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r20 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r21 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r22 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r23 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r24 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r25 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r26 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r27 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r28 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r28 ;;
    return $r63 ;;
