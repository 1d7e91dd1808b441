#!/usr/bin/env bash
# Grades a student's repository with a pristine copy of the kit: JUnit and JSON results,
# a summary for the CI page, and a failing status below the pass mark. The GitHub Actions
# workflow next to this file runs it; any CI can.
#
# Environment (all optional):
#   KIT         the kit's folder                      (default: two folders above this script)
#   SUBMISSION  the student's checkout                (default: the current folder)
#   LAB         the lab                               (default: the kit's only lab; required
#                                                      when the kit holds several)
#   PASS_MARK   points to pass, or a percentage ("60%"); 0 fails only when grading fails
#                                                     (default: 0)
#   RESULTS     where results.xml and results.json go (default: grader-results)
#   GRADER      the grader program                    (default: release/grader in cargo's
#                                                      target folder, CARGO_TARGET_DIR or
#                                                      KIT/target, built if missing)
# On GitHub (GITHUB_ACTIONS set) the compiler's errors, the first place to look and the
# real-clock calls become annotations on the student's lines; elsewhere they are printed
# as file:line: lines.
# Exit status: 0 graded and at or above the pass mark; 1 below it; 2 the submission could
# not be graded (a lab file missing or unsafe) or PASS_MARK is not a mark; 3 the grader,
# the kit or this script's configuration (LAB) failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KIT=${KIT:-$(cd "$here/../.." && pwd)}
SUBMISSION=${SUBMISSION:-.}
PASS_MARK=${PASS_MARK:-0}
RESULTS=${RESULTS:-grader-results}
GRADER=${GRADER:-${CARGO_TARGET_DIR:-$KIT/target}/release/grader}

say() { printf '%s\n' "$*" >&2; }
annotate() { # level title message: a GitHub annotation on GitHub, a plain line elsewhere
  if [ -n "${GITHUB_ACTIONS:-}" ]; then printf '::%s title=%s::%s\n' "$1" "$2" "$3"; else say "$1: $2: $3"; fi
}

# Which lab: a configuration of the course's, never the student's fault.
labs=()
for manifest in "$KIT"/labs/*/lab.json; do
  [ -f "$manifest" ] && labs+=("$(basename "$(dirname "$manifest")")")
done
if [ -z "${LAB:-}" ]; then
  if [ ${#labs[@]} -eq 1 ]; then
    LAB=${labs[0]}
  else
    annotate error "Configuration" "LAB is not set and the kit in $KIT holds ${#labs[@]} labs (${labs[*]:-none}): set LAB to one of them in the workflow's env (the matrix's lab)"
    exit 3
  fi
fi
case " ${labs[*]} " in
  *" $LAB "*) ;;
  *) annotate error "Configuration" "LAB=$LAB is not a lab of the kit in $KIT, which holds: ${labs[*]:-no lab at all}; set LAB to one of them"; exit 3 ;;
esac

if [ ! -x "$GRADER" ]; then
  say "building the grader ..."
  cargo build --release --locked -p grader --manifest-path "$KIT/Cargo.toml" || exit 3
fi
mkdir -p "$RESULTS" || exit 3

# JSON first (the score), then JUnit for test reporters with the page of timelines its
# test cases link to; the second run rebuilds nothing.
"$GRADER" --kit "$KIT" --color never check "$LAB" --submission "$SUBMISSION" \
  --format json --output "$RESULTS/results.json"
status=$?
"$GRADER" --kit "$KIT" --color never check "$LAB" --submission "$SUBMISSION" \
  --format junit --output "$RESULTS/results.xml" --page "$RESULTS/timeline.html" 2>/dev/null
case $status in
  0 | 1) ;;
  2) annotate error "Not graded" "the submission could not be graded: see the messages above"; exit 2 ;;
  *) annotate error "Grader failure" "the grader failed (exit status $status); this is not a verdict on the code"; exit 3 ;;
esac

# score, max_score, the category table and the provenance line, from the JSON report;
# the annotations go to a file of their own.
summary=$(python3 - "$RESULTS/results.json" "$RESULTS/annotations.txt" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))

def place(text):
    """file, line and column of a `file:line[:column]` at the start of text."""
    m = re.match(r"\s*([^\s:]+):(\d+)(?::(\d+))?", text or "")
    return (m.group(1), m.group(2), m.group(3)) if m else None

notes = []  # (level, title, (file, line, col), message)
errors = r.get("compile_errors") or ""
header = None
for line in errors.splitlines():
    if re.match(r"^(error|warning)(\[\w+\])?: ", line):
        header = line
    m = re.match(r"^\s*--> (.+)$", line)
    if m and header and header.startswith("error"):
        at = place(m.group(1))
        if at:
            notes.append(("error", "does not compile", at, header))
        header = None
first = next((s for s in r["scenarios"] if s.get("stopped_at")), None)
if not errors and first:
    at = place(first["stopped_at"])
    if at:
        hint = first.get("hint") or ""
        notes.append(("warning", "Start here", at,
                      f"{first['name']} stopped here: {first['stopped_at'].split(': ', 1)[-1]}"
                      + (f". Hint: {hint}" if hint else "")))
for w in r.get("source_warnings") or []:
    at = place(w.get("location"))
    if at:
        notes.append(("warning", "real clock", at, w.get("message", "")))
with open(sys.argv[2], "w") as out:
    def esc(text, prop=False):
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return text.replace(":", "%3A").replace(",", "%2C") if prop else text
    for level, title, (f, l, c), message in notes[:50]:
        message = message.replace("\t", " ")
        props = f"file={esc(f, True)},line={l}" + (f",col={c}" if c else "") + f",title={esc(title, True)}"
        out.write(f"::{level} {props}::{esc(message)}\t{f}:{l}{':' + c if c else ''}: {level}: {title}: {message}\n")
print(r["score"], r["max_score"])
print(f"### {r['lab']}: {r['score']}/{r['max_score']} points\n")
errors = r.get("compile_errors") or ""
if errors:
    # The compiler's own messages, as cargo printed them (already capped by the grader),
    # in the summary and in the job log: the student needs nothing else to fix the build.
    lines = errors.splitlines()
    shown = lines[:200]
    print("**The code does not compile**, so no scenario could run. The compiler said:\n")
    print("```text")
    print("\n".join(line.replace("```", "`\u200b``") for line in shown))
    if len(lines) > len(shown):
        print(f"... {len(lines) - len(shown)} more lines in the job log")
    print("```\n")
    print(errors, file=sys.stderr)
print("| category | points |\n|---|---|")
for c in r["categories"]:
    print(f"| {c['title']} | {c['score']}/{c['max_score']} |")
failed = [s for s in r["scenarios"] if s["status"] != "passed"]
if errors:
    print(f"\n{len(failed)} scenarios not run: the code does not compile.")
elif failed:
    print("\n| scenario | status | why |\n|---|---|---|")
    for s in failed:
        why = s["message"].replace("|", "\\|").replace("\n", " ")
        print(f"| `{s['name']}` | {s['status']} | {why} |")
p = r.get("provenance") or {}
if p:
    print(f"\ngrader {p['kit_version']}, scenarios `{p['scenarios_sha256'][:12]}`, "
          f"student files `{p['student_files_sha256'][:12]}`; "
          f"reproduce with `{p['reproduce']}` at the root of your repository.")
PY
) || { annotate error "Grader failure" "cannot read $RESULTS/results.json"; exit 3; }
read -r score max <<<"$(head -n 1 <<<"$summary")"
# The annotations: workflow commands on GitHub, file:line: lines elsewhere.
if [ -s "$RESULTS/annotations.txt" ]; then
  if [ -n "${GITHUB_ACTIONS:-}" ]; then
    cut -f 1 "$RESULTS/annotations.txt"
  else
    cut -f 2- "$RESULTS/annotations.txt" >&2
  fi
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  tail -n +2 <<<"$summary" >>"$GITHUB_STEP_SUMMARY"
  if [ -f "$RESULTS/timeline.html" ]; then
    printf '\nA picture of every scenario: `timeline.html` in the `grader-results-%s` artifact (open it in a browser).\n' "$LAB" >>"$GITHUB_STEP_SUMMARY"
  fi
fi

case $PASS_MARK in
  *%) need=$(( (max * ${PASS_MARK%\%} + 99) / 100 )) ;;
  *) need=$PASS_MARK ;;
esac
case $need in
  '' | *[!0-9]*) annotate error "Pass mark" "PASS_MARK must be points (110) or a percentage (60%), not '$PASS_MARK'"; exit 2 ;;
esac
if [ "$score" -lt "$need" ]; then
  annotate error "Grade" "$score/$max points, below the pass mark of $need"
  exit 1
fi
annotate notice "Grade" "$score/$max points (pass mark: $need)"
exit 0
