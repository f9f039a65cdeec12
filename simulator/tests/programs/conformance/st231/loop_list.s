# Conformance (isa.md §A4): a linked-list walk whose loop-carried pointer comes from a load
# (latency 3) and whose exit test is a compare -> br (3): the steady state of a loop whose
# long-latency results are consumed by the next iteration.
# Nodes: n1 = {n2, 1}, n2 = {n3, 2}, n3 = {0, 3}.
#   M0 r1 = n1 (imml); r3 = 0                     t=0
#   iteration from s:
#     L0 ldw r1 = 0[r1] (next); r4 = r1 (node)    s       r1 ready s+3
#     L1 ldw r2 = 4[r4] (value)                   s+1     r2 ready s+4
#     L2 cmpne b0 = r1, 0: needs s+3              s+3 (stall 1), b0 ready s+4
#     L3 br b0, loop; r3 += r2: b0 + 2 = s+6      s+6 (stall 2), taken -> s+8
#   s = 1, 9, 17; the last br (t=23) falls through -> 24
#   E0 r16 = r3 = 6                               t=24
#   E1 return                                     t=25 -> 27
# bundles 1 + 12 + 2 = 15; stalls 9; taken 3; cycles 27; ops 2 + 18 + 2 = 22; loads 6.
# expect: exit=6 cycles=27 bundles=15 stall_operand=9 taken_branches=3 ops=22 loads=6
.target st231
.data
n1: .word n2, 1
n2: .word n3, 2
n3: .word 0, 3
.text
main:
    mov $r1 = n1
    mov $r3 = 0 ;;
loop:
    ldw $r1 = 0[$r1]
    mov $r4 = $r1 ;;
    ldw $r2 = 4[$r4] ;;
    cmpne $b0 = $r1, 0 ;;
    br $b0, loop
    add $r3 = $r3, $r2 ;;
    mov $r16 = $r3 ;;
    return $r63 ;;
