# Conformance (README memory map: stack at the top of memory, code read-only, stores into
# code trap): unbounded recursion with 16-byte frames in 64 KiB of memory runs the stack down
# into the code. SP starts at 0x10000 - 16 = 0xFFF0; activation k (k = 0, 1, ...) stores
# its return address at 0xFFE0 - 16k. Code: 0x1000 add, 0x1004 stw, 0x1008 call (ends
# 0x100c; no data). The first store into code is at 0x1000: k = (0xFFE0 - 0x1000) / 16 = 3838.
# Each activation: add (t), stw (t+1), call (t+2, +1 bubble) = 4 cycles, from t = 4k
# (the call's $r63, latency 1, is ready when stw reads it); the faulting stw issues at
# 4*3838 + 1 = 15353. The call depth (3838) stays under the default limit.
# options: mem_size=65536
# expect: trap="store into code at 0x00001000" trap_pc=0x1004 trap_fn=main trap_cycle=15353 exit=-1
.target st231
.text
main:
    add $r12 = $r12, -16 ;;
    stw 0[$r12] = $r63 ;;
    call main ;;
