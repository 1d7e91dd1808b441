#!/usr/bin/env bash
# Measures what the page of timelines adds to a full lab run with nothing to rebuild:
# `grader check LAB --solution` (every visible scenario of the reference, every one run to
# the end, the page written) against the same run with `--no-page`, taking turns at going
# first, ROUNDS times each. Prints the medians of wall time and of CPU time (the grader
# and every scenario's process, read from the kernel's accounting of children, to the
# microsecond), and what the page adds to each in percent (the goal: under 10%).
# Usage: scripts/page_cost.sh [ROUNDS] [LAB...]   (default: 15 rounds, lab4 lab5 lab6)
set -euo pipefail
rounds=${1:-15}
shift || true
labs=("$@")
[ ${#labs[@]} -gt 0 ] || labs=(lab4 lab5 lab6)
kit=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "building the grader ..." >&2
cargo build -q --release -p grader --manifest-path "$kit/Cargo.toml"
# Measured from a copy: rebuilding the kit meanwhile cannot change what runs.
cp "$kit/target/release/grader" "$scratch/grader"
cd "$kit"

for lab in "${labs[@]}"; do
  echo "warming up $lab (first builds) ..." >&2
  "$scratch/grader" check "$lab" --solution --no-page >/dev/null 2>&1 || true
done
echo "rounds: $rounds (medians, milliseconds, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
python3 - "$scratch/grader" "$rounds" "$kit" "${labs[@]}" <<'PY'
import os, resource, statistics, subprocess, sys, time

grader, rounds, kit, labs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]

def run(args):
    """Wall and CPU milliseconds of one run of the grader and all it started."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run([grader, "check", *args], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000

def percent(new, old):
    return f"{(new - old) * 100 / old:+.1f}%"

for lab in labs:
    with_page, without = [], []
    for i in range(rounds):
        order = [(with_page, [lab, "--solution"]), (without, [lab, "--solution", "--no-page"])]
        for into, args in (order if i % 2 else order[::-1]):
            into.append(run(args))
    wall_w = statistics.median(w for w, _ in with_page)
    wall_o = statistics.median(w for w, _ in without)
    cpu_w = statistics.median(c for _, c in with_page)
    cpu_o = statistics.median(c for _, c in without)
    page = os.path.join(kit, "target", "grader", lab, "timeline.html")
    size = os.path.getsize(page) // 1024 if os.path.exists(page) else 0
    scenarios = len(os.listdir(os.path.join(kit, "labs", lab, "scenarios")))
    print(f"{lab}, {scenarios} scenarios, a page of {size} kB:")
    print(f"  wall: {wall_o:.0f} ms without the page, {wall_w:.0f} ms with it ({percent(wall_w, wall_o)})")
    print(f"  CPU:  {cpu_o:.0f} ms without the page, {cpu_w:.0f} ms with it ({percent(cpu_w, cpu_o)})")
PY
