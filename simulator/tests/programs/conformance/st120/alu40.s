# Conformance (isa.md §B1 40-bit data registers, §B4 "40-bit data" ASSUMPTIONs as the README
# states them): 32-bit-typed operations (ADD, SUB, NEG, SHL, SHRW) sign-extend bit 31 into
# the guard bits, ..U operations (ADDU, SUBU, NEGU, SHLU, SHRUW) zero-extend, SHRU shifts
# all 40 bits, MAC wraps modulo 2^40, CLAMPW saturates to 32 bits, EXTB sign-extends a byte.
#   g1  MAKE R1, 0x7FFF; MAKE R5, 0                          t=0
#   g2  MORE R1, 0xFFFF (R1 = 0x7FFFFFFF); MAKE R6, -1       t=1
#   g3  ADD R2 = R1 + 1 = 0x80000000 -> sext = -2147483648;
#       ADDU R3 = R1 + 1 -> zext = 2147483648                t=2
#   g4  SUBU R4 = 0 - 1 -> zext(0xFFFFFFFF) = 4294967295;
#       NEG R7 = -R2 = +2^31 -> low 32 bits 0x80000000 -> sext = -2147483648   t=3
#   g5  NEGU R8 = -(-1) = 1; SUB R9 = R2 - 1 = 0x7FFFFFFF -> 2147483647        t=4
#   g6  SHL R10 = R1 << 1 = 0xFFFFFFFE -> sext = -2; SHLU R11 -> 4294967294    t=5
#   g7  SHRU R12 = (2^40 - 1) >> 1 = 2^39 - 1 = 549755813887;
#       SHRW R13 = R3 as 32 bits (0x80000000) >> 1 arithmetic = 0xC0000000 = -1073741824   t=6
#   g8  MAKE R14, 1; SHRUW R15 = 0xFFFFFFFF >> 28 = 15       t=7
#   g9  MAUULL R0 = R12 + 1*1 = 2^39 -> wraps modulo 2^40: -2^39 = -549755813888   t=8, ready 10
#   g10 CLAMPW R14 = clamp(2^31) = 2147483647; EXTB R5 = sext(0xFF) = -1           t=9
#   g11 RTS                                                  t=10 -> 11 + 3 bubbles = 14
# groups 11, ops 8*2 + 1 + 2 + 1 = 20, no stalls, 1 taken; exit = low 32 bits of R0 = 0.
# expect: exit=0 cycles=14 bundles=11 ops=20 stall_operand=0 taken_branches=1
# expect: R0=-549755813888 R1=2147483647 R2=-2147483648 R3=2147483648 R4=4294967295
# expect: R5=-1 R6=-1 R7=-2147483648 R8=1 R9=2147483647 R10=-2 R11=4294967294
# expect: R12=549755813887 R13=-1073741824 R14=2147483647 R15=15
        .target st120
main:   MAKE R1, 0x7FFF
        MAKE R5, 0 ;;
        MORE R1, 0xFFFF
        MAKE R6, -1 ;;
        ADD R2, R1, 1
        ADDU R3, R1, 1 ;;
        SUBU R4, R5, 1
        NEG R7, R2 ;;
        NEGU R8, R6
        SUB R9, R2, 1 ;;
        SHL R10, R1, 1
        SHLU R11, R1, 1 ;;
        SHRU R12, R6, 1
        SHRW R13, R3, 1 ;;
        MAKE R14, 1
        SHRUW R15, R6, 28 ;;
        MAUULL R0, R12, R14, R14 ;;
        CLAMPW R14, R3
        EXTB R5, R1 ;;
        RTS ;;
