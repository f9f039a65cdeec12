# A word store at SP + 2 is misaligned (SP starts 8-byte aligned at the top of memory).
# expect: trap="misaligned 4-byte access" trap_pc=0x1000 trap_fn=main trap_cycle=0
.target st231
main:
    stw -6[$r12] = $r0 ;;
    return $r63 ;;
