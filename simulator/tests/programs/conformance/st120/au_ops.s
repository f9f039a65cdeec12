# Conformance (isa.md §B6 AU ops; README ASSUMPTIONs: COPYD sign-extends from bit 31,
# register ADDxA/SUBxA offsets are scaled by the access size, MAKEA sign-extends its s16):
#   g1 MAKEA P0, 0x8000 (-> 0xFFFF8000); MAKEA P2, 3       t=0
#   g2 MOREA P0, 0 -> 0x80000000; MAKEA P3, 0x100 (256)    t=1
#   g3 COPYD R1 = sext(0x80000000) = -2147483648; ADDWA P4 = 256 + 3*4 = 268   t=2
#   g4 SUBHA P5 = 256 - 3*2 = 250; ADDBA P6 = 256 + 3 = 259                    t=3
#   g5 SUBWA P7 = 256 - 2*4 = 248; MOVEA P8 = P3 = 256                          t=4
#   g6 ADD R0 = R1 + 0 (COPYD latency 1)                   t=5
#   g7 RTS                                                 t=6 -> 10
# groups 7, ops 12, no stalls, cycles 10; exit = low 32 bits of R0 = -2147483648.
# expect: exit=-2147483648 cycles=10 bundles=7 ops=12 stall_operand=0
# expect: R1=-2147483648 P0=2147483648 P4=268 P5=250 P6=259 P7=248 P8=256
        .target st120
main:   MAKEA P0, 0x8000
        MAKEA P2, 3 ;;
        MOREA P0, 0
        MAKEA P3, 0x100 ;;
        COPYD R1, P0
        ADDWA P4, P3, P2 ;;
        SUBHA P5, P3, P2
        ADDBA P6, P3, P2 ;;
        SUBWA P7, P3, 2
        MOVEA P8, P3 ;;
        ADD R0, R1, 0 ;;
        RTS ;;
