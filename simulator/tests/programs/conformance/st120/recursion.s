# Conformance (isa.md §B5 ABI: int argument and result in R0, CALL writes P11, RTS returns
# through P11, callee-saved R4, SP = P15 growing down, non-leaf functions save P11; §B3
# latencies as the README's ASSUMPTIONs: MP 2, LAW (load into P) 6, 3 bubbles per taken
# GOTO/CALL/RTS): recursive fact(5) = 120, printed, with per-function figures (recursion
# counted once in inclusive).
# fact, entered at e:
#   f0 LEW G1 = n <= 1; SUBWA P15 -= 2 words           e
#   f1 SAW @(P15 + 1), P11                              e+1
#   f2 SDW @(P15 + 0), R4; MOVE R4, R0 (reads first)    e+2
#   f3 G1! GOTO rec (taken when n > 1)                  e+3
#   n <= 1: b0 MAKE R0, 1; LDW R4, @(P15 + 0)           e+4
#           b1 ADDWA P15 += 2 words                     e+5
#           b2 RTS (P11 written long ago)               e+6 -> e+10: D(1) = 10
#   n > 1 (taken -> e+7):
#   r0 SUB R0 = R0 - 1                                  e+7
#   r1 CALL fact                                        e+8 -> callee at e+12, back at R = e+12+D(n-1)
#   r2 MPSSLL R0 = R4 * R0                              R
#   r3 LAW P11, @(P15 + 1) (ready R+7); LDW R4, @(P15 + 0)   R+1
#   r4 ADDWA P15 += 2 words                             R+2
#   r5 RTS: P11 ready R+7 -> stall 4                    R+7 -> R+11
#   D(n) = 12 + D(n-1) + 11: D(2) = 33, D(3) = 56, D(4) = 79, D(5) = 102
# main:
#   m0 MOVEA P10, P11; MAKE R0, 5   t=0
#   m1 CALL fact                    t=1 -> 5; back at 5 + 102 = 107
#   m2 TRAP 2 "120"                 t=107
#   m3 MOVEA P11, P10               t=108
#   m4 RTS                          t=109 -> 113
# per activation: fact(n>1) 10 groups, 13 ops, 4 stalls, 3 taken, 2 loads, 2 stores;
# fact(1) 7 groups, 10 ops, 1 taken, 1 load, 2 stores; main 5 groups, 6 ops, 2 taken.
# groups 5 + 40 + 7 = 52; stalls 16; taken 2 + 12 + 1 = 15; cycles 52 + 16 + 45 = 113;
# ops 6 + 52 + 10 = 68; loads 9; stores 10. fact: 5 calls, 102 cycles inclusive = exclusive;
# main: 11 exclusive, 113 inclusive. R4 (callee-saved) is 0 again, P15 back at its start
# (README: the top of memory, 16 MiB = 16777216).
# expect: exit=120 output="120" cycles=113 bundles=52 stall_operand=16 taken_branches=15
# expect: ops=68 loads=9 stores=10 R4=0 P15=16777216
# expect: fn.fact.calls=5 fn.fact.incl.cycles=102 fn.fact.excl.cycles=102 fn.fact.excl.bundles=47
# expect: fn.fact.excl.stall_operand=16 fn.fact.excl.taken_branches=13 fn.main.excl.cycles=11
# expect: fn.main.incl.cycles=113 fn.main.excl.ops=6 fn.main.incl.ops=68
        .target st120
main:   MOVEA P10, P11
        MAKE R0, 5 ;;                   # m0
        CALL fact ;;                    # m1
        TRAP 2 ;;                       # m2
        MOVEA P11, P10 ;;               # m3
        RTS ;;                          # m4
fact:   LEW G1, R0, 1
        SUBWA P15, P15, 2 ;;            # f0
        SAW @(P15 + 1), P11 ;;          # f1
        SDW @(P15 + 0), R4
        MOVE R4, R0 ;;                  # f2
        G1! GOTO rec ;;                 # f3
        MAKE R0, 1
        LDW R4, @(P15 + 0) ;;           # b0
        ADDWA P15, P15, 2 ;;            # b1
        RTS ;;                          # b2
rec:    SUB R0, R0, 1 ;;                # r0
        CALL fact ;;                    # r1
        MPSSLL R0, R4, R0 ;;            # r2
        LAW P11, @(P15 + 1)
        LDW R4, @(P15 + 0) ;;           # r3
        ADDWA P15, P15, 2 ;;            # r4
        RTS ;;                          # r5
