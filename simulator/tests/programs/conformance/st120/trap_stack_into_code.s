# Conformance (README memory map: P15 starts at the top of memory, code read-only): unbounded
# recursion pushing P11 one word at a time in 64 KiB runs the stack into the code. Activation
# k stores at 0xFFFC - 4k; the code is 0x1000 SUBWA, 0x1004 SAW, 0x1008 CALL; the first store
# into code is at 0x1008: k = (0xFFFC - 0x1008) / 4 = 15357. Timing (session 6): each
# activation issues SUBWA (t), SAW (t+1: P15 ready, AU latency 1), CALL (t+2) and 3 bubbles,
# so activation k starts at 6k and its SAW issues at 6k + 1: the trap at 6 * 15357 + 1 = 92143.
# options: mem_size=65536
# expect: trap="store into code at 0x00001008" trap_pc=0x1004 trap_fn=main trap_cycle=92143 exit=-1
        .target st120
main:   SUBWA P15, P15, 1 ;;
        SAW @(P15 + 0), P11 ;;
        CALL main ;;
