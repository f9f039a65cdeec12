# Conformance (isa.md §A4: "load into $r63 -> return/icall 4"; §A6 icall through $r63):
# calls through a table of function pointers loaded straight into $r63.
#   M0 r60 = r63; r1 = tab (imml)      t=0
#   M1 ldw r63 = 4[r1] (f2)            t=1, ready 4
#   M2 icall $r63: needs 1 + 4 = 5     t=5 (stall 3), taken -> f2 at 7; r63 = M3, ready 6
#   f2: F0 r16 = 22                    t=7
#       F1 return (6 + 1 <= 8)         t=8 -> 10
#   M3 ldw r63 = 0[r1] (f1)            t=10, ready 13
#   M4 r2 = r16 + 0 = 22               t=11
#   M5 icall $r63: needs 10 + 4 = 14   t=14 (stall 2) -> f1 at 16; r63 ready 15
#   f1: G0 r16 = r2 + 20 = 42          t=16
#       G1 return                      t=17 -> 19
#   M6 r63 = r60                       t=19, ready 20
#   M7 return: needs 21                t=21 (stall 1) -> 23
# bundles 8 + 2 + 2 = 12, stalls 6, taken 5, cycles 23; ops 9 + 2 + 2 = 13; loads 2.
# f1 and f2 are reached only through icall, so they are declared functions.
# expect: exit=42 cycles=23 bundles=12 stall_operand=6 taken_branches=5 ops=13 loads=2
# expect: fn.f1.calls=1 fn.f1.excl.cycles=3 fn.f2.calls=1 fn.f2.excl.cycles=3
# expect: fn.main.excl.cycles=17 fn.main.incl.cycles=23 fn.main.excl.stall_operand=6
.target st231
.data
tab: .word f1, f2
.text
main:
    mov $r60 = $r63
    mov $r1 = tab ;;
    ldw $r63 = 4[$r1] ;;
    icall $r63 ;;
    ldw $r63 = 0[$r1] ;;
    add $r2 = $r16, 0 ;;
    icall $r63 ;;
    mov $r63 = $r60 ;;
    return $r63 ;;
.type f1, @function
f1:
    add $r16 = $r2, 20 ;;
    return $r63 ;;
.type f2, @function
f2:
    mov $r16 = 22 ;;
    return $r63 ;;
