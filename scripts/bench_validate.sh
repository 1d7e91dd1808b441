#!/usr/bin/env bash
# Measures how `grader validate` time grows with the size of a scenario file: one valid
# lab 4 scenario of N steps for growing N, and one file of about 20 MB. Time that grows in
# proportion to N is linear: each size is 4 times the one before, so the ratio column
# should stay near 4 (near 16 means quadratic).
#
# Usage: scripts/bench_validate.sh [BASELINE_GRADER]
#   BASELINE_GRADER: another grader binary (say, one built from an earlier commit with
#   `git worktree add /tmp/before <rev> && cargo build --release -p grader` there) to
#   measure side by side in the same run. Each run is capped at 60 s.
set -euo pipefail
kit=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "building the grader ..." >&2
cargo build -q --release -p grader --manifest-path "$kit/Cargo.toml"
graders=("$kit/target/release/grader")
names=("this")
if [ $# -ge 1 ]; then
  graders+=("$1"); names+=("baseline")
fi

# A scenario of $1 steps (each one of three small steps), written to $2, inside lab 4's
# folder so that validate knows the lab.
make_scenario() {
  local n=$1 out=$2
  {
    printf '{\n  "format_version": 1,\n  "name": "%s",\n  "title": "Many steps",\n' "$(basename "$out" .json)"
    printf '  "category": "state_machine",\n  "points": 1,\n  "hint": "none",\n  "steps": [\n'
    awk -v n="$n" 'BEGIN {
      for (i = 0; i < n; i++) {
        if (i % 3 == 0) s = "{\"advance\": {\"ms\": 1}}";
        else if (i % 3 == 1) s = "{\"send\": {\"target\": \"claims\", \"expect\": \"OK\"}}";
        else s = "{\"expect\": {\"target\": \"claims\", \"state\": \"CLOSED\"}}";
        printf "    %s%s\n", s, (i + 1 < n ? "," : "");
      }
    }'
    printf '  ]\n}\n'
  } > "$out"
}

drafts="$kit/labs/lab4/bench-drafts-$$"
mkdir -p "$drafts"
trap 'rm -rf "$scratch" "$drafts"' EXIT
sizes=(2500 10000 40000 160000 400000)
for n in "${sizes[@]}"; do make_scenario "$n" "$drafts/steps_$n.json"; done

ms() {
  local s e rc=0
  s=$(date +%s%N)
  timeout 60 "$@" >/dev/null 2>&1 || rc=$?
  e=$(date +%s%N)
  case $rc in
    0) echo $(( (e - s) / 1000000 )) ;;
    124) echo "timeout" ;;
    *) echo "exit$rc" ;;
  esac
}

printf '%-8s %10s %9s' "steps" "size" ""
for name in "${names[@]}"; do printf ' %12s %6s' "$name ms" "ratio"; done
echo
declare -A last
for n in "${sizes[@]}"; do
  file="$drafts/steps_$n.json"
  printf '%-8s %9sk %9s' "$n" "$(( $(stat -c %s "$file") / 1024 ))" ""
  for i in "${!graders[@]}"; do
    t=$(cd "$kit" && ms "${graders[$i]}" validate "$file")
    ratio="-"
    prev=${last[$i]:-}
    if [ -n "$prev" ] && [[ "$prev" =~ ^[0-9]+$ ]] && [[ "$t" =~ ^[0-9]+$ ]] && [ "$prev" -gt 0 ]; then
      ratio=$(awk -v a="$t" -v b="$prev" 'BEGIN { printf "%.1f", a / b }')
    fi
    last[$i]=$t
    printf ' %12s %6s' "$t" "$ratio"
  done
  echo
done
echo "(each size is 4x the one before, except the last, 2.5x: a ratio near the size ratio is linear)"
