# An indirect jump to an address that is not the start of a bundle.
# expect: trap="jump to 0x00001002 outside the code"
.target st231
main:
    mov $r63 = 0x1002 ;;
    return $r63 ;;
