# Conformance (isa.md §B4 full predication; README): every guard-logic operation, NOTG tied,
# BOOL (latency 2), guarded-off operations (still issued and counted), conditional GOTO and
# JUMP taken on FALSE, guarded CALL and RTS taken on TRUE, JUMP through P3, and a guarded-off
# operation whose operand is still pending: it interlocks anyway (README ASSUMPTION).
# Taken branch / call / return: 3 bubble cycles (§B3 ASSUMPTION).
#   g0  MOVEA P10, P11; MAKE R1, 5                          t=0
#   g1  MAKE R2, 7; MAKE R6, 0                              t=1
#   g2  LTW G1 = 5 < 7 = 1; GEW G2 = 0                      t=2
#   g3  ANDG G3 = 1 & 0 = 0; ORG G4 = 1                     t=3
#   g4  XORG G5 = 1; NANDG G6 = 1                           t=4
#   g5  NORG G7 = 0; ANDNG G8 = G1 & !G2 = 1                t=5
#   g6  ORNG G9 = G2 | !G1 = 0; MOVEG G10 = G1 = 1          t=6
#   g7  SETG G11; CLRG G12                                  t=7
#   g8  NOTG G11 -> 0; NOTG G12 -> 1                        t=8
#   g9  BOOL R3 = G4 = 1; BOOL R4 = G3 = 0                  t=9, ready 11
#   g10 ADD R5 = R3 + R4 = 1                                t=11 (stall 1)
#   g11 G3? MAKE R6, 99 (off); G4? MAKE R7, 42              t=12
#   g12 G2! GOTO L1: G2 = 0 -> taken                        t=13 -> 17
#   L1: g13 G1! GOTO bad: not taken                         t=17
#   g14 G4? CALL sub: taken, P11 = g15                      t=18 -> 22
#   sub: s1 G3? RTS: not taken                              t=22
#        s2 MAKE R8, 11; G1? RTS: taken                     t=23 -> 27
#   g15 G3? CALL bad: not taken                             t=27
#   g16 MAKEA P3, %hi(L2)                                   t=28
#   g17 MOREA P3, %lo(L2)                                   t=29
#   g18 G2! JUMP (through P3): taken                        t=30 -> 34
#   L2: g19 G1! JUMP: not taken                             t=34
#   g20 MPSSLL R9 = 5 * 7 = 35                              t=35, ready 37
#   g21 G3? ADD R10, R9, 1 (off, but R9 pending: stall 1)   t=37
#   g22 ADD R0 = R5 + R7 = 43; MOVEA P11, P10               t=38
#   g23 RTS                                                 t=39 -> 40 + 3 = 43
# groups: main 24, sub 2 = 26; stalls 2; taken 5 (GOTO, CALL, RTS, JUMP, RTS);
# cycles 26 + 2 + 15 = 43; ops: main 20 + 1 + 2 + 9 + 1 + 2 + 1 = 36, sub 3 -> 39.
# sub: 1 call, 5 cycles (2 groups + 3 bubbles of its RTS); main: 38 exclusive, 43 inclusive.
# expect: exit=43 cycles=43 bundles=26 ops=39 stall_operand=2 taken_branches=5
# expect: G1=1 G2=0 G3=0 G4=1 G5=1 G6=1 G7=0 G8=1 G9=0 G10=1 G11=0 G12=1
# expect: R3=1 R4=0 R5=1 R6=0 R7=42 R8=11 R9=35 R10=0
# expect: fn.sub.calls=1 fn.sub.excl.cycles=5 fn.sub.incl.cycles=5 fn.sub.excl.ops=3
# expect: fn.main.excl.cycles=38 fn.main.incl.cycles=43 fn.main.excl.taken_branches=4
        .target st120
main:   MOVEA P10, P11
        MAKE R1, 5 ;;                   # g0
        MAKE R2, 7
        MAKE R6, 0 ;;                   # g1
        LTW G1, R1, R2
        GEW G2, R1, R2 ;;               # g2
        ANDG G3, G1, G2
        ORG G4, G1, G2 ;;               # g3
        XORG G5, G1, G2
        NANDG G6, G1, G2 ;;             # g4
        NORG G7, G1, G2
        ANDNG G8, G1, G2 ;;             # g5
        ORNG G9, G2, G1
        MOVEG G10, G1 ;;                # g6
        SETG G11
        CLRG G12 ;;                     # g7
        NOTG G11
        NOTG G12 ;;                     # g8
        BOOL R3, G4
        BOOL R4, G3 ;;                  # g9
        ADD R5, R3, R4 ;;               # g10
        G3? MAKE R6, 99
        G4? MAKE R7, 42 ;;              # g11
        G2! GOTO L1 ;;                  # g12
        MAKE R0, 91 ;;
        RTS ;;
L1:     G1! GOTO bad ;;                 # g13
        G4? CALL sub ;;                 # g14
        G3? CALL bad ;;                 # g15
        MAKEA P3, %hi(L2) ;;            # g16
        MOREA P3, %lo(L2) ;;            # g17
        G2! JUMP ;;                     # g18
bad:    MAKE R0, 93 ;;
        RTS ;;
L2:     G1! JUMP ;;                     # g19
        MPSSLL R9, R1, R2 ;;            # g20
        G3? ADD R10, R9, 1 ;;           # g21
        ADD R0, R5, R7
        MOVEA P11, P10 ;;               # g22
        RTS ;;                          # g23
sub:    G3? RTS ;;                      # s1
        MAKE R8, 11
        G1? RTS ;;                      # s2
