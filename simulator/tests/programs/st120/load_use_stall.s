# Load-use stall: a pointer loaded with LAW (load into a P register, latency 6 — isa.md §B3
# ASSUMPTION "load->P use 6") is used as an address by the very next group, which stalls 5
# cycles. The loop runs 3 times.
#
# Hand-derived timeline (t = issue cycle; a group issues at max(cycle, operands ready);
# cycle = t + 1, plus 3 bubbles after a taken branch/call/return):
#   g1 MAKEA      t=0                      g2 MOREA  t=1         g3 MAKE,MAKE t=2
#   iteration 1: g4 LAW t=3 (P1 ready 9)   g5 LDW stalls 5, t=9   g6 t=10  g7 t=11
#                g8 GOTO t=12 taken -> next cycle 16
#   iteration 2: g4 t=16 (P1 ready 22)     g5 t=22 (stall 5)      g6 t=23  g7 t=24
#                g8 t=25 taken -> 29
#   iteration 3: g4 t=29 (ready 35)        g5 t=35 (stall 5)      g6 t=36  g7 t=37
#                g8 t=38 not taken -> 39
#   g9 RTS t=39 -> 40 + 3 bubbles = 43
# bundles = 3 + 3*5 + 1 = 19; ops = 4 + 3*6 + 1 = 23; stalls = 3*5 = 15;
# taken = 2 GOTO + 1 RTS = 3; cycles = 19 + 15 + 3*3 = 43; loads = 3*2 = 6; R0 = 3*5 = 15.
#
# expect: exit = 15
# expect: cycles = 43
# expect: stall_operand = 15
# expect: stall_memport = 0
# expect: bundles = 19
# expect: ops = 23
# expect: taken_branches = 3
# expect: loads = 6
# expect: stores = 0
        .target st120
        .data
ptrs:   .word cell
cell:   .word 5
        .text
main:   MAKEA P0, %hi(ptrs) ;;              # g1
        MOREA P0, %lo(ptrs) ;;              # g2 (tied: reads P0 written by g1, latency 1)
        MAKE R1, 3
        MAKE R0, 0 ;;                       # g3
loop:   LAW P1, @(P0 + 0) ;;                # g4 P1 = &cell, ready 6 cycles later
        LDW R2, @(P1 + 0) ;;                # g5 uses P1: stall 5
        ADD R0, R0, R2
        SUB R1, R1, 1 ;;                    # g6
        EQW G0, R1, 0 ;;                    # g7 G0 = (R1 == 0)
        G0! GOTO loop ;;                    # g8 taken while R1 != 0
        RTS ;;                              # g9
