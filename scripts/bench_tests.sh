#!/usr/bin/env bash
# Times the kit's own test suite, warm (`cargo test --workspace` with nothing to rebuild),
# for this checkout and another one side by side, alternating so that both meet the same
# load: this, other, other, this, ... Each checkout keeps its own target folder.
# Usage: scripts/bench_tests.sh OTHER_CHECKOUT [ROUNDS]   (default 2 rounds)
# Make the other checkout with, say: git worktree add --detach /tmp/main-kit main
set -euo pipefail
other=$(cd "${1:?usage: scripts/bench_tests.sh OTHER_CHECKOUT [ROUNDS]}" && pwd)
rounds=${2:-2}
this=$(cd "$(dirname "$0")/.." && pwd)
unset CARGO_TARGET_DIR

echo "warming up both (first builds, first runs) ..." >&2
for kit in "$this" "$other"; do
    (cd "$kit" && cargo test --workspace >/dev/null 2>&1) || true
done

time_it() {
    local s e rc
    s=$(date +%s%N)
    (cd "$1" && cargo test --workspace >/dev/null 2>&1) && rc=0 || rc=$?
    e=$(date +%s%N)
    echo "$(( (e - s) / 1000000 )) ms $( [ "$rc" = 0 ] || echo "(failed: $rc)") load $(cut -d' ' -f1 /proc/loadavg)"
}

for round in $(seq 1 "$rounds"); do
    if (( round % 2 )); then order=("$this" "$other"); else order=("$other" "$this"); fi
    for kit in "${order[@]}"; do
        name=this; [ "$kit" = "$other" ] && name=other
        echo "round $round $name: $(time_it "$kit")"
    done
done
