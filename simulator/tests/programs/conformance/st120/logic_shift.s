# Conformance (isa.md §B6 "DU logic/shift"; README: logic acts on 40 bits, ANDN/ORN invert
# their second operand, SHR/SHRU shift 40 bits, SHRW/SHRUW 32 bits, shift amounts are the low
# 8 bits, amounts past the width give 0 or the sign): results stored as words with
# SDW @(P7 !+ 1) (post-increment by one word; the base has latency 1: no stalls).
#   R1 = 0x0F0F, R2 = 0x00FF, R3 = -1 (all 40 bits), R4 = shift amount
#   out[0]  AND  0x0F0F & 0x00FF = 0x000F            = 15
#   out[1]  OR   = 0x0FFF                            = 4095
#   out[2]  XOR  = 0x0FF0                            = 4080
#   out[3]  ANDN R1 & ~R2 = 0x0F00                   = 3840
#   out[4]  ORN  R2 | ~R3 = 0x00FF | 0               = 255
#   out[5]  NAND ~0x000F                             = 0xFFFFFFF0
#   out[6]  NOR  ~0x0FFF                             = 0xFFFFF000
#   out[7]  XNOR ~0x0FF0                             = 0xFFFFF00F
#   out[8]  SHL -1 by 32 (past the width)            = 0
#   out[9]  SHR -1 by 32 (40-bit arithmetic)         = -1 = 0xFFFFFFFF
#   out[10] SHRU (2^40-1) by 39                      = 1
#   out[11] SHRU -1 by 40 (past the width)           = 0
#   out[12] SHR  -1 by 40 (sign)                     = 0xFFFFFFFF
#   out[13] SHL R1 by 255                            = 0
#   out[14] SHL R1 by 256 (low 8 bits = 0: no shift) = 3855
#   out[15] SHRW -1 by 31 (32-bit arithmetic)        = 0xFFFFFFFF
#   out[16] SHRUW -1 by 31                           = 1
#   out[17] SHLU -1 by 31 = 0x80000000 (zext: R13 = 2147483648)
#   R14 = SHL -1 by 31 = 0x80000000 sext = -2147483648
# Timing: every group has 2 operations, all latency 1 (MAKE/logic/shift DU 1, MAKEA/MOREA AU 1,
# post-modified base 1): no stalls. Groups g1..g24 + RTS = 25, ops 49, stores 18,
# cycles 25 + 3 = 28; P7 = out + 72.
# expect: exit=0 cycles=28 bundles=25 ops=49 stall_operand=0 stores=18 loads=0 taken_branches=1
# expect: mem.out+0=15 mem.out+4=4095 mem.out+8=4080 mem.out+12=3840 mem.out+16=255
# expect: mem.out+20=0xFFFFFFF0 mem.out+24=0xFFFFF000 mem.out+28=0xFFFFF00F mem.out+32=0
# expect: mem.out+36=0xFFFFFFFF mem.out+40=1 mem.out+44=0 mem.out+48=0xFFFFFFFF mem.out+52=0
# expect: mem.out+56=3855 mem.out+60=0xFFFFFFFF mem.out+64=1 mem.out+68=0x80000000
# expect: R13=2147483648 R14=-2147483648 R6=1 P7=out+72
        .target st120
        .data
out:    .space 80
        .text
main:   MAKEA P7, %hi(out)
        MAKE R1, 0x0F0F ;;              # g1
        MOREA P7, %lo(out)
        MAKE R2, 0x00FF ;;              # g2
        MAKE R3, -1
        MAKE R4, 32 ;;                  # g3
        AND R6, R1, R2
        OR R7, R1, R2 ;;                # g4
        SDW @(P7 !+ 1), R6
        XOR R8, R1, R2 ;;               # g5
        SDW @(P7 !+ 1), R7
        ANDN R9, R1, R2 ;;              # g6
        SDW @(P7 !+ 1), R8
        ORN R10, R2, R3 ;;              # g7
        SDW @(P7 !+ 1), R9
        NAND R11, R1, R2 ;;             # g8
        SDW @(P7 !+ 1), R10
        NOR R12, R1, R2 ;;              # g9
        SDW @(P7 !+ 1), R11
        XNOR R13, R1, R2 ;;             # g10
        SDW @(P7 !+ 1), R12
        SHL R14, R3, R4 ;;              # g11
        SDW @(P7 !+ 1), R13
        SHR R15, R3, R4 ;;              # g12
        SDW @(P7 !+ 1), R14
        MAKE R4, 39 ;;                  # g13
        SDW @(P7 !+ 1), R15
        SHRU R6, R3, R4 ;;              # g14
        SDW @(P7 !+ 1), R6
        MAKE R4, 40 ;;                  # g15
        SHRU R7, R3, R4
        SHR R8, R3, R4 ;;               # g16
        SDW @(P7 !+ 1), R7
        MAKE R4, 255 ;;                 # g17
        SDW @(P7 !+ 1), R8
        SHL R9, R1, R4 ;;               # g18
        SDW @(P7 !+ 1), R9
        MAKE R4, 256 ;;                 # g19
        SHL R10, R1, R4
        SHRW R11, R3, 31 ;;             # g20
        SDW @(P7 !+ 1), R10
        SHRUW R12, R3, 31 ;;            # g21
        SDW @(P7 !+ 1), R11
        SHLU R13, R3, 31 ;;             # g22
        SDW @(P7 !+ 1), R12
        SHL R14, R3, 31 ;;              # g23
        SDW @(P7 !+ 1), R13
        MAKE R0, 0 ;;                   # g24
        RTS ;;                          # g25
