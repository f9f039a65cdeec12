#!/bin/bash
# chunks of 100 tiny programs through hack (full, 8, 4 registers; -O2 and -O0; both targets)
for i in $(seq 0 59); do
  seed=$((7900000 + i * 100))
  nice -n 10 /tmp/ssalab-fuzz2 fuzz run --count 100 --seed $seed -j 1 --size tiny --configs hack --regs full,8,4 --quick --save /tmp/fuzz-hack3/save > /tmp/fuzz-hack3/chunk-$seed.log 2>&1
  echo "chunk $seed exit $?" >> /tmp/fuzz-hack3/progress.txt
done
