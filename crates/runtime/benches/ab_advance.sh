#!/bin/bash
# Interleaved A/B of durable advances in process: two builds of the `advance_instructions` bench
# binary, run alternately, each once with SHORT and once with LONG advances on one run; the
# difference gives the user CPU, system CPU and wall time of one advance, start-up and the run's
# start excluded. The load average is printed before and after, and the fsync bench's probe
# (FSYNC, the `fsync` bench binary) runs between rounds, so every figure has its disk beside it.
#
# Usage: crates/runtime/benches/ab_advance.sh OLD NEW [ROUNDS] [SHORT] [LONG]
#   OLD, NEW: `cargo bench -p switchyard-runtime --bench advance_instructions --no-run` in each
#   build's worktree prints the binary (target/release/deps/advance_instructions-<hash>).
#   FSYNC (environment, optional): the `fsync` bench binary, printed the same way.
set -euo pipefail
old=$1
new=$2
rounds=${3:-3}
short=${4:-500}
long=${5:-3000}
run() { # build binary advances -> "user system wall" in seconds
  ADVANCES=$3 /usr/bin/time -f "%U %S %e" "$2" 2>&1 >/dev/null | tail -n 1
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for build in old new; do
    binary=${!build}
    read -r short_user short_system short_wall <<<"$(run "$build" "$binary" "$short")"
    read -r long_user long_system long_wall <<<"$(run "$build" "$binary" "$long")"
    awk -v round="$round" -v build="$build" -v span=$((long - short)) \
      -v user=$(echo "$long_user - $short_user" | bc) -v kernel=$(echo "$long_system - $short_system" | bc) \
      -v wall=$(echo "$long_wall - $short_wall" | bc) \
      'BEGIN { printf "round %s %s: per advance user %.3f ms, system %.3f ms, wall %.3f ms\n", round, build, user * 1000 / span, kernel * 1000 / span, wall * 1000 / span }'
  done
  if [ -n "${FSYNC:-}" ]; then
    "$FSYNC" --bench 2>&1 | grep -A1 -E "^fsync/" | grep -E "^fsync/|time:" | paste - - | awk '{ print "  " $1, "median", $5, $6 }'
  fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
