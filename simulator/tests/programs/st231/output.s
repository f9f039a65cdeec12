# System calls: write, print_int, print_char, then exit(5) (the code after it never runs).
#   B0 t=0, B1 syscall t=1, B2 t=2, B3 t=3, B4 t=4, B5 t=5, B6 t=6, B7 exit t=7 -> 8 cycles
# expect: exit=5 output="abc-42\n" cycles=8 bundles=8 ops=9 taken_branches=0
.target st231
.text
main:
    mov $r16 = text
    mov $r17 = 3 ;;
    syscall 4 ;;
    mov $r16 = -42 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = 5 ;;
    syscall 1 ;;
    mov $r16 = 9 ;;
    return $r63 ;;
.data
text: .ascii "abc"
