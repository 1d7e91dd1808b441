#!/usr/bin/env bash
# Measures the two costs a student feels, side by side in one run:
#   1. grading all lab 4 scenarios once nothing needs rebuilding (reference solution);
#   2. `grader check lab4` right after a one-line edit of breaker.rs, against cargo's own
#      incremental rebuild of the same crate after the same kind of edit.
# and what the race checks add to both: the same two measurements on a second copy of the
# kit whose lab has no race checks (no race scenarios, no "race" settings).
# It works on scratch copies of the kit (the real skeleton is never touched), with the
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

mkdir -p "$scratch/kit" "$scratch/norace"
tar -C "$kit" --exclude=./target --exclude=./.git -cf - . | tar -C "$scratch/kit" -xf -
cp "$kit"/solutions/lab4/src/{breaker,bulkhead,relay}.rs "$scratch/kit/crates/relay_base/src/"
tar -C "$scratch/kit" -cf - . | tar -C "$scratch/norace" -xf -
# The same lab without its race checks.
python3 - "$scratch/norace/labs/lab4" <<'PY'
import json, pathlib, sys
lab = pathlib.Path(sys.argv[1])
manifest = json.loads((lab / "lab.json").read_text())
gone = 0
for f in lab.glob("scenarios/*.json"):
    if json.loads(f.read_text()).get("race"):
        gone += json.loads(f.read_text())["points"]
        f.unlink()
manifest.pop("race", None)
manifest["total_points"] -= gone
(lab / "lab.json").write_text(json.dumps(manifest, indent=2) + "\n")
PY
cd "$scratch/kit"
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

norace="$scratch/norace"
echo "warming up (first builds) ..." >&2
for k in "$scratch/kit" "$norace"; do
  (cd "$k" && "$grader" check lab4 >/dev/null 2>&1 || true)
  (cd "$k" && "$grader" check lab4 --solution >/dev/null 2>&1 || true)
done
cargo build -q -p relay_base >/dev/null 2>&1

: > fresh.txt; : > cargo.txt; : > cargotest.txt; : > edit.txt; : > fresh_norace.txt; : > edit_norace.txt
for i in $(seq 1 "$rounds"); do
  ms "$grader" check lab4 --solution >> fresh.txt
  ms "$grader" --kit "$norace" check lab4 --solution >> fresh_norace.txt
  echo "// edit $i a" >> crates/relay_base/src/breaker.rs
  ms cargo build -q -p relay_base >> cargo.txt
  echo "// edit $i c" >> crates/relay_base/src/breaker.rs
  ms cargo test -q -p relay_base --no-run >> cargotest.txt
  echo "// edit $i b" >> crates/relay_base/src/breaker.rs
  ms "$grader" check lab4 >> edit.txt
  echo "// edit $i b" >> "$norace/crates/relay_base/src/breaker.rs"
  ms "$grader" --kit "$norace" check lab4 >> edit_norace.txt
done
fresh=$(median < fresh.txt); cargo_ms=$(median < cargo.txt); cargotest=$(median < cargotest.txt); edit=$(median < edit.txt)
fresh_norace=$(median < fresh_norace.txt); edit_norace=$(median < edit_norace.txt)
scenarios=$(ls "$kit"/labs/lab4/scenarios/*.json | wc -l)
races=$(grep -l '"race": true' "$kit"/labs/lab4/scenarios/*.json | wc -l)
echo "rounds: $rounds (medians, milliseconds of wall time, $(nproc) cores)"
echo "grade all $scenarios scenarios, nothing to rebuild:      $fresh ms"
echo "cargo build -p relay_base after a one-line edit:   $cargo_ms ms"
echo "cargo test -p relay_base --no-run after an edit: $cargotest ms   (compile + link a binary)"
echo "grader check lab4 after a one-line edit:          $edit ms"
awk -v a="$edit" -v b="$cargo_ms" -v c="$cargotest" 'BEGIN { printf "ratio grader check / cargo build:                 %.2f\nratio grader check / cargo test --no-run:         %.2f\n", a / b, a / c }'
echo "the same lab without its $races race checks:"
echo "  grade all scenarios, nothing to rebuild:        $fresh_norace ms   (race checks add $((fresh - fresh_norace)) ms)"
echo "  grader check lab4 after a one-line edit:        $edit_norace ms   (race checks add $((edit - edit_norace)) ms)"

# Lab 6 waits on its clock (queues, pauses, budgets) for minutes of simulated time: grading
# every visible scenario of its reference must still take well under a second of wall time.
sim_ms=$(python3 - "$kit"/labs/lab6/scenarios/*.json <<'PY'
import json, sys
print(sum(step["advance"]["ms"] for f in sys.argv[1:]
          for step in json.load(open(f))["steps"] if "advance" in step))
PY
)
lab6_scenarios=$(ls "$kit"/labs/lab6/scenarios/*.json | wc -l)
"$grader" check lab6 --solution >/dev/null 2>&1 || true
: > lab6.txt
for i in $(seq 1 "$rounds"); do
  ms "$grader" check lab6 --solution >> lab6.txt
done
lab6=$(median < lab6.txt)
echo "lab 6: grade all $lab6_scenarios scenarios of the reference, nothing to rebuild: $lab6 ms of wall time"
awk -v s="$sim_ms" -v w="$lab6" 'BEGIN { printf "  for %.1f s of simulated time (%.0f simulated ms per wall ms)\n", s / 1000, s / w }'
