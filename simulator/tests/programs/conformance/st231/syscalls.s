# Conformance (README "Memory map and start-up": system calls 1 exit, 2 print_int,
# 3 print_char, 4 write(ptr, len)): print_int of INT_MIN and 0, print_char of a character
# literal, write of 3 bytes and of 0 bytes, then exit(300) from inside a called function
# (the code after the exit never runs; the run report keeps the full value 300, the CLI's
# status is 300 mod 256 = 44). A syscall is an operation alone in its bundle.
#   M0  mov r16 = 0x80000000 (imml)     t=0
#   M1  syscall 2  -> "-2147483648"     t=1
#   M2  mov r16 = 'A'                   t=2
#   M3  syscall 3  -> "A"               t=3
#   M4  mov r16 = 0                     t=4
#   M5  syscall 2  -> "0"               t=5
#   M6  mov r16 = msg (imml); mov r17 = 3   t=6
#   M7  syscall 4  -> "hi\n"            t=7
#   M8  mov r17 = 0                     t=8
#   M9  syscall 4  -> ""                t=9
#   M10 call quit                       t=10, taken -> 12
#   Q0  mov r16 = 300 (imml)            t=12
#   Q1  syscall 1: exit(300)            t=13 -> the run ends after cycle 13: 14 cycles
# bundles 13; ops: main 12, quit 2 = 14; taken 1 (the call).
# quit: 1 call, cycles 12..14 = 2 exclusive = inclusive; main: exclusive 12, inclusive 14.
# expect: exit=300 output="-2147483648A0hi\n" cycles=14 bundles=13 ops=14 taken_branches=1
# expect: fn.quit.calls=1 fn.quit.excl.cycles=2 fn.quit.incl.cycles=2 fn.main.excl.cycles=12
# expect: fn.main.incl.cycles=14 fn.quit.excl.ops=2
.target st231
.data
msg: .ascii "hi\n"
.text
main:
    mov $r16 = 0x80000000 ;;
    syscall 2 ;;
    mov $r16 = 'A' ;;
    syscall 3 ;;
    mov $r16 = 0 ;;
    syscall 2 ;;
    mov $r16 = msg
    mov $r17 = 3 ;;
    syscall 4 ;;
    mov $r17 = 0 ;;
    syscall 4 ;;
    call quit ;;
    mov $r16 = 7 ;;
    return $r63 ;;
.type quit, @function
quit:
    mov $r16 = 300 ;;
    syscall 1 ;;
    mov $r16 = 5 ;;
    return $r63 ;;
