# Conformance (README "Counters": ops include nops; the assembler may add one nop to put a
# multiply in an odd lane, isa.md §A2): explicit nops and an assembler-inserted one.
#   B0 0x1000 mov r1 = 3; nop (2 syllables)            t=0
#   B1 0x1008 mul32 r2 = r1*r1: lane 0x1008 is even, so the assembler emits nop (0x1008) +
#      mul32 (0x100c)                                  t=1, r2 ready 4
#   B2 0x1010 nop                                      t=2
#   B3 0x1014 add r16 = r2 + 1 = 10: stall 1           t=4
#   B4 0x1018 return                                   t=5 -> 7
# bundles 5, ops 2 + 2 + 1 + 1 + 1 = 7, nops 3, stalls 1, cycles 5 + 1 + 1 = 7, 7 code words.
# expect: exit=10 cycles=7 bundles=5 ops=7 nops=3 stall_operand=1 taken_branches=1 code_words=7
.target st231
.text
main:
    mov $r1 = 3
    nop ;;
    mul32 $r2 = $r1, $r1 ;;
    nop ;;
    add $r16 = $r2, 1 ;;
    return $r63 ;;
