#!/usr/bin/env python3
"""What a schedule of the race checks costs, and whether a change of the explorer keeps
every schedule's outcome.

Runs the race harness the grader built for each variant directly (as race_seeds.py
does), once per race scenario, visible and hidden, and per seed, and prints per lab the
schedules explored, the CPU time they took and the cost of one schedule in microseconds.

With BASELINE (a folder holding an earlier build's race harnesses, laid out as the work
folder is: LAB/cargo/debug/lab_race_VARIANT), each run is made with both binaries in
turn, under the same load, and the two results files must say the same, object ids
aside (they are addresses): the same schedules found the same outcomes, broke the same
property, and told the same story. The ratio of the CPU times is printed.

Build the variants first with the audit (it leaves their race harnesses in the lab's
work folder), and keep a baseline by copying them before the change:
    cargo run -p grader -- audit lab4 --runs 1 --generated 0 --scenario race_... ...
    mkdir -p /tmp/base/lab4/cargo/debug && cp target/grader/lab4/cargo/debug/lab_race_* /tmp/base/lab4/cargo/debug/
Usage: scripts/race_cost.py [--baseline DIR] [--seeds N] LAB:VARIANT...
    VARIANT: solution, alternative_NAME or mutant_NAME
e.g.: scripts/race_cost.py --baseline /tmp/base --seeds 3 lab4:solution lab5:mutant_probe_check_then_count
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from race_seeds import KIT, plan  # noqa: E402


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(binary, the_plan):
    """CPU seconds and the results file's text of one exploration."""
    path = the_plan["results_path"]
    if os.path.exists(path):
        os.remove(path)
    before = children_cpu()
    subprocess.run([str(binary)], input=json.dumps(the_plan).encode(),
                   capture_output=True, timeout=600, check=False)
    spent = children_cpu() - before
    text = Path(path).read_text() if os.path.exists(path) else ""
    return spent, text


def same_story(text):
    """The results with each object's id (its address, which changes from run to run)
    replaced by its rank of first appearance in its line (a story tells objects apart
    within itself only), and places in the explorer's own code without their line, so two
    runs compare as equal when they told the same story of the same schedules."""
    ids = {}

    def renumber(value):
        if isinstance(value, dict):
            return {k: (ids.setdefault(v, len(ids)) if k == "id" and isinstance(v, int)
                        and "name" in value else renumber(v)) for k, v in value.items()}
        if isinstance(value, str) and "grader/race/" in value:
            # A place in the explorer's own code, which the change may have moved.
            return re.sub(r":\d+:\d+$", "", value)
        if isinstance(value, list):
            return [renumber(v) for v in value]
        return value

    lines = []
    for line in text.splitlines():
        ids.clear()
        lines.append(renumber(json.loads(line)))
    return lines


def explored(text):
    for line in text.splitlines():
        event = json.loads(line)
        if isinstance(event, dict) and "explored" in event:
            return event["explored"]["schedules"]
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    work = Path(os.environ.get("GRADER_WORK_DIR", KIT / "target" / "grader"))
    differ = 0
    with tempfile.TemporaryDirectory() as scratch:
        for item in args.variants:
            lab, _, variant = item.partition(":")
            name = f"lab_race_{variant}"
            binary = work / lab / "cargo" / "debug" / name
            if not binary.exists():
                sys.exit(f"race_cost: no race harness at {binary}: run the audit first")
            base = Path(args.baseline) / lab / "cargo" / "debug" / name if args.baseline else None
            if base is not None and not base.exists():
                sys.exit(f"race_cost: no baseline harness at {base}")
            races = sorted(p.stem for folder in ("scenarios", "hidden")
                           for p in (KIT / "labs" / lab / folder).glob("race_*.json"))
            schedules, cpu, base_cpu = 0, 0.0, 0.0
            for scenario in races:
                for seed in range(1, args.seeds + 1):
                    results = os.path.join(scratch, "results.jsonl")
                    the_plan = plan(lab, scenario, seed, results)
                    spent, text = run(binary, the_plan)
                    cpu += spent
                    schedules += explored(text)
                    if base is not None:
                        base_spent, base_text = run(base, the_plan)
                        base_cpu += base_spent
                        if same_story(base_text) != same_story(text):
                            differ += 1
                            print(f"  DIFFERS: {item} {scenario} seed {seed}", flush=True)
            line = (f"{item}: {schedules} schedules over {len(races)} scenarios x "
                    f"{args.seeds} seeds, {cpu:.2f} s CPU, "
                    f"{1e6 * cpu / max(schedules, 1):.0f} us a schedule")
            if base is not None:
                line += (f"; baseline {base_cpu:.2f} s CPU, "
                         f"{1e6 * base_cpu / max(schedules, 1):.0f} us a schedule, "
                         f"ratio {base_cpu / max(cpu, 1e-9):.2f}x")
            print(line, flush=True)
    if differ:
        sys.exit(f"race_cost: {differ} results differ from the baseline's")


if __name__ == "__main__":
    main()
