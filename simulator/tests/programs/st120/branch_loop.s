# Taken-branch loop with the branch in slot 1 of a 2-operation group, and reads before
# writes inside a group: EQW reads the old R1 while SUB writes the new one.
#
# R1 = 10; each iteration: G0 = (old R1 == 1), R1 -= 1; R0 += new R1; loop while G0 false.
# Iterations: old R1 = 10..1 -> 10 iterations, R0 = 9+8+...+0 = 45; the GOTO is taken 9
# times. No stalls (all latency 1).
# bundles = 1 + 10*2 + 1 = 22; ops = 2 + 10*4 + 1 = 43; taken = 9 + 1 (RTS) = 10;
# cycles = 22 + 3*10 = 52.
#
# expect: exit = 45
# expect: cycles = 52
# expect: stall_operand = 0
# expect: bundles = 22
# expect: ops = 43
# expect: taken_branches = 10
        .target st120
main:   MAKE R0, 0
        MAKE R1, 10 ;;
loop:   EQW G0, R1, 1
        SUB R1, R1, 1 ;;
        ADD R0, R0, R1
        G0! GOTO loop ;;
        RTS ;;
