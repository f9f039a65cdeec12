# A load from address 0 (unmapped): trap naming the address, the function and the cycle.
#   B0 mov t=0; B1 ldw t=1 traps
# expect: trap="bad address 0x00000000" trap_pc=0x1004 trap_fn=main trap_cycle=1
.target st231
main:
    mov $r1 = 0 ;;
    ldw $r2 = 0[$r1] ;;
    return $r63 ;;
