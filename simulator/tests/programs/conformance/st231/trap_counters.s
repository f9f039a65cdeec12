# Conformance: the counters of a run that traps account for the cycles up to the trap.
# Same program as trap_misaligned.s: the faulting ldw (0x1010) waits 2 cycles for its
# loaded base and traps when it issues at cycle 6. Up to the trap: bundles M0, M1, F0
# issued (3 ops), 1 taken call, 2 stall cycles waited by the faulting bundle: 6 cycles
# elapsed = 3 bundles + 2 stalls + 1 bubble, the cycle the trap names.
# expect: trap="misaligned" trap_cycle=6 cycles=6 stall_operand=2 bundles=3 ops=3 taken_branches=1 exit=-1
.target st231
.data
w: .word 0
p: .word w+2
.text
main:
    mov $r1 = p ;;
    call f ;;
f:
    ldw $r2 = 0[$r1] ;;
    ldw $r3 = 0[$r2] ;;
    return $r63 ;;
