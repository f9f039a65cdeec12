# Conformance (README --max-cycles): a loop with a load-use stall stopped by a budget of 100
# cycles while a bundle waits for its operand; the trap names the waiting bundle.
# Code: M0 0x1000 (imml, 8), M1 0x1008, spin: L0 0x100c, L1 0x1010, L2 0x1014.
#   M0 mov r1 = d                t=0
#   M1 call spin                 t=1, taken -> 3
#   iteration k (k = 0, 1, ...) from s = 3 + 6k:
#     L0 ldw r2 = 0[r1]          s, ready s+3
#     L1 add r3 = r2, 1          s+3 (stall 2)
#     L2 goto spin               s+4, taken -> s+6
#   k = 16: s = 99, L0 issues at 99; L1 would issue at 102 > budget: the budget runs out
#   at cycle 100 while L1 (0x1010) waits.
# options: max_cycles=100
# expect: trap="cycle budget exhausted" trap_pc=0x1010 trap_fn=spin trap_cycle=100 exit=-1
.target st231
.data
d: .word 1
.text
main:
    mov $r1 = d ;;
    call spin ;;
spin:
    ldw $r2 = 0[$r1] ;;
    add $r3 = $r2, 1 ;;
    goto spin ;;
