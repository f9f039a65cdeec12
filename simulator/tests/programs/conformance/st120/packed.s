# Conformance (isa.md §B4 packed 16-bit ops; README: lanes wrap, MAKEP replicates its
# constant, LDP loads like LDW): results stored as words (one store per group, README
# ASSUMPTION <= 1 store per group) and checked in memory.
#   R1 = 0x7FFF8000 (lanes hi 0x7FFF, lo 0x8000), R2 = 0x00018001 (hi 0x0001, lo 0x8001)
#   out[0] ADDP  hi 0x7FFF+1 = 0x8000, lo 0x8000+0x8001 = 0x1_0001 -> 0x0001: 0x80000001
#   out[1] ADDUP same lanes                                         0x80000001
#   out[2] SUBP  R1-R2: hi 0x7FFE, lo 0x8000-0x8001 = 0xFFFF:       0x7FFEFFFF
#   out[3] SUBUP R2-R1: hi 0x0001-0x7FFF = 0x8002, lo 0x0001:       0x80020001
#   out[4] ANDP 0x00018000   out[5] ORP 0x7FFF8001   out[6] XORP 0x7FFE0001
#   out[7] MAKEP 0xFFFF -> 0xFFFFFFFF     out[8] MOVEP R1 -> 0x7FFF8000
#   out[9] LDP src[1] = 0x9ABCDEF0, stored with SDP
#   registers (README: packed ADDP/SUBP sign-extend like 32-bit ops, ..UP zero-extend, as in
#   the existing opcodes program): R3 = -2147483647, R4 = 2147483649, R6 = 2147614721
# Timing: g1..g9 2 ops each, g10..g18 one store each, g19 store + MAKE, g20 RTS; every value
# is ready (latency 1, LDP into R 1) before its store: no stalls.
# groups 20, ops 18 + 9 + 2 + 1 = 30, loads 1, stores 10, cycles 20 + 3 = 23, exit 3.
# expect: exit=3 cycles=23 bundles=20 ops=30 stall_operand=0 loads=1 stores=10 taken_branches=1
# expect: mem.out+0=0x80000001 mem.out+4=0x80000001 mem.out+8=0x7FFEFFFF mem.out+12=0x80020001
# expect: mem.out+16=0x00018000 mem.out+20=0x7FFF8001 mem.out+24=0x7FFE0001 mem.out+28=0xFFFFFFFF
# expect: mem.out+32=0x7FFF8000 mem.out+36=0x9ABCDEF0
# expect: R3=-2147483647 R4=2147483649 R6=2147614721 R5=2147418111
        .target st120
        .data
src:    .word 0x12345678, 0x9ABCDEF0
out:    .space 48
        .text
main:   MAKEA P7, %hi(out)
        MAKE R1, 0x7FFF ;;              # g1
        MOREA P7, %lo(out)
        MORE R1, 0x8000 ;;              # g2
        MAKE R2, 1
        MAKEA P0, %hi(src) ;;           # g3
        MORE R2, 0x8001
        MOREA P0, %lo(src) ;;           # g4
        ADDP R3, R1, R2
        ADDUP R4, R1, R2 ;;             # g5
        SUBP R5, R1, R2
        SUBUP R6, R2, R1 ;;             # g6
        ANDP R7, R1, R2
        ORP R8, R1, R2 ;;               # g7
        XORP R9, R1, R2
        MAKEP R10, 0xFFFF ;;            # g8
        MOVEP R11, R1
        LDP R12, @(P0 + 1) ;;           # g9
        SDW @(P7 !+ 1), R3 ;;           # g10
        SDW @(P7 !+ 1), R4 ;;
        SDW @(P7 !+ 1), R5 ;;
        SDW @(P7 !+ 1), R6 ;;
        SDW @(P7 !+ 1), R7 ;;
        SDW @(P7 !+ 1), R8 ;;
        SDW @(P7 !+ 1), R9 ;;
        SDW @(P7 !+ 1), R10 ;;
        SDW @(P7 !+ 1), R11 ;;          # g18
        SDP @(P7 !+ 1), R12
        MAKE R0, 3 ;;                   # g19
        RTS ;;                          # g20
