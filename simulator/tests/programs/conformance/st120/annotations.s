# Conformance (README "Counters": moves = executed operations annotated `copy`; swaps = runs
# of consecutive `swap`-annotated operations, each run once; spill loads/stores counted apart
# from loads/stores; annotations are comma-separated after `##`).
#   g1 MAKE R1,1; MAKE R2,2       g2 MOVE R3 = R1 (copy)
#   g3..g5 XOR swap of R1/R2 (swap run 1)               -> R1 = 2, R2 = 1
#   g6 SUBWA P15 -= 1 word; MOVE R4 = R3 (copy)
#   g7 SDW spill_store of R1 (2)   g8 LDW R5 spill_load (2, latency 1)
#   g9..g11 XOR swap again (run 2) -> R1 = 1, R2 = 2
#   g12 MOVE R6 = R5 (copy, swap): a move, and it continues run 2 (consecutive swap op)
#   g13 ADDWA P15 += 1 word; ADD R0 = R5 + R6 = 4     g14 RTS
# groups 14, ops 17, no stalls, cycles 17; moves 3, swaps 2, spill loads 1, spill stores 1,
# loads 0, stores 0.
# expect: exit=4 cycles=17 bundles=14 ops=17 stall_operand=0 moves=3 swaps=2
# expect: spill_loads=1 spill_stores=1 loads=0 stores=0 R1=1 R2=2 R4=1
        .target st120
main:   MAKE R1, 1
        MAKE R2, 2 ;;                   # g1
        MOVE R3, R1 ## copy
        ;;                              # g2
        XOR R1, R1, R2 ## swap
        ;;
        XOR R2, R1, R2 ## swap
        ;;
        XOR R1, R1, R2 ## swap
        ;;                              # g5
        SUBWA P15, P15, 1
        MOVE R4, R3 ## copy
        ;;                              # g6
        SDW @(P15 + 0), R1 ## spill_store
        ;;                              # g7
        LDW R5, @(P15 + 0) ## spill_load
        ;;                              # g8
        XOR R1, R1, R2 ## swap
        ;;
        XOR R2, R1, R2 ## swap
        ;;
        XOR R1, R1, R2 ## swap
        ;;                              # g11
        MOVE R6, R5 ## copy, swap
        ;;                              # g12
        ADDWA P15, P15, 1
        ADD R0, R5, R6 ;;               # g13
        RTS ;;                          # g14
