# Conformance (isa.md §B3/§B4 as the README's ASSUMPTIONs: LAW 6, load into R 1, compare ->
# guard 1, 3 bubbles per taken GOTO): a linked-list walk with the next pointer loaded into
# a P register (DU/AU decoupling: 5 stall cycles per node).
# Nodes: n1 = {n2, 1}, n2 = {n3, 2}, n3 = {0, 3}.
#   g0 MAKEA P0, %hi(n1); MAKE R3, 0             t=0
#   g1 MOREA P0, %lo(n1)                         t=1
#   iteration from s:
#     L0 LDW R2, @(P0 + 1); LAW P0, @(P0 + 0)    s     (both read the old P0; P0 ready s+6)
#     L1 ADD R3 += R2; EQA G0, P0, 0             s+6 (stall 5)
#     L2 G0! GOTO loop (P0 != 0)                 s+7, taken -> s+11
#   s = 2, 13, 24; the last GOTO (t=31) falls through -> 32
#   E0 ADD R0 = R3 + 0 = 6                       t=32
#   E1 RTS                                       t=33 -> 37
# groups 2 + 9 + 2 = 13; stalls 15; taken 3; cycles 13 + 15 + 9 = 37; ops 3 + 15 + 2 = 20;
# loads 6.
# expect: exit=6 cycles=37 bundles=13 stall_operand=15 taken_branches=3 ops=20 loads=6 P0=0
        .target st120
        .data
n1:     .word n2, 1
n2:     .word n3, 2
n3:     .word 0, 3
        .text
main:   MAKEA P0, %hi(n1)
        MAKE R3, 0 ;;
        MOREA P0, %lo(n1) ;;
loop:   LDW R2, @(P0 + 1)
        LAW P0, @(P0 + 0) ;;
        ADD R3, R3, R2
        EQA G0, P0, 0 ;;
        G0! GOTO loop ;;
        ADD R0, R3, 0 ;;
        RTS ;;
