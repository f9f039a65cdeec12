# Conformance (README memory map: 16 MiB by default, addresses 0x1000..0xffffff mapped): the
# last word of memory can be written and read back, the first byte past it traps.
#   M0 0x1000 mov r1 = 0x01000000 (imml)  t=0
#   M1 0x1008 stw -4[r1] = r1             t=1 (0xfffffc: fine)
#   M2 0x100c ldw r2 = -4[r1]             t=2 (fine)
#   M3 0x1010 ldbu r3 = 0[r1]             t=3: bad address 0x01000000 -> trap
# expect: trap="bad address 0x01000000" trap_pc=0x1010 trap_fn=main trap_cycle=3 exit=-1
.target st231
.text
main:
    mov $r1 = 0x01000000 ;;
    stw -4[$r1] = $r1 ;;
    ldw $r2 = -4[$r1] ;;
    ldbu $r3 = 0[$r1] ;;
    return $r63 ;;
