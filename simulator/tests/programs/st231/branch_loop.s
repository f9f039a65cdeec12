# A counted loop whose compare is two bundles before its branch: compare -> br needs 3
# cycles (isa.md A4), so one stall cycle per iteration, plus the 1-cycle taken-branch bubble.
#   B0 mov r1 = 5                     t=0 -> 1
#   iteration starting at s (s = 1, 7, 13, 19, 25):
#     B1 add r1-=1; add r2+=2         t=s
#     B2 cmpgt b1 = r1, 0             t=s+1   b1 ready s+2
#     B3 nop                          t=s+2
#     B4 br b1                        t=s+4   (stall 1: b1 ready + 2) taken -> s+6
#   last branch (t=29) not taken -> 30
#   B5 mov r16 = r2                   t=30 -> 31
#   B6 return                         t=31 taken -> 33
# cycles 33 = bundles 23 + stalls 5 + taken 5; ops 1 + 5*5 + 2 = 28; nops 5; result 10
# expect: exit=10 cycles=33 bundles=23 stall_operand=5 taken_branches=5 ops=28 nops=5
.target st231
.text
main:
    mov $r1 = 5 ;;
loop:
    add $r1 = $r1, -1
    add $r2 = $r2, 2 ;;
    cmpgt $b1 = $r1, 0 ;;
    nop ;;
    br $b1, loop ;;
    mov $r16 = $r2 ;;
    return $r63 ;;
