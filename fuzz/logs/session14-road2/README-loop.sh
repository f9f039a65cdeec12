#!/bin/bash
# chunks of 25 tiny programs through hack+recolor, hack+ilp and hack-ilpspill+ilp
# (full, 8 and 4 registers; -O2 and -O0; both targets); one log per chunk, then copied here
for i in $(seq 0 199); do
  seed=$((8200000 + i * 25))
  nice -n 10 /tmp/ssalab-s14d fuzz run --count 25 --seed $seed -j 1 --size tiny \
    --configs hack+recolor,hack+ilp,hack-ilpspill+ilp --regs full,8,4 --quick \
    --save /tmp/fz14/save > /tmp/fz14/chunk-$seed.log 2>&1
  echo "chunk $seed exit $?" >> /tmp/fz14/progress.txt
done
