#!/usr/bin/env bash
# Measures what generated scenarios add to a submission's grading, for each lab:
#   grader check LAB --submission DIR                 (hidden and generated scenarios)
#   grader check LAB --submission DIR --no-generated  (hidden scenarios only)
# with DIR holding the reference solution's files (so every scenario runs to its end), in
# the sandbox as CI grades, the two taking turns at going first in every round, after one
# warm-up round that builds everything. Prints the medians of wall time and their
# difference: what the lab's generated scenarios graded in CI cost (the reference's build
# with nothing to do, filling each seed in from it, and running each on the submission).
# Usage: scripts/generated_cost.sh [ROUNDS] [LAB...]   (default 7 rounds, lab4 lab5 lab6)
set -euo pipefail
rounds=${1:-7}
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

ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "rounds: $rounds (medians, milliseconds of wall time, $(nproc) cores)"
for lab in "${labs[@]}"; do
  sub="$scratch/$lab"
  mkdir -p "$sub"
  # The reference's declared files, without the unit tests students do not have.
  python3 - "$kit" "$lab" "$sub" <<'PY'
import json, pathlib, sys
kit, lab, out = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
manifest = json.loads((kit / "labs" / lab / "lab.json").read_text())
for f in manifest["student_files"]:
    text = (kit / manifest["solution_crate"] / f).read_text()
    (out / f).parent.mkdir(parents=True, exist_ok=True)
    (out / f).write_text(text.replace("#[cfg(test)]\nmod tests;\n", ""))
PY
  (cd "$kit" && "$grader" check "$lab" --submission "$sub" >/dev/null 2>&1 || true)
  (cd "$kit" && "$grader" check "$lab" --submission "$sub" --no-generated >/dev/null 2>&1 || true)
  : > "$scratch/with.txt"; : > "$scratch/without.txt"
  for i in $(seq 1 "$rounds"); do
    if [ $((i % 2)) -eq 0 ]; then
      (cd "$kit" && ms "$grader" check "$lab" --submission "$sub") >> "$scratch/with.txt"
      (cd "$kit" && ms "$grader" check "$lab" --submission "$sub" --no-generated) >> "$scratch/without.txt"
    else
      (cd "$kit" && ms "$grader" check "$lab" --submission "$sub" --no-generated) >> "$scratch/without.txt"
      (cd "$kit" && ms "$grader" check "$lab" --submission "$sub") >> "$scratch/with.txt"
    fi
  done
  with=$(median < "$scratch/with.txt"); without=$(median < "$scratch/without.txt")
  seeds=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['count'])" "$kit/labs/$lab/generated_seeds.json" 2>/dev/null || echo 0)
  echo "$lab: check --submission with its $seeds generated scenarios $with ms, without $without ms: generated scenarios add $((with - without)) ms"
done
