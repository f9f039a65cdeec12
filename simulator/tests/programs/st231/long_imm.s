# Long immediates: constants outside -256..255 and symbolic offsets take an imml syllable
# (isa.md A3). Code: B0 = 4 syllables, B1 = 4, B2 = 2, B3..B5 = 1 each: 13 words.
#   B0 mov r1 = 0x12345678; add r2 = r0, -1000            t=0 -> 1
#   B1 ldw r3 = table+4[r0]; and r4 = r1, 0xff00          t=1, r3 ready 4 -> 2
#   B2 sub r5 = 1000000, r2 = 1001000                     t=2 -> 3
#   B3 add r6 = r3 + r4 = 0x00abcdef + 0x5600 = 0x00ac23ef  t=4 (stall 1) -> 5
#   B4 add r16 = r6 + r5 = 11281391 + 1001000 = 12282391  t=5 -> 6
#   B5 return                                             t=6 taken -> 8
# expect: exit=12282391 cycles=8 bundles=6 stall_operand=1 taken_branches=1 ops=8 loads=1 code_words=13
.target st231
.text
main:
    mov $r1 = 0x12345678
    add $r2 = $r0, -1000 ;;
    ldw $r3 = table+4[$r0]
    and $r4 = $r1, 0xff00 ;;
    sub $r5 = 1000000, $r2 ;;
    add $r6 = $r3, $r4 ;;
    add $r16 = $r6, $r5 ;;
    return $r63 ;;
.data
table: .word 0x11111111, 0x00abcdef
