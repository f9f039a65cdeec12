#!/bin/bash
# Session 17 campaign (issue 19). 200 rounds of 25 tiny programs through hack+ilp (seeds from
# 8,200,200; the session-16 run of this range lost its logs with its machine), then rounds of 10
# through hack-ilpspill+ilp (seeds from 8,400,000) until stopped.
# Full, 8 and 4 registers; -O2 and -O0; both targets (--quick matrix).
B=/tmp/ssalab-s17
for i in $(seq 0 199); do
  seed=$((8200200 + i * 25))
  nice -n 10 $B fuzz run --count 25 --seed $seed -j 1 --size tiny \
    --configs hack+ilp --regs full,8,4 --quick \
    --save /tmp/fz17/save > /tmp/fz17/ilp-$seed.log 2>&1
  echo "ilp $seed exit $? $(date +%T)" >> /tmp/fz17/progress.txt
done
for i in $(seq 0 999); do
  seed=$((8400000 + i * 10))
  nice -n 10 $B fuzz run --count 10 --seed $seed -j 1 --size tiny \
    --configs hack-ilpspill+ilp --regs full,8,4 --quick \
    --save /tmp/fz17/save > /tmp/fz17/spill-$seed.log 2>&1
  echo "spill $seed exit $? $(date +%T)" >> /tmp/fz17/progress.txt
done
