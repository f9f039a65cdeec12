#!/usr/bin/env bash
# Overhead per job of a Slurm job array against a direct run (issue 25; numbers in
# docs/slurm.md). Needs the cluster of `bash .ci/slurm.sh up` (SLURM_CONF exported) and a
# release build. Runs, in order:
#   1. the sweep directly: `ssalab bench -j 2` (1,024 jobs: 64 programs x 2 targets x 8
#      configurations);
#   2. the same sweep through Slurm, one job per array task (--array-size 1024), timed from
#      submission to the merge job's exit record; the merged files are compared with 1;
#   3. a bare array of 1,024 `true` tasks, timed from submission until the queue is empty;
#   4. the 1,024 shard commands one after another without Slurm (-j 1).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${SLURM_CONF:?export SLURM_CONF (bash .ci/slurm.sh up prints it)}"
ssalab=${SSALAB:-$PWD/target/release/ssalab}
tmp=${TMPDIR:-/tmp}/ssalab-overhead
configs='baseline,C,L_phi+C,S_phi+C,L_phi,ABI+C,baseline+C,L_ABI+C,S_phi'
n=1024
rm -rf "$tmp"
mkdir -p "$tmp"
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

t=$(now)
"$ssalab" bench --out "$tmp/direct" --configs "$configs" --no-times -q -j 2 2>/dev/null || true
direct=$(since "$t")
echo "direct, -j 2: $direct s"

t=$(now)
"$ssalab" bench --slurm --array-size $n --out "$tmp/slurm" --configs "$configs" --no-times >/dev/null
until [ -e "$tmp/slurm/slurm/merge.exit" ]; do sleep 0.2; done
slurm=$(since "$t")
echo "through Slurm, $n tasks: $slurm s (merge exit $(cat "$tmp/slurm/slurm/merge.exit"))"
for f in functions.csv jobs.csv runs.toml; do
  cmp -s "$tmp/direct/$f" "$tmp/slurm/$f" && echo "  $f identical" || echo "  $f DIFFERS"
done
echo "  overhead per job: $(echo "scale=3; ($slurm - $direct) / $n" | bc) s"

t=$(now)
id=$(sbatch --parsable --array=1-$n --output=/dev/null --wrap=true)
while squeue -h -j "$id" 2>/dev/null | grep -q .; do sleep 0.2; done
bare=$(since "$t")
echo "bare array of $n x true: $bare s ($(echo "scale=3; $bare / $n" | bc) s per task)"

t=$(now)
for k in $(seq $n); do
  "$ssalab" bench --shard "$k/$n" --out "$tmp/seq/$k" --configs "$configs" --no-times -q -j 1 2>/dev/null || true
done
seq_time=$(since "$t")
echo "$n shard commands one after another, no Slurm: $seq_time s ($(echo "scale=3; $seq_time / $n" | bc) s each)"
rm -rf "$tmp"
