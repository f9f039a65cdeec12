# Conformance (isa.md §A4): a loop entered while a register it reads is still pending from
# a load issued just before it: only the first iteration waits.
#   M0 r1 = arr (imml); r7 = 3                    t=0
#   M1 ldw r5 = 0[r1] (7)                         t=1, ready 4
#   iteration from s:
#     L0 r6 += r5; r7 -= 1                        s       (first: s = 4, stall 2)
#     L1 cmpne b0 = r7, 0                         s+1     b0 ready s+2
#     L2 br b0, loop: needs s+4                   s+4 (stall 2), taken -> s+6
#   s = 4, 10, 16; the last br (t=20) falls through -> 21
#   E0 r16 = r6 = 21                              t=21
#   E1 return                                     t=22 -> 24
# bundles 2 + 9 + 2 = 13; stalls 2 + 3*2 = 8; taken 3; cycles 24; ops 3 + 12 + 2 = 17.
# expect: exit=21 cycles=24 bundles=13 stall_operand=8 taken_branches=3 ops=17 loads=1
.target st231
.data
arr: .word 7
.text
main:
    mov $r1 = arr
    mov $r7 = 3 ;;
    ldw $r5 = 0[$r1] ;;
loop:
    add $r6 = $r6, $r5
    add $r7 = $r7, -1 ;;
    cmpne $b0 = $r7, 0 ;;
    br $b0, loop ;;
    mov $r16 = $r6 ;;
    return $r63 ;;
