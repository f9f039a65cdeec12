# Conformance (README "ST231 assembly syntax" directives and "Memory map"): .equ/.set,
# .byte/.half/.short/.word/.long/.int, .asciz/.string, .zero N,fill, .space N, .align N
# (bytes), .p2align K, .bss, .entry; data after the code aligned to 16 (so da is 16-aligned),
# bss after the data aligned to 8; little-endian. Entry is `start` (.entry), not main.
# Data layout (offsets from da):
#   0 da: 01 02 | .align 4 -> 4 db: .word TEN (10), BIG (0x12345) at 4..11
#   12 dh: .half -1 (FF FF), .short 0x7fff at 14 | 16 ds: "ok\0" 16..18 | .p2align 3 -> 24
#   24 dq: .long 7, .int 8 (28) | 32 dz: 41 41 41 (.zero 3, 0x41), 35: .space 1 -> 00
#   36: .short 3 | 38 dt: "xy\0" 38..40 -> data 41 bytes -> bss at 48: buf (16 zero bytes)
#   r10 ldbu 1[da] = 2         r11 db - da = 4         r13 ldw db = 10
#   r14 dq - da = 24           r15 ldw 4[db] = 74565   r17 dz - da = 32
#   r18 ldh 8[db] (dh) = -1    r19 dt - da = 38        r20 ldh 10[db] = 32767
#   r21 buf - da = 48          r22 ldbu 13[db] ('k')= 107   r23 ldbu 14[db] = 0
#   r24 ldw dq = 7             r25 ldw 4[dq] = 8       r26 ldw dz = 0x00414141 = 4276545
#   r27 ldh 4[dz] = 3          r28 ldbu dt ('x') = 120 r29 ldw buf = 0
#   r30 ldw 4[buf] after stw 4[buf] = r25: 8
# Timing: B0..B2 (two imml movs each, t=0..2), B3..B7 load + sub (t=3..7), B8..B17 one
# memory op each (t=8..17); values are printed from t=18, the last load (t=17) long before
# its print: no stalls. main is declared `.type main, @function` (first derivation left it
# undeclared and expected it among the functions; the README does not say which labels are
# function symbols: without .entry pointing at it, a plain label main is a local label). bundles 18 + 19*4 + 2 = 96; ops 6 + 10 + 10 + 76 + 2 = 104;
# cycles 97; loads 14; stores 1. main is never called.
# expect: exit=48 cycles=97 bundles=96 ops=104 stall_operand=0 loads=14 stores=1
# expect: output="2\n4\n10\n24\n74565\n32\n-1\n38\n32767\n48\n107\n0\n7\n8\n4276545\n3\n120\n0\n8\n"
# expect: fn.start.calls=1 fn.start.incl.cycles=97 fn.main.calls=0 fn.main.incl.cycles=0
.target st231
.equ TEN, 10
.set BIG, 0x12345
.entry start
.data
da: .byte 1, 2
    .align 4
db: .word TEN, BIG
dh: .half -1
    .short 0x7fff
ds: .asciz "ok"
    .p2align 3
dq: .long 7
    .int 8
dz: .zero 3, 0x41
    .space 1
    .short 3
dt: .string "xy"
.bss
buf: .space 16
.text
.type main, @function
main:
    mov $r16 = 99 ;;
    return $r63 ;;
start:
    mov $r1 = da
    mov $r2 = db ;;
    mov $r3 = dq
    mov $r4 = dz ;;
    mov $r5 = dt
    mov $r6 = buf ;;
    ldbu $r10 = 1[$r1]
    sub $r11 = $r2, $r1 ;;
    ldw $r13 = 0[$r2]
    sub $r14 = $r3, $r1 ;;
    ldw $r15 = 4[$r2]
    sub $r17 = $r4, $r1 ;;
    ldh $r18 = 8[$r2]
    sub $r19 = $r5, $r1 ;;
    ldh $r20 = 10[$r2]
    sub $r21 = $r6, $r1 ;;
    ldbu $r22 = 13[$r2] ;;
    ldbu $r23 = 14[$r2] ;;
    ldw $r24 = 0[$r3] ;;
    ldw $r25 = 4[$r3] ;;
    ldw $r26 = 0[$r4] ;;
    ldh $r27 = 4[$r4] ;;
    ldbu $r28 = 0[$r5] ;;
    ldw $r29 = 0[$r6] ;;
    stw 4[$r6] = $r25 ;;
    ldw $r30 = 4[$r6] ;;
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
    mov $r16 = $r21 ;;
    return $r63 ;;
