# 64-bit addition with addcg (carry through $b registers, read as ordinary operands, latency
# 1): (hi:lo) = (1:0xffffffff) + (0:1) = (2:0).
#   B0 mov r1=-1; mov r2=1; mov r3=1     t=0
#   B1 mtb b0 = r0 (carry in 0)          t=1
#   B2 addcg r4,b1 = b0,r1,r3 -> 0, 1    t=2
#   B3 addcg r5,b2 = b1,r2,r0 -> 2, 0    t=3
#   B4 mfb r6 = b2 -> 0                  t=4
#   B5 sh4add r16 = (r5<<4) + r4 = 32    t=5
#   B6 r16 += r6                         t=6
#   B7 return                            t=7 taken -> 9
# expect: exit=32 cycles=9 bundles=8 stall_operand=0 taken_branches=1 ops=10
.target st231
.text
main:
    mov $r1 = -1
    mov $r2 = 1
    mov $r3 = 1 ;;
    mtb $b0 = $r0 ;;
    addcg $r4, $b1 = $b0, $r1, $r3 ;;
    addcg $r5, $b2 = $b1, $r2, $r0 ;;
    mfb $r6 = $b2 ;;
    sh4add $r16 = $r5, $r4 ;;
    add $r16 = $r16, $r6 ;;
    return $r63 ;;
