#!/usr/bin/env python3
"""How many schedules a lab's race checks need to find each racy variant, over many seeds.

Runs the race harness the grader built for each variant (reference, alternative or mutant)
directly, once per race scenario the variant's file names (every race scenario, visible
and hidden, for a correct variant) and per seed, with the lab's other race settings, and
prints, per pair, on how many seeds a property broke, after how many schedules (median and
most), and which properties. A correct variant must break none on any seed; a racy mutant should be found
well inside the lab's `schedules` on every seed.

Build the variants first with the audit, which leaves their race harnesses in the lab's
work folder:
    cargo run -p grader -- audit lab5 --runs 1 --mutant NAME ... --scenario race_...
Usage: scripts/race_seeds.py LAB SEEDS VARIANT...
    VARIANT: solution, alternative_NAME or mutant_NAME
e.g.: scripts/race_seeds.py lab5 30 solution mutant_probe_check_then_count
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
PROTOCOL = 2
# What a lab's plug-in fills in for a step's fields left out (the plan carries them all).
DEFAULTS = {
    "lab6": {"send": {"instance": 1, "layers": 1}, "send_concurrent": {"instance": 1}},
}
# Steps whose plan action wraps the step's value in a field.
WRAPPED = {"lab6": {"wake_order": "order"}}


def scenario_file(lab, name):
    """The file of scenario `name`, visible or hidden."""
    for folder in ("scenarios", "hidden"):
        path = KIT / "labs" / lab / folder / f"{name}.json"
        if path.exists():
            return path
    sys.exit(f"race_seeds: no scenario {name} in {lab}")


def plan(lab, scenario, seed, results):
    """The plan the grader would send for `scenario`, with another seed."""
    manifest = json.loads((KIT / "labs" / lab / "lab.json").read_text())
    scenario = json.loads(scenario_file(lab, scenario).read_text())
    targets = []
    for t in manifest["targets"]:
        settings = {k: v for k, v in t.items() if k != "name"}
        settings.update(scenario.get("targets", {}).get(t["name"], {}))
        targets.append({"name": t["name"], "settings": settings})
    actions = []
    for step in scenario["steps"]:
        ((kind, fields),) = step.items()
        if kind.startswith("expect"):
            actions.append("observe")
            continue
        if kind in WRAPPED.get(lab, {}):
            actions.append({kind: {WRAPPED[lab][kind]: fields}})
            continue
        action = {k: v for k, v in fields.items() if not k.startswith("expect")}
        if kind == "send":
            action.setdefault("count", 1)
        if kind == "release":
            action.setdefault("count", None)
        for key, value in DEFAULTS.get(lab, {}).get(kind, {}).items():
            action.setdefault(key, value)
        actions.append({kind: action})
    race = dict(manifest["race"], seed=seed)
    return {"protocol": PROTOCOL, "results_path": results, "stuck_after_ms": 2000,
            "targets": targets, "actions": actions, "race": race}


def explore(binary, the_plan):
    """(schedule, property) of the first broken property, or None."""
    subprocess.run([binary], input=json.dumps(the_plan).encode(), capture_output=True,
                   timeout=600, check=False)
    schedule = None
    with open(the_plan["results_path"]) as results:
        for line in results:
            event = json.loads(line)
            if isinstance(event, dict) and "schedule" in event:
                schedule = event["schedule"]["index"]
            if isinstance(event, dict) and "violation" in event:
                return schedule, event["violation"]["property"]
    return None


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    lab, seeds, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    work = Path(os.environ.get("GRADER_WORK_DIR", KIT / "target" / "grader"))
    races = sorted(p.stem for folder in ("scenarios", "hidden")
                   for p in (KIT / "labs" / lab / folder).glob("race_*.json"))
    with tempfile.TemporaryDirectory() as scratch:
        for variant in variants:
            binary = work / lab / "cargo" / "debug" / f"lab_race_{variant}"
            if not binary.exists():
                sys.exit(f"race_seeds: no race harness at {binary}: run the audit first")
            scenarios = races
            if variant.startswith("mutant_"):
                mutant = KIT / "labs" / lab / "mutants" / f"{variant[len('mutant_'):]}.json"
                named = json.loads(mutant.read_text())["caught_by"]
                scenarios = [s for s in named if s in races]
            for scenario in scenarios:
                found, properties = [], set()
                for seed in range(1, seeds + 1):
                    results = os.path.join(scratch, "results.jsonl")
                    if os.path.exists(results):
                        os.remove(results)
                    broke = explore(binary, plan(lab, scenario, seed, results))
                    if broke:
                        found.append(broke[0] or 0)
                        properties.add(broke[1])
                found.sort()
                most = f"median {found[len(found) // 2]}, most {found[-1]}" if found else "-"
                print(f"{variant} {scenario}: broke on {len(found)} of {seeds} seeds "
                      f"(schedules: {most}) {sorted(properties)}", flush=True)


if __name__ == "__main__":
    main()
