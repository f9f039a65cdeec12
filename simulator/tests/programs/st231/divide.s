# Unsigned division 1000 / 7 by 32 non-restoring `divs` steps (isa.md A5: no divide
# instruction; the runtime routine is built from divs/addcg). Quotient bits enter q from the
# right; the dividend's top bit is the carry-in of each step (compare into $b0).
#   B0a mov r1=0; mov r2=1000 (long imm); mov r3=7      t=0 -> 1
#   B0b mov r4=32                                       t=1 -> 2
#   iteration starting at s = 2 + 6i (i = 0..31):
#     L1 cmplt b0 = q<0 (top bit); r4 -= 1            t=s
#     L2 divs r1,b1 = b0,r1,r3; q <<= 1; cmpne b2=r4,0  t=s+1   b2 ready s+2
#     L3 cmpge r5 = r1 >= 0                            t=s+2
#     L4 br b2 (first syllable); q |= r5               t=s+4 (stall 1: b2 ready + 2), taken -> s+6
#   last iteration (s=188): L4 at 192 not taken -> 193
#   F1 cmplt b3 = r1 < 0                               t=193
#   F2 r6 = r1 + 7                                     t=194
#   F3 slct r1 = b3 ? r6 : r1 (final correction)       t=195
#   F4 mul32 r7 = q * 100; mov r8 = r1                 t=196, r7 ready 199
#   F5 r16 = r7 + r8                                   t=199 (stall 2)
#   F6 return                                          t=200 taken -> 202
# cycles 202 = bundles 136 + stalls 34 + taken 32; ops 3 + 1 + 32*8 + 7 = 267
# result 142 * 100 + 6 = 14206
# expect: exit=14206 cycles=202 bundles=136 stall_operand=34 taken_branches=32 ops=267 nops=0
.target st231
.text
main:
    mov $r1 = 0
    mov $r2 = 1000
    mov $r3 = 7 ;;
    mov $r4 = 32 ;;
loop:
    cmplt $b0 = $r2, $r0
    add $r4 = $r4, -1 ;;
    divs $r1, $b1 = $b0, $r1, $r3
    add $r2 = $r2, $r2
    cmpne $b2 = $r4, 0 ;;
    cmpge $r5 = $r1, $r0 ;;
    or $r2 = $r2, $r5
    br $b2, loop ;;
    cmplt $b3 = $r1, $r0 ;;
    add $r6 = $r1, $r3 ;;
    slct $r1 = $b3, $r6, $r1 ;;
    mul32 $r7 = $r2, 100
    mov $r8 = $r1 ;;
    add $r16 = $r7, $r8 ;;
    return $r63 ;;
