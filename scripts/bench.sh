#!/usr/bin/env bash
# Measures the two costs a student feels, side by side in one run:
#   1. grading all lab 4 scenarios once nothing needs rebuilding (reference solution);
#   2. `grader check lab4` right after a one-line edit of breaker.rs, against cargo's own
#      incremental rebuild of the same crate after the same kind of edit.
# It works on a scratch copy of the kit (the real skeleton is never touched), with the
# reference's code in the student crate so every scenario runs to the end.
# Usage: scripts/bench.sh [ROUNDS]   (default 5)
set -euo pipefail
rounds=${1:-5}
kit=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "building the grader ..." >&2
cargo build -q --release -p grader --manifest-path "$kit/Cargo.toml"
grader="$kit/target/release/grader"

tar -C "$kit" --exclude=./target --exclude=./.git -cf - . | tar -C "$scratch" -xf -
cp "$kit"/solutions/lab4/src/{breaker,bulkhead,relay}.rs "$scratch/crates/relay_base/src/"
cd "$scratch"
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "warming up (first builds) ..." >&2
"$grader" check lab4 >/dev/null 2>&1 || true
"$grader" check lab4 --solution >/dev/null 2>&1 || true
cargo build -q -p relay_base >/dev/null 2>&1

: > fresh.txt; : > cargo.txt; : > cargotest.txt; : > edit.txt
for i in $(seq 1 "$rounds"); do
  ms "$grader" check lab4 --solution >> fresh.txt
  echo "// edit $i a" >> crates/relay_base/src/breaker.rs
  ms cargo build -q -p relay_base >> cargo.txt
  echo "// edit $i c" >> crates/relay_base/src/breaker.rs
  ms cargo test -q -p relay_base --no-run >> cargotest.txt
  echo "// edit $i b" >> crates/relay_base/src/breaker.rs
  ms "$grader" check lab4 >> edit.txt
done
fresh=$(median < fresh.txt); cargo_ms=$(median < cargo.txt); cargotest=$(median < cargotest.txt); edit=$(median < edit.txt)
scenarios=$(ls "$kit"/labs/lab4/scenarios/*.json | wc -l)
echo "rounds: $rounds (medians, milliseconds of wall time, $(nproc) cores)"
echo "grade all $scenarios scenarios, nothing to rebuild:      $fresh ms"
echo "cargo build -p relay_base after a one-line edit:   $cargo_ms ms"
echo "cargo test -p relay_base --no-run after an edit: $cargotest ms   (compile + link a binary)"
echo "grader check lab4 after a one-line edit:          $edit ms"
awk -v a="$edit" -v b="$cargo_ms" -v c="$cargotest" 'BEGIN { printf "ratio grader check / cargo build:                 %.2f\nratio grader check / cargo test --no-run:         %.2f\n", a / b, a / c }'
