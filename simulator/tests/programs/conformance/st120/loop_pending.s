# Conformance (README ST120 ASSUMPTIONs: LAW 6, 3 bubbles per taken GOTO): a loop entered
# while its pointer is still pending from a LAW issued just before it: only the first
# iteration waits.
#   g0 MAKEA P0, %hi(pp); MAKE R1, 3             t=0
#   g1 MOREA P0, %lo(pp); MAKE R0, 0             t=1
#   g2 LAW P1, @(P0 + 0) (= &cell)               t=2, ready 8
#   iteration from s:
#     L0 LDW R2, @(P1 + 0) (7); SUB R1 -= 1      s     (first: s = 8, stall 5)
#     L1 ADD R0 += R2; EQW G0, R1, 0             s+1
#     L2 G0! GOTO loop                           s+2, taken -> s+6
#   s = 8, 14, 20; the last GOTO (t=22) falls through -> 23
#   E0 RTS                                       t=23 -> 27
# groups 3 + 9 + 1 = 13; stalls 5; taken 3; cycles 13 + 5 + 9 = 27; ops 5 + 15 + 1 = 21;
# loads 4; R0 = 21.
# expect: exit=21 cycles=27 bundles=13 stall_operand=5 taken_branches=3 ops=21 loads=4
        .target st120
        .data
cell:   .word 7
pp:     .word cell
        .text
main:   MAKEA P0, %hi(pp)
        MAKE R1, 3 ;;
        MOREA P0, %lo(pp)
        MAKE R0, 0 ;;
        LAW P1, @(P0 + 0) ;;
loop:   LDW R2, @(P1 + 0)
        SUB R1, R1, 1 ;;
        ADD R0, R0, R2
        EQW G0, R1, 0 ;;
        G0! GOTO loop ;;
        RTS ;;
