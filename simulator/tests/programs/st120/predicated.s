# A predicated sequence: compares into guards, a select written as two guarded copies of
# the same register in one group (a psi), a guarded NEG, guard logic, a guarded-off load
# from address 0 that must not trap, and a guarded-off ADD sharing a group with a live one.
# Issued operations are counted whether or not their guard is true (ASSUMPTION): the two
# `## copy` MOVEs count as 2 moves, the guarded-off load as 1 load.
#
#   g1 R1 = -7, R2 = 3
#   g2 G1 = (-7 > 3) = 0, G2 = (-7 <= 3) = 1
#   g3 G1? R3 = R1 (off), G2? R3 = R2 -> R3 = 3
#   g4 G3 = (R1 < 0) = 1; G1? LDW R5, @(P5 + 0) is off (P5 = 0 would trap)
#   g5 G3? R1 = -R1 = 7; G4 = G1 | G2 = 1
#   g6 G4? R0 = R1 + R3 = 10; G1? R0 = R1 + 100 (off)
#   g7 RTS
# No stalls; bundles 7, ops = 6*2 + 1 = 13, cycles = 7 + 3 = 10, moves 2, loads 1.
#
# expect: exit = 10
# expect: cycles = 10
# expect: bundles = 7
# expect: ops = 13
# expect: moves = 2
# expect: loads = 1
# expect: taken_branches = 1
# expect: R3 = 3
# expect: R5 = 0
# expect: G4 = 1
        .target st120
main:   MAKE R1, -7
        MAKE R2, 3 ;;                   # g1
        GTW G1, R1, R2
        LEW G2, R1, R2 ;;               # g2
        G1? MOVE R3, R1  ## copy
        G2? MOVE R3, R2  ## copy
        ;;                              # g3
        LTW G3, R1, 0
        G1? LDW R5, @(P5 + 0) ;;        # g4
        G3? NEG R1, R1
        ORG G4, G1, G2 ;;               # g5
        G4? ADD R0, R1, R3
        G1? ADD R0, R1, 100 ;;          # g6
        RTS ;;                          # g7
