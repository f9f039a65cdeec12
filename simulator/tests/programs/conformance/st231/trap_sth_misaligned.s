# Conformance: a halfword store at an odd address traps; byte accesses at odd addresses do not.
# Code: M0 0x1000 (8: imml), M1 0x1008, M2 0x100c, M3 0x1010, M4 0x1014 -> data at 0x1020.
#   M0 mov r1 = b (0x1020)        t=0
#   M1 stb 1[r1] = r1             t=1 (fine)
#   M2 ldbu r2 = 3[r1]            t=2 (fine)
#   M3 sth 1[r1] = r1             t=3: misaligned 2-byte access at 0x1021
# expect: trap="misaligned 2-byte access at 0x00001021" trap_pc=0x1010 trap_fn=main trap_cycle=3
.target st231
.data
b: .word 0
.text
main:
    mov $r1 = b ;;
    stb 1[$r1] = $r1 ;;
    ldbu $r2 = 3[$r1] ;;
    sth 1[$r1] = $r1 ;;
    return $r63 ;;
