# Conformance (isa.md §A7 "Ext", "Compare"): sxtb, sxth, zxtb (= and 255), zxth, clz, bswap,
# and all ten compares into $r (0/1), signed and unsigned, register and immediate forms,
# at -1/1, INT_MIN/INT_MAX and equal operands.
#
#   r1 = 0x87654380  r2 = 0x0001c001  r3 = -1  r4 = 1  r5 = INT_MAX  r6 = INT_MIN
#   r10 sxtb r1 = sext(0x80)   = -128       r11 sxth r1 = sext(0x4380) = 17280
#   r13 zxtb r1 = 0x80         = 128        r14 zxth r1 = 0x4380       = 17280
#   r15 sxth r2 = sext(0xc001) = -16383     r17 zxth r2 = 0xc001       = 49153
#   r18 sxtb r2 = 1                         r19 clz r1 = 0 (bit 31 set)
#   r20 clz r2 = 15 (highest set bit 16)    r21 clz r0 = 32 (no bit set; isa.md does not
#       say, the natural count of leading zeros of a 32-bit 0)
#   r22 clz 1 = 31                          r23 bswap r1 = 0x80436587 = -2143066745
#   compares -1 vs 1: r24 eq 0, r25 ne 1, r26 ge 0, r27 geu 1 (0xffffffff >= 1),
#       r28 gt 0, r29 gtu 1, r30 le 1, r31 leu 0, r32 lt 1, r33 ltu 0
#   r34 cmpeq -1, -1 (imm) = 1      r35 cmpltu 0, 0 = 0        r36 cmpgeu -1, -1 = 1
#   r37 cmplt INT_MIN, INT_MAX = 1  r38 cmpgt INT_MIN, 0 = 0   r39 cmpltu 0x80000000, 0x7fffffff = 0
#   r40 cmpge INT_MAX, INT_MAX = 1  r41 cmple INT_MIN, INT_MIN = 1
#   r42 cmpgt INT_MAX, -256 = 1     r43 cmpleu 1, 255 = 1
#   r44 zxtb -1 = 255               r45 sxtb -1 = -1
#
# Timing: all ALU (latency 1): no stalls. 11 bundles, ops 2+3+3+4*8 = 40; 34 values printed
# (4 bundles/ops each = 136); exit 2. bundles 149, ops 178, cycles 149 + 1 bubble = 150.
# expect: exit=32 cycles=150 bundles=149 ops=178 stall_operand=0 taken_branches=1 nops=0
# expect: output="-128\n17280\n128\n17280\n-16383\n49153\n1\n0\n15\n32\n31\n-2143066745\n0\n1\n0\n1\n0\n1\n1\n0\n1\n0\n1\n0\n1\n1\n0\n0\n1\n1\n1\n1\n255\n-1\n"
.target st231
.text
main:
    mov $r1 = 0x87654380
    mov $r2 = 0x0001c001 ;;
    mov $r3 = -1
    mov $r4 = 1
    mov $r5 = 0x7fffffff ;;
    mov $r6 = 0x80000000
    sxtb $r10 = $r1
    sxth $r11 = $r1 ;;
    zxtb $r13 = $r1
    zxth $r14 = $r1
    sxth $r15 = $r2
    zxth $r17 = $r2 ;;
    sxtb $r18 = $r2
    clz $r19 = $r1
    clz $r20 = $r2
    clz $r21 = $r0 ;;
    clz $r22 = $r4
    bswap $r23 = $r1
    cmpeq $r24 = $r3, $r4
    cmpne $r25 = $r3, $r4 ;;
    cmpge $r26 = $r3, $r4
    cmpgeu $r27 = $r3, $r4
    cmpgt $r28 = $r3, $r4
    cmpgtu $r29 = $r3, $r4 ;;
    cmple $r30 = $r3, $r4
    cmpleu $r31 = $r3, $r4
    cmplt $r32 = $r3, $r4
    cmpltu $r33 = $r3, $r4 ;;
    cmpeq $r34 = $r3, -1
    cmpltu $r35 = $r0, 0
    cmpgeu $r36 = $r3, $r3
    cmplt $r37 = $r6, $r5 ;;
    cmpgt $r38 = $r6, 0
    cmpltu $r39 = $r6, $r5
    cmpge $r40 = $r5, $r5
    cmple $r41 = $r6, $r6 ;;
    cmpgt $r42 = $r5, -256
    cmpleu $r43 = $r4, 255
    zxtb $r44 = $r3
    sxtb $r45 = $r3 ;;
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
    mov $r16 = $r29 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r30 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r31 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r32 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r33 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r34 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r35 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r36 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r37 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r38 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r39 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r40 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r41 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r42 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r43 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r44 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r45 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r21 ;;
    return $r63 ;;
