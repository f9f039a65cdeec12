# Conformance (README: --mem-size; the stack pointer starts 16 bytes below the top of
# memory on ST231): with 64 KiB, SP = 0x10000 - 16 = 65520; the word at SP+12 is the last
# one; SP+16 = 0x10000 is out of range.
#   M0 0x1000 mov r16 = r12            t=0
#   M1 0x1004 syscall 2 "65520"        t=1
#   M2 0x1008 stw 12[r12] = r12        t=2
#   M3 0x100c ldw r16 = 12[r12]        t=3, ready 6
#   M4 0x1010 syscall 2 "65520"        t=6 (stall 2)
#   M5 0x1014 stw 16[r12] = r0         t=7: bad address 0x00010000
# options: mem_size=65536
# expect: output="6552065520" trap="bad address 0x00010000" trap_pc=0x1014 trap_fn=main trap_cycle=7 exit=-1
.target st231
.text
main:
    mov $r16 = $r12 ;;
    syscall 2 ;;
    stw 12[$r12] = $r12 ;;
    ldw $r16 = 12[$r12] ;;
    syscall 2 ;;
    stw 16[$r12] = $r0 ;;
    return $r63 ;;
