# Conformance (README: every operation of a group reads before any writes; two writes of one
# register in a group: slot 1 wins; isa.md §B4 select as two guarded definitions): a swap in
# one group, a double write whose slot 1 is guarded off (slot 0's value stands) and one whose
# slot 1 is on (slot 1 wins), slot 1 reading what slot 0 writes (old value), and a branch in
# slot 1 whose guard is written by slot 0 (the branch sees the old guard).
#   g1  MAKE R1, 1; MAKE R2, 2             t=0
#   g2  MOVE R1, R2; MOVE R2, R1 -> 2, 1   t=1
#   g3  CLRG G3; MAKE R3, 5                t=2
#   g4  MAKE R4, 5; G3? MAKE R4, 9 (off)   t=3 -> R4 = 5
#   g5  SETG G3; MAKE R5, 0                t=4
#   g6  MAKE R5, 5; G3? MAKE R5, 9         t=5 -> R5 = 9
#   g7  ADD R6 = R1 + 10 = 12; ADD R7 = old R6 + 1 = 1   t=6
#   g8  CLRG G4; MAKE R8, 0                t=7
#   g9  EQW G4 = (R7 == 1) = 1; G4! GOTO skip (old G4 = 0: taken)   t=8 -> 12
#   g10 G4! GOTO bad (G4 = 1: not taken)   t=12
#   g11 ADD R0 = R7 + R5 = 10              t=13
#   g12 RTS                                t=14 -> 18
# groups 12, ops 9*2 + 3 = 21, taken 2, no stalls, cycles 12 + 6 = 18.
# expect: exit=10 cycles=18 bundles=12 ops=21 stall_operand=0 taken_branches=2
# expect: R1=2 R2=1 R4=5 R5=9 R6=12 R7=1 G4=1
        .target st120
main:   MAKE R1, 1
        MAKE R2, 2 ;;                   # g1
        MOVE R1, R2
        MOVE R2, R1 ;;                  # g2
        CLRG G3
        MAKE R3, 5 ;;                   # g3
        MAKE R4, 5
        G3? MAKE R4, 9 ;;               # g4
        SETG G3
        MAKE R5, 0 ;;                   # g5
        MAKE R5, 5
        G3? MAKE R5, 9 ;;               # g6
        ADD R6, R1, 10
        ADD R7, R6, 1 ;;                # g7
        CLRG G4
        MAKE R8, 0 ;;                   # g8
        EQW G4, R7, 1
        G4! GOTO skip ;;                # g9
        MAKE R0, 91 ;;
        RTS ;;
skip:   G4! GOTO bad ;;                 # g10
        ADD R0, R7, R5 ;;               # g11
        RTS ;;                          # g12
bad:    MAKE R0, 93 ;;
        RTS ;;
