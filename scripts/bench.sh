#!/usr/bin/env bash
# Measures the two costs a student feels, side by side in one run:
#   1. grading all lab 4 scenarios once nothing needs rebuilding (reference solution);
#   2. `grader check lab4` right after a one-line edit of breaker.rs, against cargo's own
#      incremental rebuild of the same crate after the same kind of edit (the goal: at
#      most 1.5 times as long);
# where the time of 2 goes: cargo alone on the grader's generated workspace after an edit
# (both harness programs, and the lab's harness program alone);
# and what the race checks add to 1 and 2: the same measurements on a second copy of the
# kit whose lab has no race checks (no race scenarios, no "race" settings).
# It works on scratch copies of the kit (the real skeleton is never touched), with the
# reference's code in the student crate so every scenario runs to the end.
# Usage: scripts/bench.sh [ROUNDS] [BASELINE]   (default 5 rounds)
#   BASELINE: another grader binary (an earlier build, kept aside) measured in the same
#   rounds on the same scratch kit, in a work folder of its own, so that a change is
#   judged side by side under the same load.
set -euo pipefail
rounds=${1:-5}
baseline=${2:-}
if [ -n "$baseline" ]; then
  baseline=$(cd "$(dirname "$baseline")" && pwd)/$(basename "$baseline")
  [ -x "$baseline" ] || { echo "bench.sh: $baseline is not a program" >&2; exit 2; }
fi
kit=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "building the grader ..." >&2
cargo build -q --release -p grader --manifest-path "$kit/Cargo.toml"
# A copy, so that rebuilding the kit during a run cannot change what is measured.
cp "$kit/target/release/grader" "$scratch/grader"
grader="$scratch/grader"

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
edit() { echo "// edit $RANDOM$RANDOM" >> "${1:-crates/relay_base/src/breaker.rs}"; }
# The baseline keeps its builds apart: its generated workspaces may differ.
base() { GRADER_WORK_DIR="$scratch/baseline-work" "$baseline" "$@"; }
# Cargo alone on the grader's generated workspace, as the grader calls it.
ws=target/grader/lab4/builds/student
harness_build() {
  cargo build -q --manifest-path "$ws/Cargo.toml" --target-dir target/grader/lab4/cargo \
    --message-format=json-diagnostic-rendered-ansi --bin lab_harness_student "$@"
}

norace="$scratch/norace"
echo "warming up (first builds) ..." >&2
for k in "$scratch/kit" "$norace"; do
  (cd "$k" && "$grader" check lab4 >/dev/null 2>&1 || true)
  (cd "$k" && "$grader" check lab4 --solution >/dev/null 2>&1 || true)
done
if [ -n "$baseline" ]; then
  base check lab4 >/dev/null 2>&1 || true
  base check lab4 --solution >/dev/null 2>&1 || true
fi
cargo build -q -p relay_base >/dev/null 2>&1
[ -f "$ws/Cargo.toml" ] || { echo "bench.sh: the grader wrote no workspace at $ws" >&2; exit 2; }

for f in fresh cargo cargotest edit both main fresh_norace edit_norace fresh_base edit_base; do
  : > "$f.txt"
done
for i in $(seq 1 "$rounds"); do
  ms "$grader" check lab4 --solution >> fresh.txt
  ms "$grader" --kit "$norace" check lab4 --solution >> fresh_norace.txt
  edit; ms cargo build -q -p relay_base >> cargo.txt
  edit; ms cargo test -q -p relay_base --no-run >> cargotest.txt
  # The new grader and the baseline take turns at going first.
  if [ -n "$baseline" ] && [ $((i % 2)) -eq 0 ]; then
    ms base check lab4 --solution >> fresh_base.txt
    edit; ms base check lab4 >> edit_base.txt
  fi
  edit; ms "$grader" check lab4 >> edit.txt
  if [ -n "$baseline" ] && [ $((i % 2)) -eq 1 ]; then
    ms base check lab4 --solution >> fresh_base.txt
    edit; ms base check lab4 >> edit_base.txt
  fi
  edit; ms harness_build --workspace --bin lab_race_student --keep-going >> both.txt
  edit; ms harness_build >> main.txt
  edit "$norace/crates/relay_base/src/breaker.rs"
  ms "$grader" --kit "$norace" check lab4 >> edit_norace.txt
done
fresh=$(median < fresh.txt); cargo_ms=$(median < cargo.txt); cargotest=$(median < cargotest.txt)
edit=$(median < edit.txt); both=$(median < both.txt); main=$(median < main.txt)
fresh_norace=$(median < fresh_norace.txt); edit_norace=$(median < edit_norace.txt)
scenarios=$(ls "$kit"/labs/lab4/scenarios/*.json | wc -l)
races=$(grep -l '"race": true' "$kit"/labs/lab4/scenarios/*.json | wc -l)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "rounds: $rounds (medians, milliseconds of wall time, $(nproc) cores)"
echo "grade all $scenarios scenarios, nothing to rebuild:      $fresh ms"
echo "cargo build -p relay_base after a one-line edit:   $cargo_ms ms"
echo "cargo test -p relay_base --no-run after an edit: $cargotest ms   (compile + link a binary)"
echo "grader check lab4 after a one-line edit:          $edit ms"
echo "ratio grader check / cargo build:                 $(ratio "$edit" "$cargo_ms")   (goal: at most 1.50)"
echo "ratio grader check / cargo test --no-run:         $(ratio "$edit" "$cargotest")"
echo "where it goes: cargo alone on the grader's workspace after an edit:"
echo "  both harness programs:                          $both ms   ($(ratio "$both" "$cargo_ms") x cargo build)"
echo "  the lab's harness program alone:                $main ms   ($(ratio "$main" "$cargo_ms") x cargo build)"
if [ -n "$baseline" ]; then
  fresh_base=$(median < fresh_base.txt); edit_base=$(median < edit_base.txt)
  echo "baseline $baseline, same rounds:"
  echo "  grade all scenarios, nothing to rebuild:        $fresh_base ms"
  echo "  grader check lab4 after a one-line edit:        $edit_base ms"
  echo "  ratio baseline check / cargo build:             $(ratio "$edit_base" "$cargo_ms")"
  echo "  new / baseline after an edit:                   $(ratio "$edit" "$edit_base")"
fi
echo "the same lab without its $races race checks:"
echo "  grade all scenarios, nothing to rebuild:        $fresh_norace ms   (race checks add $((fresh - fresh_norace)) ms)"
echo "  grader check lab4 after a one-line edit:        $edit_norace ms   (race checks add $((edit - edit_norace)) ms; $(ratio "$edit_norace" "$cargo_ms") x cargo build)"

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
