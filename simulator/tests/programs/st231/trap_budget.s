# An endless loop stopped by the cycle budget (options: max_cycles=1000). Each iteration is
# one taken goto: 2 cycles.
# options: max_cycles=1000
# expect: trap="cycle budget exhausted" trap_fn=spin trap_cycle=1000
.target st231
main:
    call spin ;;
spin:
    goto spin ;;
