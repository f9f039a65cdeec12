# Conformance (README: ST231 budget stops are exact): 20 one-cycle bundles then return, a
# budget of 5 cycles: the bundle at 0x1014 would issue at cycle 5 -> trap there.
# options: max_cycles=5
# expect: trap="cycle budget exhausted" trap_pc=0x1014 trap_fn=main trap_cycle=5 exit=-1
.target st231
.text
main:
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    add $r16 = $r16, 1 ;;
    return $r63 ;;
