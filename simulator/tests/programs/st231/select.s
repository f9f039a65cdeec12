# Partial predication: compares into $b and $r, slct/slctf with register and immediate,
# mtb/mfb. A $b read by slct is an ordinary operand (latency 1, isa.md A4): no stall.
#   B0 mov r1=7; mov r2=3                          t=0 -> 1
#   B1 cmplt b0 = 7<3 = 0; cmpgt r3 = 7>3 = 1      t=1 -> 2
#   B2 slct r4 = b0 ? r1 : r2 = 3; slctf r5 = b0 ? 100 : r1 = 7; mtb b1 = r3   t=2 -> 3
#   B3 mfb r6 = b1 = 1; max r7 = max(3, 7) = 7     t=3 -> 4
#   B4 sh2add r16 = (7 << 2) + 1 = 29              t=4 -> 5
#   B5 return                                      t=5 taken -> 7
# expect: exit=29 cycles=7 bundles=6 stall_operand=0 taken_branches=1 ops=11
.target st231
.text
main:
    mov $r1 = 7
    mov $r2 = 3 ;;
    cmplt $b0 = $r1, $r2
    cmpgt $r3 = $r1, $r2 ;;
    slct $r4 = $b0, $r1, $r2
    slctf $r5 = $b0, $r1, 100
    mtb $b1 = $r3 ;;
    mfb $r6 = $b1
    max $r7 = $r4, $r5 ;;
    sh2add $r16 = $r7, $r6 ;;
    return $r63 ;;
