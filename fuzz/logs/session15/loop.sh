#!/bin/bash
# Session 15 campaign. Stage 1: 5,000 tiny programs (seeds 8,300,000..8,304,999) in chunks of 25
# through the road-2 heuristic and post-RA configurations (full, 8 and 4 registers; -O2 and -O0;
# both targets). Stage 2: the ILP configurations continue from seed 8,200,200.
B=/tmp/ssalab-s15
for i in $(seq 0 199); do
  seed=$((8300000 + i * 25))
  nice -n 10 $B fuzz run --count 25 --seed $seed -j 1 --size tiny \
    --configs hack+recolor,pereira,pereira-noswap,BASE_phi,BM_phi,DDG_phi,BASE,BM,DDG --regs full,8,4 --quick \
    --save /tmp/fz15/save > /tmp/fz15/cheap-$seed.log 2>&1
  echo "cheap $seed exit $? $(date +%T)" >> /tmp/fz15/progress.txt
done
for i in $(seq 0 199); do
  seed=$((8200200 + i * 25))
  nice -n 10 $B fuzz run --count 25 --seed $seed -j 1 --size tiny \
    --configs hack+ilp,hack-ilpspill+ilp --regs full,8,4 --quick \
    --save /tmp/fz15/save > /tmp/fz15/ilp-$seed.log 2>&1
  echo "ilp $seed exit $? $(date +%T)" >> /tmp/fz15/progress.txt
done
