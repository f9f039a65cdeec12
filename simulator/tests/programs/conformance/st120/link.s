# Conformance (isa.md §B5: LINK = indirect call through P3, writes P11; RTS through P11; a
# non-leaf function saves P11; §B4 guarded LINK; a guarded-off MAC is issued and counted but
# leaves its destination alone): main -LINK-> f -CALL-> g, per-function figures.
# f is reached only through LINK, so it is declared `.type f, @function`.
#   m0 MOVEA P10, P11; MAKEA P3, %hi(f)       t=0
#   m1 MOREA P3, %lo(f); MAKE R0, 1           t=1
#   m2 CLRG G1; MAKE R1, 3                    t=2
#   m3 LINK                                   t=3 -> f at 7
#   f0 MOVEA P9, P11; ADD R0 += 2             t=7
#   f1 CALL g                                 t=8 -> g at 12
#   g0 ADD R0 += 4; G1? MASSLL R7, R0, R1, R1 (off)   t=12
#   g1 RTS                                    t=13 -> 17
#   f2 MOVEA P11, P9; G1? LINK (off)          t=17
#   f3 RTS (P11 written at 17, latency 1: ready 18) t=18 -> 22
#   m4 MOVEA P11, P10                         t=22
#   m5 RTS                                    t=23 -> 27
# groups 6 + 4 + 2 = 12, taken 5 (LINK, CALL, 3 RTS), cycles 12 + 15 = 27, no stalls;
# ops main 9, f 6, g 3 = 18; R0 = 1 + 2 + 4 = 7, R7 = 0.
# g: 1 call, 5 cycles. f: 1 call, inclusive 22 - 7 = 15, exclusive 10. main: 12 / 27.
# expect: exit=7 cycles=27 bundles=12 ops=18 stall_operand=0 taken_branches=5 R7=0
# expect: fn.g.calls=1 fn.g.excl.cycles=5 fn.f.calls=1 fn.f.incl.cycles=15 fn.f.excl.cycles=10
# expect: fn.f.excl.ops=6 fn.f.incl.ops=9 fn.main.excl.cycles=12 fn.main.incl.cycles=27
        .target st120
        .text
main:   MOVEA P10, P11
        MAKEA P3, %hi(f) ;;             # m0
        MOREA P3, %lo(f)
        MAKE R0, 1 ;;                   # m1
        CLRG G1
        MAKE R1, 3 ;;                   # m2
        LINK ;;                         # m3
        MOVEA P11, P10 ;;               # m4
        RTS ;;                          # m5
        .type f, @function
f:      MOVEA P9, P11
        ADD R0, R0, 2 ;;                # f0
        CALL g ;;                       # f1
        MOVEA P11, P9
        G1? LINK ;;                     # f2
        RTS ;;                          # f3
g:      ADD R0, R0, 4
        G1? MASSLL R7, R0, R1, R1 ;;    # g0
        RTS ;;                          # g1
