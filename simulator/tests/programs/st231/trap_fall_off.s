# Running past the last bundle of the code traps.
# expect: trap="jump to 0x00001004 outside the code" trap_pc=0x1004
.target st231
main:
    nop ;;
