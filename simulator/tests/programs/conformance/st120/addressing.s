# Conformance (isa.md §B4 addressing, §B3 latencies as the README's ASSUMPTIONs): post-
# increment / post-decrement by immediates and registers, scaled by the access size (bytes 1,
# halves 2, words 4), negative offsets, sub-word sign/zero extension, LAW (load into P,
# latency 6), COPYD (1), COPYA (5), SAW/SAH/LAH (LAH zero-extends), MAKEA sign-extends s16.
# Data (little-endian): arr = halves 1, -2, 3, -4 (bytes 01 00 FE FF 03 00 FC FF), then bytes
# 80 7F 01 FE; words = 10, 20, 30, 40 at arr+12; ptr = &words; out = 8 bytes.
#   g1  MAKEA P0, P1 (hi)                                    t=0
#   g2  MOREA P0 = arr, P1 = words                           t=1
#   g3  LDH R1, @(P0 !+ 1) = 1, P0 = arr+2; MAKEA P2, 3      t=2
#   g4  LDH R2, @(P0 !+ 2) = -2, P0 = arr+6; ADD R0 = R1 + 0 (load -> use 1: no stall)  t=3
#   g5  LDUH R3, @(P0 !- 1) = 0xFFFC = 65532, P0 = arr+4; ADD R4 = 1 + -2 = -1          t=4
#   g6  LDH R5, @(P0 - 1) = [arr+2] = -2; LDUB R6, @(P0 + 4) = [arr+8] = 128 (2 loads)   t=5
#   g7  LDB R7, @(P0 + 4) = -128; LDB R8, @(P0 + 5) = 127   t=6
#   g8  LDW R9, @(P1 + P2) = [words + 3*4] = 40             t=7
#   g9  LDW R10, @(P1 !+ P2) = 10, P1 = words + 12          t=8
#   g10 LDW R11, @(P1 - 1) = [words + 8] = 30               t=9
#   g11 LDB R12, @(P0 !- P2) = [arr+4] = 3, P0 = arr+1      t=10
#   g12 LDUB R13, @(P0 + 10) = [arr+11] = 0xFE = 254        t=11
#   g13 MAKEA P4, P7 (hi)                                   t=12
#   g14 MOREA P4 = ptr, P7 = out                            t=13
#   g15 LAW P5, @(P4 + 0) = words                           t=14, ready 20
#   g16 LDW R14, @(P5 + 1) = 20                             t=20 (stall 5)
#   g17 COPYD R15, P5 = words                               t=21
#   g18 COPYA P6, R15                                       t=22, ready 27
#   g19 LDW R0, @(P6 + 2) = 30                              t=27 (stall 4)
#   g20 SAW @(P7 !+ 1), P6: out[0] = words; MAKEA P9, -32767 (0xFFFF8001)   t=28
#   g21 SAH @(P7 !+ 1), P9: out+4 = 01 80, P7 = out+6       t=29
#   g22 LAH P8, @(P7 - 1) = [out+4] zero-extended = 32769   t=30, ready 36
#   g23 COPYD R4, P8 = 32769                                t=36 (stall 5)
#   g24 RTS                                                 t=37 -> 38 + 3 = 41
# groups 24, stalls 14, cycles 24 + 14 + 3 = 41; ops 14 + 5 + 4 + 5 + 2 + 4 = 34;
# loads 16 (g6 and g7 hold two each); stores 2; exit = R0 = 30.
# expect: exit=30 cycles=41 bundles=24 ops=34 stall_operand=14 loads=16 stores=2 taken_branches=1
# expect: R1=1 R2=-2 R3=65532 R4=32769 R5=-2 R6=128 R7=-128 R8=127 R9=40 R10=10 R11=30
# expect: R12=3 R13=254 R14=20 R15=words R0=30
# expect: P0=arr+1 P1=words+12 P5=words P6=words P7=out+6 P8=32769 P9=4294934529
# expect: mem.out+0=words mem.out+4=32769
        .target st120
        .data
arr:    .half 1, -2, 3, -4
        .byte 0x80, 0x7F, 0x01, 0xFE
words:  .word 10, 20, 30, 40
ptr:    .word words
out:    .space 8
        .text
main:   MAKEA P0, %hi(arr)
        MAKEA P1, %hi(words) ;;         # g1
        MOREA P0, %lo(arr)
        MOREA P1, %lo(words) ;;         # g2
        LDH R1, @(P0 !+ 1)
        MAKEA P2, 3 ;;                  # g3
        LDH R2, @(P0 !+ 2)
        ADD R0, R1, 0 ;;                # g4
        LDUH R3, @(P0 !- 1)
        ADD R4, R1, R2 ;;               # g5
        LDH R5, @(P0 - 1)
        LDUB R6, @(P0 + 4) ;;           # g6
        LDB R7, @(P0 + 4)
        LDB R8, @(P0 + 5) ;;            # g7
        LDW R9, @(P1 + P2) ;;           # g8
        LDW R10, @(P1 !+ P2) ;;         # g9
        LDW R11, @(P1 - 1) ;;           # g10
        LDB R12, @(P0 !- P2) ;;         # g11
        LDUB R13, @(P0 + 10) ;;         # g12
        MAKEA P4, %hi(ptr)
        MAKEA P7, %hi(out) ;;           # g13
        MOREA P4, %lo(ptr)
        MOREA P7, %lo(out) ;;           # g14
        LAW P5, @(P4 + 0) ;;            # g15
        LDW R14, @(P5 + 1) ;;           # g16
        COPYD R15, P5 ;;                # g17
        COPYA P6, R15 ;;                # g18
        LDW R0, @(P6 + 2) ;;            # g19
        SAW @(P7 !+ 1), P6
        MAKEA P9, -32767 ;;             # g20
        SAH @(P7 !+ 1), P9 ;;           # g21
        LAH P8, @(P7 - 1) ;;            # g22
        COPYD R4, P8 ;;                 # g23
        RTS ;;                          # g24
