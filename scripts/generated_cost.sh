#!/usr/bin/env bash
# Measures what generated scenarios add to a submission's grading, for each lab:
#   grader check LAB --submission DIR                 (hidden and generated scenarios)
#   grader check LAB --submission DIR --no-generated  (hidden scenarios only)
# with DIR holding the reference solution's files (so every scenario runs to its end), in
# the sandbox as CI grades, the two taking turns at going first in every round, after one
# warm-up round that builds everything. Prints the medians of wall time and of CPU time
# (the grader and every process it waited for: cargo, the sandbox, the scenarios) and
# their differences: what the lab's generated scenarios graded in CI cost (the reference's
# build with nothing to do, each seed filled in from it or read from the files filled in
# before for the same reference, and each run on the submission). CPU time is what a
# loaded machine cannot inflate: on 2 idle cores the added wall time is about half the
# added CPU time, plus the reference's build.
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

# One run: wall and CPU milliseconds, on one line.
ms() {
  /usr/bin/time -f "%e %U %S" -o "$scratch/time" "$@" >/dev/null 2>&1 || true
  awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' "$scratch/time"
}
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
  with=$(cut -d' ' -f1 "$scratch/with.txt" | median); without=$(cut -d' ' -f1 "$scratch/without.txt" | median)
  with_cpu=$(cut -d' ' -f2 "$scratch/with.txt" | median); without_cpu=$(cut -d' ' -f2 "$scratch/without.txt" | median)
  seeds=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['count'])" "$kit/labs/$lab/generated_seeds.json" 2>/dev/null || echo 0)
  echo "$lab: check --submission with its $seeds generated scenarios: wall $with ms, CPU $with_cpu ms; without them: wall $without ms, CPU $without_cpu ms"
  echo "$lab: generated scenarios add $((with - without)) ms of wall time and $((with_cpu - without_cpu)) ms of CPU time"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
