#!/usr/bin/env bash
# Measures what the page of timelines adds to a full lab run with nothing to rebuild:
# `grader check LAB --solution` (every visible scenario of the reference, every one run to
# the end, the page written) against the same run with `--no-page`, in alternating order,
# ROUNDS times each. Prints the medians of wall time and of CPU time (the grader and every
# scenario's process), and what the page adds in percent (the goal: under 10%).
# Usage: scripts/page_cost.sh [ROUNDS] [LAB...]   (default: 9 rounds, lab4 lab5 lab6)
set -euo pipefail
rounds=${1:-9}
shift || true
labs=("$@")
[ ${#labs[@]} -gt 0 ] || labs=(lab4 lab5 lab6)
kit=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "building the grader ..." >&2
cargo build -q --release -p grader --manifest-path "$kit/Cargo.toml"
# A copy, so that rebuilding the kit during a run cannot change what is measured.
cp "$kit/target/release/grader" "$scratch/grader"
grader="$scratch/grader"
cd "$kit"

# One run: wall and CPU seconds, on one line.
run() {
  local out="$scratch/time.txt"
  /usr/bin/time -f "%e %U %S" -o "$out" "$grader" check "$@" >/dev/null 2>&1 || true
  awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$out"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a - b) * 100 / b }'; }

echo "rounds: $rounds (medians, milliseconds, $(nproc) cores)"
for lab in "${labs[@]}"; do
  echo "warming up $lab (first builds) ..." >&2
  "$grader" check "$lab" --solution --no-page >/dev/null 2>&1 || true
  : >"$scratch/with.txt"
  : >"$scratch/without.txt"
  for i in $(seq 1 "$rounds"); do
    if [ $((i % 2)) -eq 0 ]; then
      run "$lab" --solution >>"$scratch/with.txt"
      run "$lab" --solution --no-page >>"$scratch/without.txt"
    else
      run "$lab" --solution --no-page >>"$scratch/without.txt"
      run "$lab" --solution >>"$scratch/with.txt"
    fi
  done
  wall_with=$(cut -d' ' -f1 "$scratch/with.txt" | median)
  wall_without=$(cut -d' ' -f1 "$scratch/without.txt" | median)
  cpu_with=$(cut -d' ' -f2 "$scratch/with.txt" | median)
  cpu_without=$(cut -d' ' -f2 "$scratch/without.txt" | median)
  page="$kit/target/grader/$lab/timeline.html"
  size=$(wc -c <"$page" 2>/dev/null || echo 0)
  scenarios=$(ls "$kit/labs/$lab/scenarios"/*.json | wc -l)
  echo "$lab, $scenarios scenarios, page of $((size / 1024)) kB:"
  echo "  wall: $wall_without ms without the page, $wall_with ms with it ($(percent "$wall_with" "$wall_without"))"
  echo "  CPU:  $cpu_without ms without the page, $cpu_with ms with it ($(percent "$cpu_with" "$cpu_without"))"
done
