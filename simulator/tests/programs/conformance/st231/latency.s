# Conformance (isa.md §A4): interlock latencies between unit classes, each producer directly
# followed by its consumer (one bundle per cycle; a bundle issues when its sources are
# ready; "stall" = cycles waited). Multiplies sit in [mul, alu] bundles (2 syllables: one
# lane is odd whatever the address, so no nop is added).
#   ALU -> ALU / MUL / load base / store value: 1 (0 stalls)
#   MUL -> ALU / MUL / store value: 3 (2 stalls)
#   LOAD -> ALU / load base / store value / store base / MUL / compare / syscall ($r16): 3 (2)
#   compare -> brf: 3 (2 stalls); compare -> slct / mfb: 1 (0)
#   LOAD into $r63 -> return: 4 (3 stalls)
# Memory: cell = 7, 0 x 7 words; ptr = &cell.
#   B0  mov r1 = cell; mov r2 = ptr                  t=0
#   B1  add r3 = 6; stw 24[r1] = r63 (save)          t=1
#   B2  add r4 = r3 + 1 = 7          ALU->ALU        t=2
#   B3  mul32 r5 = 7*6 = 42; add r8 = 9  ALU->MUL    t=3   r5 ready 6
#   B4  stw 4[r1] = r8               ALU->store val  t=4
#   B5  add r6 = r1 + 8                              t=5
#   B6  ldw r7 = -8[r6] = 7          ALU->load base  t=6   r7 ready 9
#   B7  add r10 = r7 + r5 = 49       LOAD->ALU       t=9   (stall 2)
#   B8  mul32 r11 = 49*49 = 2401; add r12 = 1        t=10  r11 ready 13
#   B9  add r13 = r11 + 1 = 2402     MUL->ALU        t=13  (stall 2)
#   B10 mul32 r14 = 2402*6 = 14412; add r15 = 2      t=14  r14 ready 17
#   B11 mul32 r17 = r14*r12 = 14412; add r18 = 3  MUL->MUL  t=17 (stall 2) r17 ready 20
#   B12 stw 12[r1] = r17             MUL->store val  t=20  (stall 2)
#   B13 ldw r19 = 0[r2] = cell                       t=21  ready 24
#   B14 ldw r20 = 4[r19] = 9         LOAD->load base t=24  (stall 2) ready 27
#   B15 stw 16[r1] = r20             LOAD->store val t=27  (stall 2)
#   B16 ldw r21 = 0[r2] = cell                       t=28  ready 31
#   B17 stw 20[r21] = r3             LOAD->store base t=31 (stall 2)
#   B18 ldw r22 = 0[r1] = 7                          t=32  ready 35
#   B19 mul32 r23 = 7*7 = 49; add r24 = 4  LOAD->MUL t=35  (stall 2)
#   B20 ldw r25 = 4[r1] = 9                          t=36  ready 39
#   B21 cmplt b0 = 9 < 10 = 1        LOAD->compare   t=39  (stall 2) b0 ready 40
#   B22 brf b0, bad (not taken)      compare->brf    t=42  (stall 2: 40 + 2)
#   B23 cmpeq b1 = 9 == 9 = 1                        t=43  b1 ready 44
#   B24 slct r26 = b1 ? r3 : 0 = 6; mfb r27 = b1 = 1 compare->slct/mfb t=44 (no stall)
#   B25 ldw r16 = 0[r1] = 7                          t=45  ready 48
#   B26 syscall 2 (prints 7)         LOAD->syscall   t=48  (stall 2)
#   B27 mov r16 = 10; B28 syscall 3                  t=49, 50
#   print r10, r13, r17, r20, r23, r26, r27 (28 bundles)  t=51..78
#   B29 ldw r29 = 12[r1] = 14412 (the stalled store)  t=79  ready 82
#   B30 mov r16 = r29                LOAD->ALU       t=82  (stall 2)
#   B31 syscall 2                                    t=83
#   B32 ldw r63 = 24[r1]; mov r16 = r26 = 6          t=84  r63 ready 87
#   B33 return $r63                  LOAD->return 4  t=88  (stall 3) taken -> 90
# bundles = 34 + 28 = 62; stalls = 12*2 + 3 = 27; cycles = 62 + 27 + 1 = 90.
# ops: B0..B9 14, B10..B19 13, B20..B28 10, print 28, B29..B33 6 = 71.
# loads: B6 B13 B14 B16 B18 B20 B25 B29 B32 = 9; stores: B1 B4 B12 B15 B17 = 5.
# expect: exit=6 output="7\n49\n2402\n14412\n9\n49\n6\n1\n14412"
# expect: cycles=90 bundles=62 stall_operand=27 ops=71 nops=0 taken_branches=1 loads=9 stores=5
.target st231
.data
cell: .word 7, 0, 0, 0, 0, 0, 0, 0
ptr:  .word cell
.text
main:
    mov $r1 = cell
    mov $r2 = ptr ;;
    add $r3 = $r0, 6
    stw 24[$r1] = $r63 ;;
    add $r4 = $r3, 1 ;;
    mul32 $r5 = $r4, $r3
    add $r8 = $r0, 9 ;;
    stw 4[$r1] = $r8 ;;
    add $r6 = $r1, 8 ;;
    ldw $r7 = -8[$r6] ;;
    add $r10 = $r7, $r5 ;;
    mul32 $r11 = $r10, $r10
    add $r12 = $r0, 1 ;;
    add $r13 = $r11, 1 ;;
    mul32 $r14 = $r13, $r3
    add $r15 = $r0, 2 ;;
    mul32 $r17 = $r14, $r12
    add $r18 = $r0, 3 ;;
    stw 12[$r1] = $r17 ;;
    ldw $r19 = 0[$r2] ;;
    ldw $r20 = 4[$r19] ;;
    stw 16[$r1] = $r20 ;;
    ldw $r21 = 0[$r2] ;;
    stw 20[$r21] = $r3 ;;
    ldw $r22 = 0[$r1] ;;
    mul32 $r23 = $r22, $r22
    add $r24 = $r0, 4 ;;
    ldw $r25 = 4[$r1] ;;
    cmplt $b0 = $r25, 10 ;;
    brf $b0, bad ;;
    cmpeq $b1 = $r25, 9 ;;
    slct $r26 = $b1, $r3, 0
    mfb $r27 = $b1 ;;
    ldw $r16 = 0[$r1] ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r10 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r13 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r17 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r20 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r23 ;;
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
    ldw $r29 = 12[$r1] ;;
    mov $r16 = $r29 ;;
    syscall 2 ;;
    ldw $r63 = 24[$r1]
    mov $r16 = $r26 ;;
    return $r63 ;;
bad:
    mov $r16 = 95 ;;
    return $r63 ;;
