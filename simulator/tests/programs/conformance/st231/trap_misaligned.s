# Conformance (isa.md §A4 ASSUMPTION: misaligned access traps): a word load through a pointer
# that was itself loaded (load -> load base: 2 stall cycles) and is 2 bytes off alignment.
# Code: M0 0x1000 (8 bytes: imml), M1 0x1008, f: F0 0x100c, F1 0x1010, F2 0x1014; code ends
# at 0x1018, data starts at the next 16-byte boundary 0x1020: w = 0x1020, p = 0x1024.
#   M0 mov r1 = p                t=0
#   M1 call f                    t=1, taken -> 3
#   F0 ldw r2 = 0[r1] = w + 2    t=3, ready 6
#   F1 ldw r3 = 0[r2]            t=6 (stall 2): misaligned 4-byte access at 0x1022 -> trap
# The trap names the address 0x1022, the bundle 0x1010, function f and cycle 6.
# expect: trap="misaligned" trap="0x00001022" trap_pc=0x1010 trap_fn=f trap_cycle=6 exit=-1
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
