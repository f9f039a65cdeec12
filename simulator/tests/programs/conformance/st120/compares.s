# Conformance (isa.md §B4 compares, §B6; README: ..E compares are 40-bit, ..A unsigned):
# word compares signed (..W) and unsigned (..UW), register and u8 forms, 40-bit (..E) vs
# 32-bit on a value whose guard bits differ, AU compares; EXT*, LZCW, CLAMPW both ways.
#   R1 = -1, R2 = 1, R3 = INT_MIN, R4 = INT_MAX, R5 = ADDU INT_MAX + 1 = +2^31 (40-bit)
#   G1 EQW -1,1 = 0   G2 NEW = 1   G3 LTW = 1   G4 LEW = 1   G5 GTW = 0   G6 GEW = 0
#   G7 LTUW 0xFFFFFFFF < 1 = 0   G8 GEUW ..., 1 = 1   G9 GTUW = 1   G10 LEUW ..., 255 = 0
#   G11 GTE +2^31 > -2^31 (40-bit) = 1   G12 GTW (low 32 bits both 0x80000000) = 0
#   G13 EQW same = 1   G14 EQE = 0
#   BOOL R6..R11 = G1..G6 = 0 1 1 1 0 0 (latency 2; read only much later)
#   P1 = MAKEA 0x8000 (-> 0xFFFF8000), MOREA 0 -> 0x80000000; P2 = 1
#   G1 LTA P1 < P2 unsigned = 0   G2 GTA = 1   G3 EQA P2, 1 = 1   G4 NEA P1, P1 = 0
#   G5 GEA P2, 2 = 0   G6 LEA P2, P2 = 1
#   out[0] EXTUB -1 = 255   out[1] EXTH 0x7FFFFFFF = sext(0xFFFF) = -1 = 0xFFFFFFFF
#   out[2] EXTUH INT_MAX = 65535   R15 = EXTUW -1 = 4294967295
#   out[3] EXTW +2^31 = -2^31 = 0x80000000
#   out[4] LZCW 0 = 32 (not stated in isa.md; the natural count)   out[5] LZCW INT_MIN = 0
#   R12 = MSSSLL INT_MIN - 1*1 = -2147483649 (40-bit, latency 2)
#   out[6] CLAMPW R12 = -2^31 = 0x80000000 (stall 1)   out[7] CLAMPW 1 = 1
# groups 30, stalls 1 (g27), cycles 30 + 1 + 3 = 34; ops 26*2 + 1 + 2 + 2 + 1 = 58; stores 8.
# expect: exit=7 cycles=34 bundles=30 ops=58 stall_operand=1 stores=8
# expect: G1=0 G2=1 G3=1 G4=0 G5=0 G6=1 G7=0 G8=1 G9=1 G10=0 G11=1 G12=0 G13=1 G14=0
# expect: R6=0 R7=1 R8=1 R9=1 R10=0 R11=0 R15=4294967295 P1=2147483648 R12=-2147483649
# expect: mem.out+0=255 mem.out+4=0xFFFFFFFF mem.out+8=65535 mem.out+12=0x80000000
# expect: mem.out+16=32 mem.out+20=0 mem.out+24=0x80000000 mem.out+28=1
        .target st120
        .data
out:    .space 32
        .text
main:   MAKE R1, -1
        MAKE R2, 1 ;;                   # g1
        MAKE R3, 0x8000
        MAKE R4, 0x7FFF ;;              # g2
        MORE R3, 0
        MORE R4, 0xFFFF ;;              # g3
        ADDU R5, R4, 1
        MAKEA P1, 0x8000 ;;             # g4
        EQW G1, R1, R2
        NEW G2, R1, R2 ;;               # g5
        LTW G3, R1, R2
        LEW G4, R1, R2 ;;               # g6
        GTW G5, R1, R2
        GEW G6, R1, R2 ;;               # g7
        LTUW G7, R1, R2
        GEUW G8, R1, 1 ;;               # g8
        GTUW G9, R1, R2
        LEUW G10, R1, 255 ;;            # g9
        GTE G11, R5, R3
        GTW G12, R5, R3 ;;              # g10
        EQW G13, R5, R3
        EQE G14, R5, R3 ;;              # g11
        BOOL R6, G1
        BOOL R7, G2 ;;                  # g12
        BOOL R8, G3
        BOOL R9, G4 ;;                  # g13
        BOOL R10, G5
        BOOL R11, G6 ;;                 # g14
        MOREA P1, 0
        MAKEA P2, 1 ;;                  # g15
        LTA G1, P1, P2
        GTA G2, P1, P2 ;;               # g16
        EQA G3, P2, 1
        NEA G4, P1, P1 ;;               # g17
        GEA G5, P2, 2
        LEA G6, P2, P2 ;;               # g18
        MAKEA P7, %hi(out)
        EXTUB R12, R1 ;;                # g19
        MOREA P7, %lo(out)
        EXTH R13, R4 ;;                 # g20
        SDW @(P7 !+ 1), R12
        EXTUH R14, R4 ;;                # g21
        SDW @(P7 !+ 1), R13
        EXTUW R15, R1 ;;                # g22
        SDW @(P7 !+ 1), R14
        EXTW R12, R5 ;;                 # g23
        SDW @(P7 !+ 1), R12
        LZCW R13, R6 ;;                 # g24
        SDW @(P7 !+ 1), R13
        LZCW R14, R3 ;;                 # g25
        SDW @(P7 !+ 1), R14
        MSSSLL R12, R3, R2, R2 ;;       # g26
        CLAMPW R13, R12 ;;              # g27
        SDW @(P7 !+ 1), R13
        CLAMPW R14, R2 ;;               # g28
        SDW @(P7 !+ 1), R14
        MAKE R0, 7 ;;                   # g29
        RTS ;;                          # g30
