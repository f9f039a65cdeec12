# Conformance: the write system call with a pointer to unmapped memory traps at the syscall.
#   M0 0x1000 mov r16 = 0; mov r17 = 4     t=0
#   M1 0x1008 syscall 4: reads 4 bytes at 0   t=1 -> bad address 0x00000000
# expect: trap="bad address 0x00000000" trap_pc=0x1008 trap_fn=main trap_cycle=1 exit=-1 output=""
.target st231
.text
main:
    mov $r16 = 0
    mov $r17 = 4 ;;
    syscall 4 ;;
    return $r63 ;;
