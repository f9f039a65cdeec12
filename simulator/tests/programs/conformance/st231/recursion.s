# Conformance (isa.md §A6 ABI, §A4 timing; README "Counters"): recursive sum(n) = n + sum(n-1),
# sum(0) = 0, called with n = 3. Argument and result in $r16, return address in $r63 (saved
# on the stack by every activation), callee-saved $r1 saved/restored, $r12 = SP moved by 16.
# Per-function figures: recursion is counted once in `inclusive`.
#
# sum, entered at e (the caller's call issued at e-2, r63 ready e-1):
#   S0  cmpeq b0 = r16 == 0; sp -= 16          e      b0 ready e+1
#   S1  stw 8[sp] = r63                        e+1
#   S2  stw 4[sp] = r1; mov r1 = r16           e+2
#   S3  br b0, base: b0 ready + 2 = e+3, no stall
#   n > 0 (not taken):
#   S4  r16 = r16 - 1                          e+4
#   S5  call sum                               e+5, taken: callee entered at e+7
#   ... the callee returns; we resume at R = e+7 + D(n-1)
#   S6  r16 = r16 + r1                         R
#   S7  ldw r63 = 8[sp]                        R+1    r63 ready R+4
#   S8  ldw r1 = 4[sp]                         R+2    (ready R+5; the caller resumes at R+7)
#   S9  sp += 16                               R+3
#   S10 return: r63 ready R+4, + 1 = R+5: stall 1; taken -> caller resumes at R+7
#   so D(n) = 7 + D(n-1) + 7
#   n = 0 (br taken at e+3 -> e+5):
#   B0  ldw r1 = 4[sp]                         e+5    (ready e+8 <= caller's S6 at e+9)
#   B1  sp += 16; mov r16 = 0                  e+6
#   B2  return (r63 ready e-1)                 e+7, taken -> e+9: D(0) = 9
#   D(1) = 23, D(2) = 37, D(3) = 51.
# main:
#   M0  sp -= 16; mov r16 = 3                  t=0
#   M1  stw 8[sp] = r63                        t=1
#   M2  call sum                               t=2, taken: sum(3) entered at 4
#   M3  ldw r63 = 8[sp]                        t=4+51 = 55, ready 58
#   M4  syscall 2 (prints 6)                   t=56
#   M5  sp += 16                               t=57
#   M6  return: needs 58 + 1 = 59, stall 1     t=59, taken -> 61
# Per activation: sum(n>0) 11 bundles, 13 ops, 1 stall, 2 taken (call, return), 2 loads,
#   2 stores; sum(0) 7 bundles, 10 ops, 0 stalls, 2 taken (br, return), 1 load, 2 stores;
#   main 7 bundles, 8 ops, 1 stall, 2 taken, 1 load, 1 store.
# bundles = 7 + 33 + 7 = 47; stalls = 1 + 3 = 4; taken = 2 + 6 + 2 = 10; cycles = 61.
# ops = 8 + 39 + 10 = 57; loads = 1 + 6 + 1 = 8; stores = 1 + 6 + 2 = 9.
# sum: 4 calls; inclusive = exclusive = 55 - 4 = 51 cycles, 40 bundles, 49 ops, 3 stalls,
#   8 taken (the call bubble goes to the caller, the return bubble to the callee).
# main: exclusive 61 - 51 = 10 cycles, 7 bundles, 8 ops; inclusive 61.
# expect: exit=6 output="6" cycles=61 bundles=47 stall_operand=4 taken_branches=10 ops=57
# expect: loads=8 stores=9 nops=0
# expect: fn.sum.calls=4 fn.sum.incl.cycles=51 fn.sum.excl.cycles=51 fn.sum.excl.bundles=40
# expect: fn.sum.excl.ops=49 fn.sum.excl.stall_operand=3 fn.sum.excl.taken_branches=8
# expect: fn.sum.incl.ops=49 fn.sum.excl.loads=7 fn.sum.excl.stores=8
# expect: fn.main.calls=1 fn.main.excl.cycles=10 fn.main.incl.cycles=61 fn.main.excl.bundles=7
# expect: fn.main.excl.ops=8 fn.main.incl.ops=57 fn.main.excl.taken_branches=2 fn.main.incl.taken_branches=10
.target st231
.text
.global main
.type main, @function
main:
    add $r12 = $r12, -16
    mov $r16 = 3 ;;
    stw 8[$r12] = $r63 ;;
    call sum ;;
    ldw $r63 = 8[$r12] ;;
    syscall 2 ;;
    add $r12 = $r12, 16 ;;
    return $r63 ;;

.type sum, @function
sum:
    cmpeq $b0 = $r16, 0
    add $r12 = $r12, -16 ;;
    stw 8[$r12] = $r63 ;;
    stw 4[$r12] = $r1
    mov $r1 = $r16 ;;
    br $b0, base ;;
    add $r16 = $r16, -1 ;;
    call sum ;;
    add $r16 = $r16, $r1 ;;
    ldw $r63 = 8[$r12] ;;
    ldw $r1 = 4[$r12] ;;
    add $r12 = $r12, 16 ;;
    return $r63 ;;
base:
    ldw $r1 = 4[$r12] ;;
    add $r12 = $r12, 16
    mov $r16 = 0 ;;
    return $r63 ;;
