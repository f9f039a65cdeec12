# Conformance (isa.md §A7 "Logic", "Shift"): and, andc (~a&b), or, orc (~a|b), xor, andl/orl/
# nandl/norl (logical, 0/1), shl/shr/shru by register and immediate amounts 0, 1, 30, 31, 32,
# 33, 255, -1 and 256. isa.md: amounts >= 32 give 0 (shr: the sign) [ASSUMPTION]; the README
# says the amount is the low 8 bits of the register, so -1 (0xffffffff) means 255 (-> 0) and
# 256 means 0 (no shift).
#
#   r1 = 0xf0f0 (long imm)  r2 = 0xff00 (long imm)  r3 = -1  r4 = 0  r5 = 32  r6 = 31
#   r10 = and  r1, r2 = 0xf000                  = 61440
#   r11 = andc r1, r2 = ~0xf0f0 & 0xff00 = 0x0f00 = 3840
#   r13 = or   r1, r2 = 0xfff0                  = 65520
#   r14 = orc  r1, r4 = ~0xf0f0 | 0 = 0xffff0f0f = -61681
#   r15 = xor  r1, r2 = 0x0ff0                  = 4080
#   r17 = andl r1, r4 = (r1 != 0) && (0 != 0)   = 0
#   r18 = orl  r4, r2 = 0 || 1                  = 1
#   r19 = nandl r1, r2 = !(1 && 1)              = 0
#   r20 = norl r4, r4 = !(0 || 0)               = 1
#   r21 = andl r3, r1 = 1
#   r22 = and  r1, 255 = 0xf0                   = 240
#   r23 = xor  r3, -256 = 0xffffffff ^ 0xffffff00 = 255
#   r7 = 0x80000001 (long imm)  r8 = 33  r9 = 255  r36 = 256 (long imm)
#   r24 = shl  r7, 1  = 0x00000002              = 2
#   r25 = shr  r7, 1  = 0xc0000000              = -1073741824
#   r26 = shru r7, 1  = 0x40000000              = 1073741824
#   r27 = shl  r7, r6 (31) = 0x80000000         = -2147483648
#   r28 = shr  r7, r6 (31) = 0xffffffff         = -1
#   r29 = shru r7, r6 (31)                      = 1
#   r30 = shl  r7, r5 (32)                      = 0
#   r31 = shr  r7, r5 (32) = the sign           = -1
#   r32 = shru r7, r5 (32)                      = 0
#   r33 = shr  r26, r8 (33), r26 positive       = 0
#   r34 = shl  r7, r9 (255)                     = 0
#   r35 = shru r7, r3 (-1: low 8 bits 255)      = 0
#   r37 = shr  r25, 32 (immediate)              = -1
#   r38 = shru r7, 0                            = 0x80000001 = -2147483647
#   r39 = shl  r7, r36 (256: low 8 bits 0)      = 0x80000001 = -2147483647
#   r40 = shr  r25, 30 = -2^30 >> 30            = -1
#   r41 = shru r25, 30 = 0xc0000000 >> 30       = 3
#
# Timing: ALU latency 1, no stalls. Bundles B0 (2 ops, 4 syllables), B1 4, B2 4, B3 4, B4 4,
# B5 3 (4 syllables), B6 4, B7 4, B8 4, B9 3 (4 syllables), B10 3: 11 bundles, 39 ops.
# 29 values printed x 4 bundles/ops = 116; exit 2 bundles/ops + 1 bubble.
# bundles = 11 + 116 + 2 = 129; ops = 39 + 116 + 2 = 157; cycles = 130; exit = r41 = 3.
# expect: exit=3 cycles=130 bundles=129 ops=157 nops=0 stall_operand=0 taken_branches=1
# expect: output="61440\n3840\n65520\n-61681\n4080\n0\n1\n0\n1\n1\n240\n255\n2\n-1073741824\n1073741824\n-2147483648\n-1\n1\n0\n-1\n0\n0\n0\n0\n-1\n-2147483647\n-2147483647\n-1\n3\n"
.target st231
.text
main:
    mov $r1 = 0xf0f0
    mov $r2 = 0xff00 ;;
    mov $r3 = -1
    mov $r4 = 0
    mov $r5 = 32
    mov $r6 = 31 ;;
    and $r10 = $r1, $r2
    andc $r11 = $r1, $r2
    or $r13 = $r1, $r2
    orc $r14 = $r1, $r4 ;;
    xor $r15 = $r1, $r2
    andl $r17 = $r1, $r4
    orl $r18 = $r4, $r2
    nandl $r19 = $r1, $r2 ;;
    norl $r20 = $r4, $r4
    andl $r21 = $r3, $r1
    and $r22 = $r1, 255
    xor $r23 = $r3, -256 ;;
    mov $r7 = 0x80000001
    mov $r8 = 33
    mov $r9 = 255 ;;
    shl $r24 = $r7, 1
    shr $r25 = $r7, 1
    shru $r26 = $r7, 1
    shl $r27 = $r7, $r6 ;;
    shr $r28 = $r7, $r6
    shru $r29 = $r7, $r6
    shl $r30 = $r7, $r5
    shr $r31 = $r7, $r5 ;;
    shru $r32 = $r7, $r5
    shr $r33 = $r26, $r8
    shl $r34 = $r7, $r9
    shru $r35 = $r7, $r3 ;;
    mov $r36 = 256
    shr $r37 = $r25, 32
    shru $r38 = $r7, 0 ;;
    shl $r39 = $r7, $r36
    shr $r40 = $r25, 30
    shru $r41 = $r25, 30 ;;
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
    mov $r16 = $r41 ;;
    return $r63 ;;
