#!/usr/bin/env bash
# Where the kit's own test suite spends its time, test by test.
#
# Builds the tests (timed on their own), then runs them with cargo-nextest, which times
# every test, and prints the build time, the run's wall time, each test binary's summed
# test time and the slowest tests. nextest runs each test in a process of its own, so a
# test pays alone for what tests of one binary share in memory (ci.rs, class.rs and
# rehearse.rs build their submissions once per process): its time is what it costs
# alone, an upper bound on what it adds to `cargo test`. Builds of student code are
# shared on disk either way.
#
# Usage: scripts/suite_time.sh [TOP] [-- extra nextest arguments, e.g. -p grader]
# Needs cargo-nextest (`cargo install cargo-nextest --locked`). The raw output is kept
# in target/suite-time/log.txt.
set -euo pipefail
top=${1:-25}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
kit=$(cd "$(dirname "$0")/.." && pwd)
out="$kit/target/suite-time"
mkdir -p "$out"
cd "$kit"
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "error: cargo-nextest is not installed; install it with: cargo install cargo-nextest --locked" >&2
  exit 2
fi
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--workspace)

now() { date +%s%N; }
echo "building the tests ..." >&2
start=$(now)
cargo test "${args[@]}" --no-run -q 2>"$out/build.txt"
build_ms=$(( ($(now) - start) / 1000000 ))

echo "running the tests, timing each ..." >&2
start=$(now)
set +e
cargo nextest run "${args[@]}" --no-fail-fast --color never --status-level pass \
  --final-status-level none >"$out/log.txt" 2>&1
rc=$?
set -e
run_ms=$(( ($(now) - start) / 1000000 ))

python3 - "$out/log.txt" "$top" "$build_ms" "$run_ms" "$rc" <<'PY'
import collections, re, sys
log, top, build_ms, run_ms, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
tests = []
for line in open(log, errors="replace"):
    m = re.match(r"\s*(PASS|FAIL|SIGSEGV|SIGABRT|TIMEOUT|LEAK)\S* \[\s*([0-9.]+)s\] (?:\([^)]*\) )?(\S+) (\S+)", line)
    if m:
        tests.append((float(m.group(2)), m.group(1), m.group(3), m.group(4)))
per_binary = collections.defaultdict(lambda: [0.0, 0])
for secs, _, binary, _ in tests:
    per_binary[binary][0] += secs
    per_binary[binary][1] += 1
failed = sum(1 for t in tests if t[1] != "PASS")
print(f"build of the tests: {build_ms / 1000:8.1f} s")
print(f"running them:       {run_ms / 1000:8.1f} s wall ({len(tests)} tests, {failed} not passed; nextest's exit status {rc})")
print("\ntest binaries by summed test time (each test alone, in its own process):")
for binary, (secs, n) in sorted(per_binary.items(), key=lambda kv: -kv[1][0]):
    print(f"  {secs:8.1f} s  {n:4} tests  {binary}")
print(f"\nthe {top} slowest tests:")
for secs, status, binary, name in sorted(tests, reverse=True)[:top]:
    print(f"  {secs:8.1f} s  {status:5} {binary} {name}")
sys.exit(rc)
PY
