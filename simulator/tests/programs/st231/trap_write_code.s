# Code is read-only: a store into it traps.
# expect: trap="store into code at 0x00001000" trap_pc=0x1008
.target st231
main:
    mov $r1 = main ;;
    stw 0[$r1] = $r0 ;;
