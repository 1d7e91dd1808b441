#!/usr/bin/env bash
# Measures how long `grader check lab4` takes to give its whole report on five broken
# submissions, each made from the reference by one edit of relay.rs:
#   loop        every request spins forever (a busy loop in Relay::handle);
#   spin        every request starts two threads that spin forever and waits for them;
#   ctor        Relay::new takes a std Mutex twice (a deadlock before the first step);
#   deadlock    every request takes a std Mutex twice (a deadlock in a request);
#   flood       Relay::new writes 1 GB to standard output.
# Each is graded once to build it (not timed), then timed; the score is printed beside
# the time, so that a faster grader with another score shows.
# Usage: [BASELINE=OTHER_GRADER] scripts/fail_fast.sh [GRADER] [CASE...]
#   GRADER: the grader program to measure (default: a debug build of this checkout);
#   CASE: some of the names above (default: all five);
#   BASELINE: another grader (an earlier build, kept aside), measured on each case just
#   before GRADER, so that both see the same load; its line is marked "baseline".
# The time includes starting the grader and reading the lab; the builds are cached.
set -euo pipefail
kit=$(cd "$(dirname "$0")/.." && pwd)
grader=${1:-}
shift || true
if [ -z "$grader" ]; then
  cargo build -q -p grader --manifest-path "$kit/Cargo.toml"
  grader="$kit/target/debug/grader"
fi
grader=$(cd "$(dirname "$grader")" && pwd)/$(basename "$grader")
[ -x "$grader" ] || { echo "fail_fast.sh: $grader is not a program" >&2; exit 2; }
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(loop spin ctor deadlock flood)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The one edit of each case: the text found in relay.rs, and what replaces it.
find_of() {
  case $1 in
    loop | spin | deadlock) echo '        let Some(lane) = self.lanes.get(&request.target) else {' ;;
    ctor | flood) echo '        let log = TransitionLog::new();' ;;
  esac
}
replace_of() {
  local found
  found=$(find_of "$1")
  case $1 in
    loop) printf '        while std::hint::black_box(true) {}\n%s' "$found" ;;
    spin) printf '        let spinning: Vec<_> = (0..2).map(|_| std::thread::spawn(|| while std::hint::black_box(true) {})).collect();\n        for t in spinning { let _ = t.join(); }\n%s' "$found" ;;
    ctor | deadlock) printf '        let gate = std::sync::Mutex::new(());\n        let _held = gate.lock();\n        let _again = gate.lock();\n%s' "$found" ;;
    flood) printf '        {\n            use std::io::Write;\n            let line = vec![b%sx%s; 1 << 20];\n            let mut out = std::io::stdout().lock();\n            for _ in 0..1024 {\n                let _ = out.write_all(&line);\n            }\n        }\n%s' "'" "'" "$found" ;;
  esac
}

baseline=${BASELINE:-}
if [ -n "$baseline" ]; then
  baseline=$(cd "$(dirname "$baseline")" && pwd)/$(basename "$baseline")
  [ -x "$baseline" ] || { echo "fail_fast.sh: $baseline is not a program" >&2; exit 2; }
fi

# Grades the submission in $2 with grader $1 (once untimed, to build it, then timed) and
# prints one line: case $3, seconds, score, how many scenarios got each status.
measure() {
  local program=$1 dir=$2 label=$3
  (cd "$kit" && NO_COLOR=1 "$program" check lab4 --format json --scenario be_b201_not_counted \
    --submission "$dir" >/dev/null 2>"$dir/build.log") || true
  local start end score statuses
  start=$(date +%s.%N)
  (cd "$kit" && NO_COLOR=1 "$program" check lab4 --format json --submission "$dir" \
    >"$dir/report.json" 2>"$dir/stderr.log") || true
  end=$(date +%s.%N)
  score=$(jq -r '.score // "none"' "$dir/report.json" 2>/dev/null || echo none)
  statuses=$(jq -r '[.scenarios[].status] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' \
    "$dir/report.json" 2>/dev/null || echo "no report: $(tail -1 "$dir/stderr.log")")
  printf '%-18s %8.1f %6s  %s   (load %s)\n' "$label" "$(echo "$end - $start" | bc)" "$score" \
    "$statuses" "$(cut -d' ' -f1 /proc/loadavg)"
}

printf '%-18s %8s %6s  %s\n' case seconds score "statuses (count)"
for c in "${cases[@]}"; do
  [ -n "$(find_of "$c")" ] || { echo "fail_fast.sh: no case $c" >&2; exit 2; }
  dir="$scratch/$c"
  mkdir -p "$dir"
  cp "$kit/solutions/lab4/src/breaker.rs" "$kit/solutions/lab4/src/bulkhead.rs" "$dir/"
  FIND=$(find_of "$c") REPLACE=$(replace_of "$c") python3 - "$kit/solutions/lab4/src/relay.rs" "$dir/relay.rs" <<'EOF'
import os, sys
text = open(sys.argv[1]).read()
find, replace = os.environ["FIND"], os.environ["REPLACE"]
assert text.count(find) == 1, find
open(sys.argv[2], "w").write(text.replace(find, replace))
EOF
  if [ -n "$baseline" ]; then
    measure "$baseline" "$dir" "$c (baseline)"
  fi
  measure "$grader" "$dir" "$c"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
