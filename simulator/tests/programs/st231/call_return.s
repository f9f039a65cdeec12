# main calls square(6); the link register is saved and restored through the stack (marked as
# spill code). Per-function attribution through call and return.
# Layout: B0 0x1000 (2 syllables), B1 0x1008, B2 0x100c (call), B3 0x1010 (2), B4 0x1018,
# B5 0x101c, square: S0 0x1020 = nop + mul32 (the multiply needs an odd lane, 0x1024), S1 0x1028.
#   B0 sp -= 16; mov r16 = 6          t=0 -> 1
#   B1 stw 8[sp] = r63  (spill)       t=1 -> 2
#   B2 call square                    t=2, r63 = 0x1010 ready 3, taken -> 4
#   S0 nop; mul32 r16 = r16*r16       t=4, r16 ready 7 -> 5
#   S1 return (r63 ready 3, +1 -> 4)  t=5 taken -> 7
#   B3 ldw r63 = 8[sp] (spill); add r16 += 1   t=7 (r16 ready 7), r63 ready 10 -> 8
#   B4 sp += 16                       t=8 -> 9
#   B5 return (r63 ready 10, +1)      t=11 (stall 2) taken -> 13
# cycles 13 = bundles 8 + stalls 2 + taken 3; ops 2+1+1+2+1+2+1+1 = 11, nops 1
# square: cycles 4..7 = 3 (2 bundles, 3 ops, 1 taken); main: 13 - 3 = 10 exclusive, 13 inclusive
# expect: exit=37 cycles=13 bundles=8 stall_operand=2 taken_branches=3 ops=11 nops=1
# expect: loads=0 stores=0 spill_loads=1 spill_stores=1
# expect: fn:main.calls=1 fn:main.excl.cycles=10 fn:main.incl.cycles=13
# expect: fn:square.calls=1 fn:square.excl.cycles=3 fn:square.incl.cycles=3 fn:square.excl.bundles=2 fn:square.excl.ops=3
.target st231
.text
main:
    add $r12 = $r12, -16
    mov $r16 = 6 ;;
    stw 8[$r12] = $r63 ## spill_store
    ;;
    call square ;;
    ldw $r63 = 8[$r12] ## spill_load
    add $r16 = $r16, 1 ;;
    add $r12 = $r12, 16 ;;
    return $r63 ;;
square:
    mul32 $r16 = $r16, $r16 ;;
    return $r63 ;;
