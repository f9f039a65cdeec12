# Post-increment loop: copy and sum 4 words with LDW @(P0 !+ 1) / SDW @(P1 !+ 1): the
# offset counts elements (1 word = 4 bytes), the access uses the old base. The updated base
# and the loaded value have latency 1, so nothing stalls. Then a negative offset and a
# post-decrement with a halfword access (scaled by 2).
#
#   g1..g3 set P0 = src, P1 = dst, R1 = 4, R0 = 0
#   loop (4 times): g4 LDW; g5 ADD + SDW; g6 SUB; g7 EQW; g8 GOTO (taken 3 times)
#   g9 LDW R3, @(P1 - 1): P1 = dst + 16 -> dst + 12 holds 4
#      LDH R4, @(P0 !- 2): P0 = src + 16 = dst, halfword = 1; then P0 -= 2*2
#   g10 R0 += R3; g11 R0 += R4; g12 TRAP 2 prints R0; g13 RTS
# R0 = 1+2+3+4 + 4 + 1 = 15; P0 = dst - 4.
# bundles = 3 + 4*5 + 5 = 28; ops = 6 + 4*6 + 2 + 1 + 1 + 1 + 1 = 36; loads = 4 + 2 = 6;
# stores = 4; taken = 3 + 1 = 4; cycles = 28 + 3*4 = 40.
#
# expect: exit = 15
# expect: output = "15"
# expect: cycles = 40
# expect: stall_operand = 0
# expect: bundles = 28
# expect: ops = 36
# expect: loads = 6
# expect: stores = 4
# expect: taken_branches = 4
# expect: P0 = dst - 4
# expect: mem.dst + 8 = 3
        .target st120
        .data
src:    .word 1, 2, 3, 4
dst:    .space 16
        .text
main:   MAKEA P0, %hi(src)
        MAKEA P1, %hi(dst) ;;             # g1
        MOREA P0, %lo(src)
        MOREA P1, %lo(dst) ;;             # g2
        MAKE R1, 4
        MAKE R0, 0 ;;                     # g3
loop:   LDW R2, @(P0 !+ 1) ;;             # g4
        ADD R0, R0, R2
        SDW @(P1 !+ 1), R2 ;;             # g5
        SUB R1, R1, 1 ;;                  # g6
        EQW G0, R1, 0 ;;                  # g7
        G0! GOTO loop ;;                  # g8
        LDW R3, @(P1 - 1)
        LDH R4, @(P0 !- 2) ;;             # g9
        ADD R0, R0, R3 ;;                 # g10
        ADD R0, R0, R4 ;;                 # g11
        TRAP 2 ;;                         # g12
        RTS ;;                            # g13
