#!/usr/bin/env bash
# Measures the rehearsal's headline, side by side in each run: the claims p99 latency
# behind the reference relay and behind the blind relay while core banking is slow (the
# highest over its slow phases; same
# script, same load, same moment), their ratio, and how long `grader rehearse` takes from
# start to page. Runs the full 30-second script unless DURATION is given.
# Usage: scripts/rehearse.sh [ROUNDS] [DURATION]   (default 3 rounds of the script's length)
set -euo pipefail
rounds=${1:-3}
duration=${2:-}
kit=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "building the grader and the rehearsal ..." >&2
cargo build -q -p grader --manifest-path "$kit/Cargo.toml"
grader="$kit/target/debug/grader"
args=(rehearse lab4 --solution --out "$out" --color never)
[ -n "$duration" ] && args+=(--duration "$duration")
(cd "$kit" && "$grader" rehearse lab4 --solution --out "$out" --duration 2 >/dev/null 2>&1 || true)

printf '%-6s %10s %22s %24s %8s\n' round "wall (s)" "claims p99 yours (ms)" "claims p99 blind (ms)" ratio
for i in $(seq 1 "$rounds"); do
  s=$(date +%s%N)
  (cd "$kit" && "$grader" "${args[@]}" >/dev/null 2>&1) || true
  e=$(date +%s%N)
  python3 - "$out/rehearsal.json" "$i" "$(( (e - s) / 1000000 ))" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
phases = r["figures"]["story"]["phases"]
slow = [k for k, p in enumerate(phases) if p["what"] == "slow"]
# The highest p99 over the slow phases, as the page's verdicts take it.
p99 = {x["name"]: max(x["targets"]["claims"]["phases"][k]["p99_ms"] for k in slow)
       for x in r["figures"]["relays"]}
ratio = p99["unprotected"] / p99["protected"]
print(f'{sys.argv[2]:<6} {int(sys.argv[3]) / 1000:10.1f} {p99["protected"]:22.1f} {p99["unprotected"]:24.1f} {ratio:8.0f}')
PY
done
