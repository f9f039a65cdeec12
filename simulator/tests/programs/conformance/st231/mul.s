# Conformance (isa.md §A7 "Mul", latency 3, odd lanes): every multiply of the table with
# operands whose halves differ in signed/unsigned reading.
#   a = r1 = 0xfffe8003 = -98301: lo16 0x8003 (-32765 signed, 32771 unsigned),
#                                 hi16 0xfffe (-2 signed, 65534 unsigned)
#   b = r2 = 0x8001fffd = -2147352579: lo16 0xfffd (-3 / 65533), hi16 0x8001 (-32767 / 32769)
# Results (32-bit, printed signed):
#   r10 mul32   lo32(a*b) = lo32(-98301 * -2147352579)            = 0x800a7ff7 = -2146795529
#   r11 mul64h  hi32 of the signed 64-bit product                  = 0x0000bffb = 49147
#   r13 mul64hu hi32 of 0xfffe8003 * 0x8001fffd (unsigned)         = 0x80013ffb = -2147401733
#   r14 mulll   -32765 * -3                                        = 98295
#   r15 mulllu  32771 * 65533 = 2147581943                         = 0x80017ff7 = -2147385353
#   r17 mullh   -32765 * -32767 = 1073610755                       = 0x3ffe0003
#   r18 mullhu  32771 * 32769 = 1073872899                         = 0x40020003
#   r19 mulhh   -2 * -32767                                        = 65534
#   r20 mulhhu  65534 * 32769 = 2147483646                         = 0x7ffffffe
#   r21 mull    a * sext(lo16 b) = -98301 * -3 = 294903
#   r22 mullu   a * 65533 = -6441959433 -> lo32                    = 0x80077ff7 = -2146992137
#   r23 mulh    a * -32767 = 3221028867 -> lo32                    = 0xbffd0003 = -1073938429
#   r24 mulhu   a * 32769 = -3221225469 -> lo32                    = 0x40000003 = 1073741827
#   r25 mulhs   (a * 32769) << 16 -> lo32 = 0x0003 << 16           = 0x00030000 = 196608
# Layout: every multiply bundle is [mul, mul, add, add] (4 syllables), so whatever its
# address parity it has two odd lanes and the assembler needs no nop.
# Timing: B0 movs t=0; B1..B7 t=1..7 (operands ready at 1; the add chains r50/r51 are ALU,
# latency 1); results ready by t=10 at the latest, printing starts at t=8 with r10 (ready 4)
# and reaches r25 long after t=10: no stalls.
# bundles = 1 + 7 + 14*4 + 2 = 66; ops = 2 + 28 + 56 + 2 = 88; cycles = 66 + 1 = 67;
# code words = 4 + 28 + 56 + 2 = 90; exit = r50 = 7.
# expect: exit=7 cycles=67 bundles=66 ops=88 nops=0 stall_operand=0 taken_branches=1 code_words=90
# expect: output="-2146795529\n49147\n-2147401733\n98295\n-2147385353\n1073610755\n1073872899\n65534\n2147483646\n294903\n-2146992137\n-1073938429\n1073741827\n196608\n"
.target st231
.text
main:
    mov $r1 = 0xfffe8003
    mov $r2 = 0x8001fffd ;;
    mul32 $r10 = $r1, $r2
    mul64h $r11 = $r1, $r2
    add $r50 = $r50, 1
    add $r51 = $r51, 1 ;;
    mul64hu $r13 = $r1, $r2
    mulll $r14 = $r1, $r2
    add $r50 = $r50, 1
    add $r51 = $r51, 1 ;;
    mulllu $r15 = $r1, $r2
    mullh $r17 = $r1, $r2
    add $r50 = $r50, 1
    add $r51 = $r51, 1 ;;
    mullhu $r18 = $r1, $r2
    mulhh $r19 = $r1, $r2
    add $r50 = $r50, 1
    add $r51 = $r51, 1 ;;
    mulhhu $r20 = $r1, $r2
    mull $r21 = $r1, $r2
    add $r50 = $r50, 1
    add $r51 = $r51, 1 ;;
    mullu $r22 = $r1, $r2
    mulh $r23 = $r1, $r2
    add $r50 = $r50, 1
    add $r51 = $r51, 1 ;;
    mulhu $r24 = $r1, $r2
    mulhs $r25 = $r1, $r2
    add $r50 = $r50, 1
    add $r51 = $r51, 1 ;;
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
    mov $r16 = $r50 ;;
    return $r63 ;;
