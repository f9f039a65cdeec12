# Opcode coverage with hand-worked values (isa.md §B4/§B6 and the ASSUMPTIONs documented in
# isa/st120/semantics.rs): 40-bit values and guard bits, packed lanes, multiplies and MAC,
# compares and guard logic, sub-word loads and stores, scaled offsets, AU arithmetic,
# cross-file copies, an indirect call through P3 and a guarded return.
# Results are stored one word each at res[0], res[1], ... (post-increment store, +4 bytes
# each); values wider than 32 bits are checked in registers.
#
# expect: mem.res + 0 = 0xFFFFFFFF
# expect: mem.res + 4 = 0x0FFFFFFF
# expect: R8 = -2147483648
# expect: R9 = 2147483648
# expect: mem.res + 8 = 31
# expect: mem.res + 12 = 2147483647
# expect: mem.res + 16 = 0x80000000
# expect: R13 = 2147483648
# expect: R14 = -2147483648
# expect: mem.res + 20 = 32767
# expect: mem.res + 24 = 0xFFFFFFD2
# expect: G1 = 1
# expect: G2 = 0
# expect: G3 = 0
# expect: G4 = 0
# expect: G5 = 1
# expect: mem.res + 28 = 5
# expect: mem.res + 32 = 0xFFFFFF80
# expect: mem.res + 36 = 128
# expect: mem.res + 40 = 32640
# expect: mem.res + 44 = 511
# expect: mem.res + 48 = 287454020
# expect: mem.res + 52 = 0xFFFFFFFE
# expect: mem.res + 56 = 0xFF348034
# expect: P4 = bytes + 12
# expect: P5 = bytes + 8
# expect: mem.res + 60 = bytes
# expect: mem.res + 64 = 7
# expect: exit = 7
        .target st120
        .data
bytes:  .byte 0x80, 0x7F, 0xFF, 0x01
words:  .word 0x11223344, -2
res:    .space 128
        .text
main:   MOVEA P10, P11
        MAKEA P7, %hi(res) ;;
        MOREA P7, %lo(res)
        MAKE R1, -1 ;;
        # 40-bit data and guard bits.
        ADDU R2, R1, 0                 # zext32(-1) = 0x00_FFFF_FFFF: guard bits cleared
        ADD R3, R1, 0 ;;               # sext32(-1) = -1 (all 40 bits set)
        SHRU R4, R1, 4                 # 40-bit logical: (2^40 - 1) >> 4 = 2^36 - 1
        SHRUW R5, R1, 4 ;;             # 32-bit logical: 0x0FFF_FFFF
        SDW @(P7 !+ 1), R4 ;;          # res[0] = low word of 2^36 - 1 = 0xFFFFFFFF
        SDW @(P7 !+ 1), R5 ;;          # res[1] = 0x0FFFFFFF
        MAKE R6, 0x7FFF
        MAKE R7, 1 ;;
        MORE R6, 0xFFFF ;;             # R6 = 0x7FFF_FFFF (tied)
        ADD R8, R6, R7                 # 32-bit typed: sext32(0x8000_0000) = -2^31
        MASSLL R9, R6, R7, R7 ;;       # 40-bit MAC: 0x7FFF_FFFF + 1*1 = +2^31, no wrap
        LZCW R10, R7 ;;                # leading zeros of 1 = 31
        SDW @(P7 !+ 1), R10            # res[2] = 31
        CLAMPW R11, R9 ;;              # +2^31 saturates to 0x7FFF_FFFF
        SDW @(P7 !+ 1), R11 ;;         # res[3] = 2147483647
        # Packed 16-bit lanes (wrap, ASSUMPTION).
        MAKEP R12, 1 ;;                # 0x0001_0001
        ADDUP R13, R6, R12             # lanes 0x7FFF+1 = 0x8000, 0xFFFF+1 = 0x0000: +2^31
        ADDP R14, R6, R12 ;;           # same lanes, bit 31 sign-extended: -2^31
        SDW @(P7 !+ 1), R13 ;;         # res[4] = 0x80000000
        # Multiplies: MPUUHH = hi(R6) unsigned * hi(R12) unsigned = 0x7FFF * 1.
        MPUUHH R0, R6, R12 ;;
        MAKE R15, -6
        MAKE R5, 7 ;;
        SDW @(P7 !+ 1), R0             # res[5] = 32767
        MSSSLL R10, R15, R5, R5 ;;     # R10 = -6 - 7*7 = -55
        MASULL R11, R10, R15, R7 ;;    # R10 + sext(lo R15 = -6) * zext(lo R7 = 1) = -61
        ADD R11, R11, 15 ;;            # -46
        SDW @(P7 !+ 1), R11 ;;         # res[6] = -46 = 0xFFFFFFD2
        # Compares into guards and guard logic.
        EQW G1, R3, R1                 # -1 == -1 on the low 32 bits: 1
        EQE G2, R2, R1 ;;              # 0x00_FFFF_FFFF != -1 on 40 bits: 0
        EQW G3, R2, R1 ;;              # the low 32 bits are equal: 1
        NOTG G3 ;;                     # 0 (tied)
        ANDG G4, G1, G3
        XORG G5, G1, G2 ;;             # G4 = 1 & 0 = 0, G5 = 1 ^ 0 = 1
        BOOL R0, G5 ;;                 # 1
        G4? MAKE R0, 99                # guarded off; both write R0: buffered group
        G5? ADD R0, R0, 4 ;;           # reads R0 = 1 before any write: 5
        SDW @(P7 !+ 1), R0 ;;          # res[7] = 5
        # Sub-word loads and stores, offsets scaled by the access size.
        MAKEA P0, %hi(bytes) ;;
        MOREA P0, %lo(bytes)
        MAKEA P1, 2 ;;
        LDB R1, @(P0 + 0)              # 0x80 -> -128
        LDUB R2, @(P0 + 0) ;;          # 128
        SDW @(P7 !+ 1), R1 ;;          # res[8] = 0xFFFFFF80
        SDW @(P7 !+ 1), R2 ;;          # res[9] = 128
        LDH R3, @(P0 + 0)              # bytes 80 7F, little-endian: 0x7F80 = 32640
        LDUH R4, @(P0 + 1) ;;          # halfword 1 = bytes FF 01: 0x01FF = 511
        SDW @(P7 !+ 1), R3 ;;          # res[10] = 32640
        SDW @(P7 !+ 1), R4 ;;          # res[11] = 511
        LDW R3, @(P0 + 1)              # word 1 = words[0] = 0x11223344
        LDW R4, @(P0 + P1) ;;          # P1 = 2 words: words[1] = -2
        SDW @(P7 !+ 1), R3 ;;          # res[12] = 287454020
        SDW @(P7 !+ 1), R4 ;;          # res[13] = 0xFFFFFFFE
        MAKE R5, 0x34 ;;
        SDH @(P7 - 0), R5 ;;           # res[14] bytes 0..1 = 34 00
        SDB @(P7 + 1), R1 ;;           # byte 1 = 0x80 (low byte of -128)
        SDH @(P7 + 1), R4 ;;           # halfword 1 = bytes 2..3 = FE FF
        SDB @(P7 + 2), R5 ;;           # byte 2 = 34: bytes 34 80 34 FF = 0xFF348034
        ADDWA P7, P7, 1 ;;             # next result word
        # AU arithmetic with scaled offsets and cross-file copies.
        ADDWA P4, P0, 3 ;;             # bytes + 3*4
        SUBHA P5, P4, P1 ;;            # bytes + 12 - 2*2 = bytes + 8
        COPYD R6, P0 ;;                # the address of bytes
        SDW @(P7 !+ 1), R6 ;;          # res[15] = bytes
        COPYA P3, R6 ;;                # DU -> AU (latency 5, ASSUMPTION)
        # Indirect call through P3 to `seven`, with a guarded-off return inside.
        MAKEA P3, %hi(seven) ;;
        MOREA P3, %lo(seven) ;;
        LINK ;;
        SDW @(P7 !+ 1), R0 ;;          # res[16] = 7
        MOVEA P11, P10 ;;
        RTS ;;
seven:  CLRG G6 ;;
        G6? RTS ;;                     # G6 is false: not taken
        MAKE R0, 7 ;;
        RTS ;;
