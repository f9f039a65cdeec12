#!/bin/bash
# libFuzzer campaign over every cargo-fuzz target of this directory, on the stable toolchain.
#
#   fuzz/campaign.sh [SECONDS_PER_TARGET] [TARGET ...]     (default: 600 s, all six targets)
#
# cargo-fuzz normally wants nightly; stable rustc accepts the -Z flags it passes when
# RUSTC_BOOTSTRAP=1 is set, and with `-s none` no sanitizer runtime is needed (the code under
# test is safe Rust apart from the simulator's memory mapping). Needs `cargo install
# cargo-fuzz` and a C++ compiler (libfuzzer-sys builds libFuzzer). Corpora are seeded from the
# repository's own inputs (C programs, LAI files, assembly tests, compiled objects) and kept,
# with crash artifacts and logs, under $FUZZ_DIR (default /tmp/ssalab-fuzz).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(dirname "$here")
secs=${1:-600}; shift || true
targets=${*:-c_front lai asm object decode sim}
dir=${FUZZ_DIR:-/tmp/ssalab-fuzz}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$dir/target}
bin=$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release

(cd "$here" && RUSTC_BOOTSTRAP=1 cargo fuzz build -s none --release)
# The ssalab binary compiles the object seeds ($SSALAB to use an existing one).
ssalab=${SSALAB:-}
if [ -z "$ssalab" ]; then
  (cd "$root" && cargo build --release -p ssalab)
  ssalab=$CARGO_TARGET_DIR/release/ssalab
fi

seed() { # target, file, target byte (0 = ST231, 1 = ST120) or "" for none
  local n; n=$(ls "$dir/corpus/$1" | wc -l)
  { [ -n "$3" ] && printf "\\x0$3"; cat "$2"; } > "$dir/corpus/$1/seed$n"
}
target_byte() { case "$1" in *st120*) echo 1 ;; *) echo 0 ;; esac; }

if [ ! -d "$dir/corpus" ]; then
  mkdir -p "$dir"/corpus/{c_front,lai,asm,object,decode,sim}
  for f in $(find "$root/programs" "$root/compiler/tests/c" -name '*.c' | sort); do seed c_front "$f" ""; done
  for f in $(find "$root/programs" "$root/compiler/tests/lai" -name '*.lai' | sort); do
    seed lai "$f" "$(grep -q st120 "$f" && echo 1 || echo 0)"; done
  for f in $(find "$root/simulator/tests/programs" -name '*.s' | sort); do seed asm "$f" "$(target_byte "$f")"; done
  for f in $(ls "$root"/programs/dsp/*.c | head -8); do
    for t in st231 st120; do
      o=$dir/corpus/object/$(basename "$f" .c)-$t.o
      "$ssalab" compile "$f" --target $t --emit obj -o "$o"
      # Raw words for the decoders and the simulator: the object's bytes past its 64-byte
      # header (dd, not `tail | head`: under pipefail, head closing the pipe early makes
      # tail die of SIGPIPE and stops the script when the object is large).
      dd if="$o" bs=64 skip=1 count=64 status=none > "$dir/corpus/decode/$(basename "$o")"
      { printf "\\x0$(target_byte $t)"; dd if="$o" bs=64 skip=1 count=32 status=none; } \
        > "$dir/corpus/sim/$(basename "$o")"
    done
  done
fi

for t in $targets; do
  mkdir -p "$dir/artifacts/$t"
  echo "== $t: $secs s"
  "$bin/$t" "$dir/corpus/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=16384 -artifact_prefix="$dir/artifacts/$t/" -print_final_stats=1 \
    > "$dir/log-$t.txt" 2>&1 || { echo "$t: FAILED, see $dir/log-$t.txt and $dir/artifacts/$t/"; exit 1; }
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)" "$dir/log-$t.txt"
done
