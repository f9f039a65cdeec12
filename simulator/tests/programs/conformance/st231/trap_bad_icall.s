# Conformance: an indirect call to a data address (inside memory but not code) traps naming
# the target; the ALU -> $r63 -> icall latency 2 costs one stall first.
# Code: M0 0x1000 (imml, 8 bytes), M1 0x1008, M2 0x100c: ends 0x1010 = data start, d = 0x1010.
#   M0 mov r63 = d               t=0, ready 1
#   M1 icall $r63                t=2 (stall 1): target 0x1010 is not code -> trap at the icall
# expect: trap="jump to 0x00001010" trap_pc=0x1008 trap_fn=main trap_cycle=2 exit=-1
.target st231
.data
d: .word 0
.text
main:
    mov $r63 = d ;;
    icall $r63 ;;
    return $r63 ;;
