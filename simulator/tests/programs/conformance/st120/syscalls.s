# Conformance (README: TRAP n is the system call, alone in its group: 1 exit(R0),
# 2 print_int(R0), 3 print_char(R0), 4 write(P0, R0)): print_int of INT_MIN built with
# MAKE/MORE, print_char, write of 3 and 0 bytes, print_int of a 40-bit value whose guard bits
# disagree with bit 31 (R0 = +2^31 after ADDU: a C int is 32 bits, so "-2147483648"), and
# exit(300) from a called function (code after it never runs).
#   g1  MAKE R0, 0x8000 (-32768); MAKEA P0, %hi(msg)    t=0
#   g2  MORE R0, 0 -> -32768 << 16 = INT_MIN; MOREA P0   t=1
#   g3  TRAP 2 "-2147483648"                             t=2
#   g4  MAKE R0, 65; g5 TRAP 3 "A"                       t=3, 4
#   g6  MAKE R0, 3;  g7 TRAP 4 "hi\n"                    t=5, 6
#   g8  MAKE R0, 0;  g9 TRAP 4 ""                        t=7, 8
#   g10 MAKE R1, 0x7FFF; g11 MORE R1, 0xFFFF; g12 ADDU R0 = R1 + 1 = +2^31 (40 bits)  t=9..11
#   g13 TRAP 2 "-2147483648"                             t=12
#   g14 CALL quit                                        t=13 -> 17
#   quit: q1 MAKE R0, 300                                t=17
#         q2 TRAP 1: exit(300)                           t=18 -> the run ends: 19 cycles
# groups 16, ops 16 + 2 = 18, taken 1; quit: 2 cycles, main: 17 exclusive, 19 inclusive.
# expect: exit=300 output="-2147483648Ahi\n-2147483648" cycles=19 bundles=16 ops=18 taken_branches=1
# expect: fn.quit.calls=1 fn.quit.excl.cycles=2 fn.main.excl.cycles=17 fn.main.incl.cycles=19
        .target st120
        .data
msg:    .ascii "hi\n"
        .text
main:   MAKE R0, 0x8000
        MAKEA P0, %hi(msg) ;;
        MORE R0, 0
        MOREA P0, %lo(msg) ;;
        TRAP 2 ;;
        MAKE R0, 65 ;;
        TRAP 3 ;;
        MAKE R0, 3 ;;
        TRAP 4 ;;
        MAKE R0, 0 ;;
        TRAP 4 ;;
        MAKE R1, 0x7FFF ;;
        MORE R1, 0xFFFF ;;
        ADDU R0, R1, 1 ;;
        TRAP 2 ;;
        CALL quit ;;
        MAKE R0, 7 ;;
        RTS ;;
quit:   MAKE R0, 300 ;;
        TRAP 1 ;;
        MAKE R0, 5 ;;
        RTS ;;
