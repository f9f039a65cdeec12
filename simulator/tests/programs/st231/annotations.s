# Compiler annotations: a copy, a 3-xor swap sequence (counted once), a spill store and a
# spill load (counted apart from ordinary loads/stores).
#   B0..B7 one bundle each, t=0..7; B7 ldw r4 ready 10
#   B8 add r16 = r4 + r1 (= 1 + 2 after the swap)   t=10 (stall 2) -> 11
#   B9 return                                        t=11 taken -> 13
# expect: exit=3 cycles=13 bundles=10 stall_operand=2 taken_branches=1 ops=10
# expect: moves=1 swaps=1 spill_stores=1 spill_loads=1 loads=0 stores=0
.target st231
.text
main:
    mov $r1 = 1 ;;
    mov $r2 = 2 ;;
    mov $r3 = $r1 ## copy
    ;;
    xor $r1 = $r1, $r2 ## swap
    ;;
    xor $r2 = $r1, $r2 ## swap
    ;;
    xor $r1 = $r1, $r2 ## swap
    ;;
    stw -4[$r12] = $r3 ## spill_store
    ;;
    ldw $r4 = -4[$r12] ## spill_load
    ;;
    add $r16 = $r4, $r1 ;;
    return $r63 ;;
