# Sum of a 4-word array: a loop with a load-use stall and a compare -> branch stall.
#
# Timing (isa.md A4: load 3, ALU 1, compare -> br 3 = 1 + 2 extra; taken branch +1 bubble):
#   B0 (mov x3)                t=0                              -> next cycle 1
#   iteration i, starting at s (s = 1, 9, 17, 25):
#     B1 ldw/add/add           t=s      r4 ready s+3            -> s+1
#     B2 add r3+=r4; cmpne b0  t=s+3    (stall 2 on r4)  b0 ready s+4 -> s+4
#     B3 br b0                 t=s+6    (stall 2: needs b0 ready + 2) taken -> s+8
#   the 4th iteration's branch (t=31) is not taken            -> 32
#   B4 mov r16 = r3            t=32                             -> 33
#   B5 return                  t=33 (r63 never written: ready 0 + 1) taken -> 35
# cycles 35 = bundles 15 + stalls 16 + taken 4 (3 loop branches + return)
# ops: 3 + 4*(3+2+1) + 1 + 1 = 29; loads 4; result 1+2+3+4 = 10
# expect: exit=10 cycles=35 bundles=15 stall_operand=16 taken_branches=4 ops=29 nops=0 loads=4 stores=0
# expect: fn:main.calls=1 fn:main.excl.cycles=35 fn:main.incl.cycles=35
.target st231
.text
main:
    mov $r1 = arr
    mov $r2 = 4
    mov $r3 = 0 ;;
loop:
    ldw $r4 = 0[$r1]
    add $r1 = $r1, 4
    add $r2 = $r2, -1 ;;
    add $r3 = $r3, $r4
    cmpne $b0 = $r2, 0 ;;
    br $b0, loop ;;
    mov $r16 = $r3 ;;
    return $r63 ;;
.data
arr: .word 1, 2, 3, 4
