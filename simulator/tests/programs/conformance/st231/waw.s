# Conformance (isa.md §A4: "WAR latency 0, WAW 1" [M]; §A2: a bundle reads before it
# writes): a load into r1 (latency 3) followed at once by an ALU write of r1 (latency 1),
# and a read of r1 in the next bundle. WAW 1 lets the add issue right after the load; the
# reader depends on the newest write (the add, ready one cycle later): no stall, and program
# order decides the value: 5, not the loaded 9. Then WAR inside one bundle: a bundle that
# reads r2 and writes r2 (swap through two movs) reads the old values.
#   M0 mov r3 = d (imml)                      t=0
#   M1 ldw r1 = 0[r3] (9)                     t=1, ready 4
#   M2 add r1 = r0, 5                         t=2 (WAW 1: no stall), ready 3
#   M3 add r16 = r1, 100 = 105                t=3 (no stall)
#   M4 mov r4 = 1; mov r5 = 2                 t=4
#   M5 mov r4 = r5; mov r5 = r4 (swap)        t=5 -> r4 = 2, r5 = 1
#   M6 sh1add r17 = r4, r5 = (2 << 1) + 1 = 5  t=6
#   M7 add r16 = r16, r17 = 110              t=7
#   M8 return                                t=8, taken -> 10
# bundles 9, ops 1+1+1+1+2+2+1+1+1 = 11, loads 1, stalls 0, cycles 10.
# expect: exit=110 cycles=10 bundles=9 ops=11 stall_operand=0 loads=1 taken_branches=1
.target st231
.data
d: .word 9
.text
main:
    mov $r3 = d ;;
    ldw $r1 = 0[$r3] ;;
    add $r1 = $r0, 5 ;;
    add $r16 = $r1, 100 ;;
    mov $r4 = 1
    mov $r5 = 2 ;;
    mov $r4 = $r5
    mov $r5 = $r4 ;;
    sh1add $r17 = $r4, $r5 ;;
    add $r16 = $r16, $r17 ;;
    return $r63 ;;
