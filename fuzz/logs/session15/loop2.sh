#!/bin/bash
# Session 15 campaign, part 2 (after the Boissinot fix): alternately 25 tiny programs of the
# road-2 heuristic/post-RA set (continuing from seed 8300800) and 50 tiny programs through
# Bo_val_virt and Bo_val_virt/dc (seeds 7,000,100.., the range of the campaign that found the bug).
B=/tmp/ssalab-s15b
for i in $(seq 0 199); do
  seed=$((8300800 + i * 25))
  nice -n 10 $B fuzz run --count 25 --seed $seed -j 1 --size tiny \
    --configs hack+recolor,pereira,pereira-noswap,BASE_phi,BM_phi,DDG_phi,BASE,BM,DDG --regs full,8,4 --quick \
    --save /tmp/fz15/save > /tmp/fz15/cheap-$seed.log 2>&1
  echo "cheap $seed exit $? $(date +%T)" >> /tmp/fz15/progress.txt
  bseed=$((7000100 + i * 50))
  nice -n 10 $B fuzz run --count 50 --seed $bseed -j 1 --size tiny \
    --configs Bo_val_virt,Bo_val_virt/dc --regs full,8 --quick \
    --save /tmp/fz15/save > /tmp/fz15/bo-$bseed.log 2>&1
  echo "bo $bseed exit $? $(date +%T)" >> /tmp/fz15/progress.txt
done
