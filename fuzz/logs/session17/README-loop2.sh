#!/bin/bash
# Session 18 continuation of the session-17 campaign (issue 19): rounds of 10 tiny programs
# through hack-ilpspill+ilp from seed 8,400,360 (where session 17 stopped) until stopped.
# Full, 8 and 4 registers; -O2 and -O0; both targets (--quick matrix).
B=/tmp/ssalab-s17
for i in $(seq 36 999); do
  seed=$((8400000 + i * 10))
  nice -n 10 $B fuzz run --count 10 --seed $seed -j 1 --size tiny \
    --configs hack-ilpspill+ilp --regs full,8,4 --quick \
    --save /tmp/fz17/save > /tmp/fz17/spill-$seed.log 2>&1
  echo "spill $seed exit $? $(date +%T)" >> /tmp/fz17/progress.txt
done
