# Conformance (isa.md §A2: all syllables of a bundle read their sources before any write;
# §A1: $r0 reads 0, writes ignored): a 4-register rotation in one bundle, a write to $r0,
# a br whose own bundle overwrites its $b (the branch sees the old value), and a return
# whose own bundle overwrites $r63 (it returns through the old value).
#   B0 r1..r4 = 1, 2, 3, 4                           t=0
#   B1 r1 = r2; r2 = r3; r3 = r4; r4 = r1 -> 2 3 4 1  t=1
#   B2 r0 = r1 + 5 (ignored); cmpeq b0 = 1; r60 = r63 t=2, b0 ready 3
#   B3 r5 = r0 + r4 = 0 + 1 = 1                      t=3
#   B4 br b0, L1 (old b0 = 1); cmpne b0 = 0: needs 3 + 2 = 5    t=5 (stall 1), taken -> 7
#   L1 brf b0, L2: b0 = 0 written at 5 (ready 6), needs 8       t=8 (stall 1), taken -> 10
#   print r1..r5 (20 bundles)                        t=10..29
#   F  return $r63; mov $r63 = $r0 (return reads the old $r63 = the halt address)  t=30 -> 32
# bundles 5 + 1 + 20 + 1 = 27, stalls 2, taken 3, cycles 32; ops 4+4+3+1+2+1+20+2 = 37;
# exit = r16 = 10 (the last printed newline).
# expect: exit=10 output="2\n3\n4\n1\n1\n" cycles=32 bundles=27 stall_operand=2 taken_branches=3 ops=37
.target st231
.text
main:
    mov $r1 = 1
    mov $r2 = 2
    mov $r3 = 3
    mov $r4 = 4 ;;
    mov $r1 = $r2
    mov $r2 = $r3
    mov $r3 = $r4
    mov $r4 = $r1 ;;
    add $r0 = $r1, 5
    cmpeq $b0 = $r0, $r0
    mov $r60 = $r63 ;;
    add $r5 = $r0, $r4 ;;
    br $b0, L1
    cmpne $b0 = $r0, $r0 ;;
    mov $r16 = 91 ;;
    return $r63 ;;
L1:
    brf $b0, L2 ;;
    mov $r16 = 92 ;;
    return $r63 ;;
L2:
    mov $r16 = $r1 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r2 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r3 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r4 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    mov $r16 = $r5 ;;
    syscall 2 ;;
    mov $r16 = 10 ;;
    syscall 3 ;;
    return $r63
    mov $r63 = $r0 ;;
