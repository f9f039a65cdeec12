# Conformance (isa.md §A7 "Memory", §A4 ASSUMPTION little-endian): ldb/ldbu/ldh/ldhu/ldw
# sign and zero extension, sub-word stores merging into a word, negative offsets,
# dismissible loads (.d; README: a faulting one returns 0), pft (no effect).
# Data: d = bytes 80 7f ff 01 | half 0x8001, 0x1234 (bytes 01 80 34 12) | word 0xdeadbeef
#       (bytes ef be ad de); buf = 8 zero bytes at d + 12.
#   r10 ldb  0[d]  = sext(0x80)          = -128
#   r11 ldbu 0[d]  = 0x80                = 128
#   r13 ldb  1[d]  = 0x7f                = 127
#   r14 ldh  0[d]  = 0x7f80              = 32640
#   r15 ldh  2[d]  = 0x01ff              = 511
#   r17 ldhu 4[d]  = 0x8001              = 32769
#   r18 ldh  4[d]  = sext(0x8001)        = -32767
#   r19 ldw  0[d]  = 0x01ff7f80          = 33521536
#   r20 ldw  8[d]  = 0xdeadbeef          = -559038737
#   r21 ldbu 11[d] = 0xde                = 222
#   r22 ldb  10[d] = sext(0xad)          = -83
#   r23 ldhu 6[d]  = 0x1234              = 4660
#   stw 0[buf] = 0xdeadbeef (bytes ef be ad de); sth 0[buf] = 128 -> 80 00 ad de;
#   stb 3[buf] = 0x7f -> 80 00 ad 7f  (first derivation wrote byte 2 as 0xbe: corrected)
#   stb 4[buf] = 0x80; sth 6[buf] = 0x8001 -> bytes 4..7 = 80 00 01 80
#   r24 ldw 0[buf] = 0x7fad0080          = 2142044288
#   r25 ldw 4[buf] = 0x80010080          = -2147417984
#   r26 ldw.d 0[$r0]: address 0 is unmapped, dismissible -> 0 (no trap)
#   r27 ldw.d 8[d]                       = -559038737
#   pft 0[$r0]: no effect, no trap
#   r28 ldw -4[r3], r3 = buf + 4         = 2142044288
# Timing: one memory operation per bundle (MEM 1), load latency 3, but no value is used
# before it is ready: B0 t=0 (movs of two symbols, 4 syllables), B1..B23 t=1..23 (one memory
# op each, B12 also computes r3 = buf + 4, used by B23), stores read values loaded >= 3
# cycles earlier (r20 loaded at t=9, stored at t=13); printing from t=24; no stalls.
# bundles = 24 + 17*4 + 2 = 94; ops = 2 + 24 + 68 + 2 = 96; cycles = 95.
# loads = 12 + 2 + 2 (.d) + 1 = 17 (pft is a prefetch, not a load); stores = 5.
# expect: exit=222 cycles=95 bundles=94 ops=96 stall_operand=0 taken_branches=1
# expect: loads=17 stores=5 spill_loads=0 spill_stores=0
# expect: output="-128\n128\n127\n32640\n511\n32769\n-32767\n33521536\n-559038737\n222\n-83\n4660\n2142044288\n-2147417984\n0\n-559038737\n2142044288\n"
.target st231
.data
d:  .byte 0x80, 0x7f, 0xff, 0x01
    .half 0x8001, 0x1234
    .word 0xdeadbeef
buf: .space 8
.text
main:
    mov $r1 = d
    mov $r2 = buf ;;
    ldb $r10 = 0[$r1] ;;
    ldbu $r11 = 0[$r1] ;;
    ldb $r13 = 1[$r1] ;;
    ldh $r14 = 0[$r1] ;;
    ldh $r15 = 2[$r1] ;;
    ldhu $r17 = 4[$r1] ;;
    ldh $r18 = 4[$r1] ;;
    ldw $r19 = 0[$r1] ;;
    ldw $r20 = 8[$r1] ;;
    ldbu $r21 = 11[$r1] ;;
    ldb $r22 = 10[$r1] ;;
    ldhu $r23 = 6[$r1]
    add $r3 = $r2, 4 ;;
    stw 0[$r2] = $r20 ;;
    sth 0[$r2] = $r11 ;;
    stb 3[$r2] = $r13 ;;
    stb 4[$r2] = $r10 ;;
    sth 6[$r2] = $r18 ;;
    ldw $r24 = 0[$r2] ;;
    ldw $r25 = 4[$r2] ;;
    ldw.d $r26 = 0[$r0] ;;
    ldw.d $r27 = 8[$r1] ;;
    pft 0[$r0] ;;
    ldw $r28 = -4[$r3] ;;
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
    mov $r16 = $r21 ;;
    return $r63 ;;
