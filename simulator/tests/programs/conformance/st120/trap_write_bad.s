# Conformance: TRAP 4 (write(P0, R0)) with P0 = 0 traps at the TRAP; nothing is printed.
#   g1 0x1000 MAKEA P0, 0; MAKE R0, 4   g2 0x1008 TRAP 4 -> bad address 0x00000000
# g1 issues at 0; TRAP reads P0 and R0 (latency 1, ready 1) and issues at 1: trap at cycle 1.
# expect: trap="bad address 0x00000000" trap_pc=0x1008 trap_fn=main trap_cycle=1 exit=-1 output=""
        .target st120
main:   MAKEA P0, 0
        MAKE R0, 4 ;;
        TRAP 4 ;;
        RTS ;;
