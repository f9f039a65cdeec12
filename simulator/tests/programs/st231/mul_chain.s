# A chain of dependent multiplies (latency 3, isa.md A4) with an ALU op beside each.
# Lanes: B1 starts at 0x1008 (lane 0), so the encoder puts the add first and the multiply in
# the odd lane (0x100c); same for B2 (0x1010) and B3 (0x1018). No nop is needed.
#   B0 mov r1=3; mov r2=5       t=0                          -> 1
#   B1 mul32 r3=r1*r2; add r9   t=1   r3 ready 4             -> 2
#   B2 mul32 r4=r3*r3; add r9   t=4   (stall 2) r4 ready 7   -> 5
#   B3 mull r5=r4*lo16(r2); add t=7   (stall 2) r5 ready 10  -> 8
#   B4 add r16 = r5 + r9        t=10  (stall 2)              -> 11
#   B5 return                   t=11  taken                  -> 13
# r3 = 15, r4 = 225, r5 = 225*5 = 1125, r9 = 3, result 1128
# cycles 13 = bundles 6 + stalls 6 + taken 1; ops 2+2+2+2+1+1 = 10
# expect: exit=1128 cycles=13 bundles=6 stall_operand=6 taken_branches=1 ops=10 nops=0 code_words=10
.target st231
.text
main:
    mov $r1 = 3
    mov $r2 = 5 ;;
    mul32 $r3 = $r1, $r2
    add $r9 = $r0, 1 ;;
    mul32 $r4 = $r3, $r3
    add $r9 = $r9, 1 ;;
    mull $r5 = $r4, $r2
    add $r9 = $r9, 1 ;;
    add $r16 = $r5, $r9 ;;
    return $r63 ;;
