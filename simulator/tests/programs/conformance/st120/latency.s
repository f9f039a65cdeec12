# Conformance (isa.md §B3 as the README's ASSUMPTIONs: AU 1, DU 1, MP/MAC 2, load into R 1,
# load into P 6, COPYA 5, COPYD 1, compare -> guard 1, BOOL 2): each producer directly
# followed by its consumer, across the AU/DU/guard files. A group issues when its sources
# are ready; stall = cycles waited. d = words 0, 100, 0, &d.
#   g1  MAKEA P0, %hi(d); MAKE R1, 3                      t=0
#   g2  MOREA P0, %lo(d) (AU->AU, tied); MAKE R2, 4       t=1
#   g3  MPSSLL R3 = 12; ADDWA P1 = P0 + 1 word            t=2, R3 ready 4
#   g4  SDW @(P0 + 2), R3 (MP->store value: stall 1); LDW R4, @(P1 + 0) = 100 (AU->base 1)  t=4
#   g5  ADD R5 = R4 + R3 = 112 (load->DU 1); MASSLL R6 = R3 + 3*4 = 24   t=5, R6 ready 7
#   g6  MASSLL R7 = R6 + 3*3 = 33 (MAC->MAC accumulator: stall 1)       t=7, ready 9
#   g7  GTW G1 = 33 > 30 = 1 (MAC->compare: stall 1)      t=9
#   g8  G1? ADD R8 = R5 + 1 = 113 (compare->guard 1)      t=10
#   g9  LAW P2, @(P0 + 3) = d                             t=11, ready 17
#   g10 ADDWA P3 = P2 + 1 word (LAW->AU op: stall 5)      t=17
#   g11 LAW P4, @(P0 + 3) = d                             t=18, ready 24
#   g12 COPYD R9 = P4 (LAW->COPYD: stall 5)               t=24
#   g13 COPYA P5 = R9 (COPYD->DU read 1)                  t=25, ready 30
#   g14 LDW R10, @(P5 + 2) = 12 (COPYA->base: stall 4)    t=30
#   g15 COPYA P6 = R10                                    t=31, ready 36
#   g16 ADDBA P7 = P6 + 1 = 13 (COPYA->AU op: stall 4)    t=36
#   g17 BOOL R11 = G1 = 1; MPSSLL R12 = 9                 t=37, both ready 39
#   g18 ADD R13 = R11 + R12 = 10 (BOOL/MP->DU: stall 1)   t=39
#   g19 EQW G2 = (R13 == 10) = 1                          t=40
#   g20 G2! GOTO bad: not taken (compare->branch guard 1) t=41
#   g21 MPSSLL R14 = 16                                   t=42, ready 44
#   g22 COPYA P8 = R14 (MP->COPYA: stall 1)               t=44
#   g23 ADD R0 = R13 + R8 = 123                           t=45
#   g24 RTS                                               t=46 -> 47 + 3 = 50
# groups 24, stalls 1+1+1+5+5+4+4+1+1 = 23, cycles 24 + 23 + 3 = 50; ops 10 + 11 + 2 + 7 = 30;
# loads 4 (g4, g9, g11, g14); stores 1.
# expect: exit=123 cycles=50 bundles=24 stall_operand=23 ops=30 loads=4 stores=1 taken_branches=1
# expect: R3=12 R4=100 R5=112 R6=24 R7=33 G1=1 R8=113 P2=d P3=d+4 R9=d P5=d R10=12 P6=12 P7=13
# expect: R11=1 R12=9 R13=10 G2=1 R14=16 P8=16 mem.d+8=12
        .target st120
        .data
d:      .word 0, 100, 0, d
        .text
main:   MAKEA P0, %hi(d)
        MAKE R1, 3 ;;                   # g1
        MOREA P0, %lo(d)
        MAKE R2, 4 ;;                   # g2
        MPSSLL R3, R1, R2
        ADDWA P1, P0, 1 ;;              # g3
        SDW @(P0 + 2), R3
        LDW R4, @(P1 + 0) ;;            # g4
        ADD R5, R4, R3
        MASSLL R6, R3, R1, R2 ;;        # g5
        MASSLL R7, R6, R1, R1 ;;        # g6
        GTW G1, R7, 30 ;;               # g7
        G1? ADD R8, R5, 1 ;;            # g8
        LAW P2, @(P0 + 3) ;;            # g9
        ADDWA P3, P2, 1 ;;              # g10
        LAW P4, @(P0 + 3) ;;            # g11
        COPYD R9, P4 ;;                 # g12
        COPYA P5, R9 ;;                 # g13
        LDW R10, @(P5 + 2) ;;           # g14
        COPYA P6, R10 ;;                # g15
        ADDBA P7, P6, 1 ;;              # g16
        BOOL R11, G1
        MPSSLL R12, R1, R1 ;;           # g17
        ADD R13, R11, R12 ;;            # g18
        EQW G2, R13, 10 ;;              # g19
        G2! GOTO bad ;;                 # g20
        MPSSLL R14, R2, R2 ;;           # g21
        COPYA P8, R14 ;;                # g22
        ADD R0, R13, R8 ;;              # g23
        RTS ;;                          # g24
bad:    MAKE R0, 99 ;;
        RTS ;;
