#!/bin/bash
# A long differential campaign (`ssalab fuzz run`, every configuration) in chunks, so that
# every finished chunk leaves its summary and the campaign can go on across sessions.
#
#   fuzz/differential-chunks.sh run BINARY FIRST_SEED NCHUNKS SIZE LOGDIR
#       chunks of SIZE seeds from FIRST_SEED, one worker (start one per core with disjoint
#       seed ranges); each chunk's summary goes to LOGDIR/<binary>-<first seed>.log (a
#       `.part` file while it runs; a finished log is never redone); stops before the next
#       chunk when LOGDIR/STOP exists. Runs at nice 19. Mismatches are saved (original and
#       reduced program) under LOGDIR/mismatches. Programs are `--size tiny` unless
#       FUZZ_SIZE=small|medium|large is set; other sizes get their own log names
#       (<binary>-<size>-<first seed>.log).
#   fuzz/differential-chunks.sh sum LOGDIR
#       totals over the finished chunk logs: programs, agreements, mismatches, discarded,
#       generator bugs, and the seconds the chunks ran (each chunk's own wall-clock time as
#       `ssalab fuzz run` reports it; one worker per chunk, so about its CPU time when the
#       worker had its core).
#
# The binary's host-compiler reference includes programs/include/ssalab.h from the checkout
# it was built in: keep that checkout while the campaign runs.
set -u
case "${1:-}" in
run)
  bin=$2; first=$3; n=$4; size=$5; logs=$6
  mkdir -p "$logs/mismatches"
  tag=$(basename "$bin")
  size_class=${FUZZ_SIZE:-tiny}
  [ "$size_class" = tiny ] || tag=$tag-$size_class
  for ((c = 0; c < n; c++)); do
    s=$((first + c * size))
    [ -e "$logs/STOP" ] && break
    log=$logs/$tag-$s.log
    [ -e "$log" ] && continue
    nice -n 19 "$bin" fuzz run --count "$size" --seed "$s" --size "$size_class" --quick -j 1 \
      --save "$logs/mismatches" 2>&1 | grep -v '^configurations' > "$log.part" \
      && mv "$log.part" "$log"
  done
  ;;
sum)
  cat "$2"/*.log | awk '
    /^ssalab fuzz:/ { n += $3; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/ && $(i+1) == "s,") t += $i }
    /agree:/ { a += $2; m += $4; d += $8; g += $11 }
    END { printf "programs %d  agree %d  mismatches %d  discarded %d  generator bugs %d  %.0f s\n", n, a, m, d, g, t }'
  ;;
*)
  # The usage: the comment block at the top.
  awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"
  exit 2
  ;;
esac
