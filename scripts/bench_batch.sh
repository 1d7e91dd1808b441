#!/usr/bin/env bash
# Batch grading against one-by-one grading, side by side in one run.
#
# Generates N submissions (default 20): the reference solution and the lab's mutants
# (known-wrong variants), taken in turn. Grades one copy of the set with
# `grader grade` (default --jobs) and another copy with `grader check --submission`, one
# submission after the other, and prints submissions per minute for both and the ratio.
# Both start with the shared dependencies compiled (as after Gradescope's setup.sh or a
# warm CI cache) and every submission's own crate changed, so each costs its real build.
# It also checks that both ways give every submission the same score.
#
# Usage: scripts/bench_batch.sh [N]
# Needs python3 (to apply the mutants' edits). Works in target/bench-batch/ of the kit.
set -euo pipefail
n=${1:-20}
kit=$(cd "$(dirname "$0")/.." && pwd)
bench="$kit/target/bench-batch"
export GRADER_WORK_DIR="$bench/work"
mkdir -p "$bench"

# The previous run's submissions: their builds are never used again.
work="$GRADER_WORK_DIR"
rm -rf "$work"/builds/sub_* "$work"/builds/batch_*
if [ -d "$work/cargo/debug" ]; then
  find "$work/cargo/debug" -maxdepth 2 \( -name '*_sub_*' -o -name 'relay_base-*' -o -name 'librelay_base-*' \) \
    -exec rm -rf {} +
fi

echo "building the grader ..." >&2
cargo build -q --release -p grader --manifest-path "$kit/Cargo.toml"
grader="$kit/target/release/grader"

# Both ways start warm: `grader check` and `grader grade` build with their own cargo
# settings, so each compiles the shared dependencies once, here, on the reference.
echo "compiling the shared dependencies (reference solution), for both ways ..." >&2
"$grader" --kit "$kit" check lab4 --solution --format json >/dev/null
rm -rf "$bench/warm" "$bench/warm-results"
mkdir -p "$bench/warm/reference"
cp -r "$kit/solutions/lab4/src" "$bench/warm/reference/"
"$grader" --kit "$kit" grade lab4 "$bench/warm" --results-dir "$bench/warm-results" 2>"$bench/warm.log" >/dev/null || true

echo "writing $n submissions, twice ..." >&2
python3 - "$kit" "$bench" "$n" <<'PY'
import json, pathlib, shutil, sys, time
kit, bench, n = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
files = ["src/breaker.rs", "src/bulkhead.rs", "src/relay.rs"]
reference = {f: (kit / "solutions/lab4" / f).read_text() for f in files}
mutants = sorted((kit / "labs/lab4/mutants").glob("*.json"))
run = time.time_ns()
for copy in ("batch", "one_by_one"):
    # A comment new to each run and each copy: every crate really builds, and the two
    # ways share no build (builds are keyed by the files' content).
    stamp = f"// bench run {run} {copy}\n"
    root = bench / copy
    shutil.rmtree(root, ignore_errors=True)
    for i in range(n):
        texts = dict(reference)
        # Every third submission is the reference; the others are mutants in turn.
        if i % 3 != 0 and mutants:
            m = json.loads(mutants[i % len(mutants)].read_text())
            for e in m["edits"]:
                texts[e["file"]] = texts[e["file"]].replace(e["find"], e["replace"], 1)
        for f, text in texts.items():
            path = root / f"s{i:02}" / f
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + stamp)
PY

now() { date +%s%N; }
# A results folder keeps the rows of earlier batches; this one must hold this run's only.
rm -rf "$bench/batch-results" "$bench/one_by_one-results"
echo "grader grade (default --jobs) ..." >&2
start=$(now)
"$grader" --kit "$kit" grade lab4 "$bench/batch" --results-dir "$bench/batch-results" 2>"$bench/batch.log" || true
batch_ms=$(( ($(now) - start) / 1000000 ))

echo "grader check --submission, one after the other ..." >&2
mkdir -p "$bench/one_by_one-results"
start=$(now)
for dir in "$bench"/one_by_one/s*; do
  "$grader" --kit "$kit" check lab4 --submission "$dir" --format json \
    --output "$bench/one_by_one-results/$(basename "$dir").json" 2>>"$bench/one_by_one.log" || true
done
single_ms=$(( ($(now) - start) / 1000000 ))

python3 - "$bench" <<'PY'
import json, pathlib, sys
bench = pathlib.Path(sys.argv[1])
book = json.loads((bench / "batch-results/gradebook.json").read_text())
differ = []
for row in book["submissions"]:
    one = json.loads((bench / "one_by_one-results" / f"{row['name']}.json").read_text())
    if (row["score"], row["max_score"]) != (one["score"], one["max_score"]):
        differ.append((row["name"], row["score"], one["score"]))
if differ:
    sys.exit(f"the two ways disagree: {differ}")
PY

cores=$(nproc 2>/dev/null || echo "?")
awk -v n="$n" -v b="$batch_ms" -v s="$single_ms" -v c="$cores" 'BEGIN {
  printf "submissions: %d (reference and mutants), %s cores, same scores both ways\n", n, c
  printf "grader grade (batch):          %7.1f s  %6.1f submissions/minute\n", b / 1000, n * 60000 / b
  printf "grader check, one by one:      %7.1f s  %6.1f submissions/minute\n", s / 1000, n * 60000 / s
  printf "ratio batch / one by one:      %7.2f\n", (n * 60000 / b) / (n * 60000 / s)
}'
