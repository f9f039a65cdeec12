# Conformance: an unknown system call number traps (README lists 1..4 only).
#   M0 0x1000 mov r16 = 1   t=0;  M1 0x1004 syscall 9   t=1 -> trap
# expect: trap="unknown system call 9" trap_pc=0x1004 trap_fn=main trap_cycle=1 exit=-1
.target st231
.text
main:
    mov $r16 = 1 ;;
    syscall 9 ;;
    return $r63 ;;
