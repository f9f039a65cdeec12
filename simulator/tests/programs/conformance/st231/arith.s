# Conformance (isa.md §A7 "Arith"): add, sub (both operand orders, sub imm-first), sh1add..
# sh4add, min/max/minu/maxu, mov, with 32-bit wrap-around at INT_MAX/INT_MIN, short and
# long immediates (README: outside -256..255 takes an imml syllable).
#
# Values (hand-derived, 32-bit two's complement; printed signed by print_int):
#   r1 = 0x7fffffff  r2 = 0x80000000  r3 = -1  r4 = 5  r5 = 100
#   r10 = add r1, r4       = 0x80000004            = -2147483644   (wraps)
#   r11 = sub r2, r4       = 0x80000000 - 5        =  2147483643   (wraps)
#   r12 = sub -3, r5       = -3 - 100              = -103          (imm first: imm - reg)
#   r13 = add r2, r2       = 0x1_00000000 -> 0     = 0
#   r14 = sh1add r4, r5    = (5 << 1) + 100        = 110
#   r15 = sh2add r3, r4    = (-1 << 2) + 5         = 1
#   r17 = sh3add r1, r0    = 0x7fffffff << 3       = 0xfffffff8 = -8
#   r18 = sh4add r4, -100  = 80 - 100              = -20
#   r19 = min r2, r1       = INT_MIN               = -2147483648
#   r20 = max r2, r1       = INT_MAX               = 2147483647
#   r21 = minu r2, r1      = 0x7fffffff (unsigned 0x80000000 > 0x7fffffff) = 2147483647
#   r22 = maxu r3, r4      = 0xffffffff            = -1
#   r23 = min r3, 0        = -1
#   r24 = maxu r4, -2      = 0xfffffffe            = -2
#   r25 = mov r1           = 2147483647
#   r26 = sub r2, 1        = 0x7fffffff            = 2147483647
#   r27 = sub 1000000, r4  = 999995                (long immediate first operand)
#   r28 = add r3, r3       = -2
#   r29 = mov -256         = -256                  (shortest negative short immediate)
#   r30 = mov 256          = 256                   (long immediate)
#   r31 = add r0, 255      = 255                   ($r0 reads 0)
#
# Timing (ALU latency 1, isa.md §A4, so no stalls; one bundle per cycle):
#   B0 2 ops (4 syllables: two long immediates), B1 3, B2 4, B3 4, B4 4, B5 4, B6 3 (4
#   syllables), B7 2 (3 syllables): 8 bundles, 26 ops.
#   21 values printed, each: mov r16 ;; syscall 2 ;; mov r16 = 10 ;; syscall 3 ;; = 4 bundles,
#   4 ops (a syscall is an operation, alone in its bundle).
#   exit: mov r16 = r14 ;; return ;; = 2 bundles, 2 ops; return taken: 1 bubble.
# bundles = 8 + 84 + 2 = 94; ops = 26 + 84 + 2 = 112; cycles = 94 + 1 = 95; exit 110.
# expect: exit=110 cycles=95 bundles=94 ops=112 nops=0 stall_operand=0 taken_branches=1
# expect: loads=0 stores=0 moves=0
# expect: output="-2147483644\n2147483643\n-103\n0\n110\n1\n-8\n-20\n-2147483648\n2147483647\n2147483647\n-1\n-1\n-2\n2147483647\n2147483647\n999995\n-2\n-256\n256\n255\n"
# expect: fn.main.calls=1 fn.main.excl.cycles=95 fn.main.incl.cycles=95
.target st231
.text
main:
    mov $r1 = 0x7fffffff
    mov $r2 = 0x80000000 ;;
    mov $r3 = -1
    mov $r4 = 5
    mov $r5 = 100 ;;
    add $r10 = $r1, $r4
    sub $r11 = $r2, $r4
    sub $r12 = -3, $r5
    add $r13 = $r2, $r2 ;;
    sh1add $r14 = $r4, $r5
    sh2add $r15 = $r3, $r4
    sh3add $r17 = $r1, $r0
    sh4add $r18 = $r4, -100 ;;
    min $r19 = $r2, $r1
    max $r20 = $r2, $r1
    minu $r21 = $r2, $r1
    maxu $r22 = $r3, $r4 ;;
    min $r23 = $r3, 0
    maxu $r24 = $r4, -2
    mov $r25 = $r1
    sub $r26 = $r2, 1 ;;
    sub $r27 = 1000000, $r4
    add $r28 = $r3, $r3
    mov $r29 = -256 ;;
    mov $r30 = 256
    add $r31 = $r0, 255 ;;
    mov $r16 = $r10 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r11 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r12 ;;
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
    mov $r16 = $r14 ;;
    return $r63 ;;
