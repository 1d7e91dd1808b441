#!/usr/bin/env bash
# A new course's path through one lab, as its instructor, its teaching assistant and its
# students walk it, following only the docs. .ci/run runs it for every lab; it is too slow
# for cargo test.
#
#  1. `grader release LAB`; the edition, committed to git and cloned into a folder only
#     its owner may enter (mode 700, under /tmp): from an empty CARGO_HOME, the README's
#     first command scores the skeleton 0 with "Start here" at a todo!() of the student
#     crate, and its second command passes;
#  2. no file of the edition names another lab's crate or handout;
#  3. `grader grade LAB DIR` there, from another empty CARGO_HOME (always empty) after
#     only `cargo build -p grader`, grades (the sandboxed builds fetch what they need);
#  4. the edition's ci/github/grade.sh, run as its workflow runs it (LAB from the
#     workflow's matrix), grades LAB and passes the reference at 100%;
#  5. the Gradescope bundle made for LAB, unzipped into a scratch autograder root:
#     setup.sh, then run_autograder writes full marks for the reference's files and 0 for
#     the skeleton's, with no variable naming the lab;
#  6. PrairieLearn: make_course.sh's question and hidden scenarios, and its run script
#     on the reference and on the skeleton: every documented field, scores as fractions,
#     the hidden scenarios counted and not described.
#
# Usage: scripts/course_path.sh LAB [SCRATCH]
# SCRATCH (default: target/course-path) keeps what labs can share: cargo's target folder
# (CARGO_TARGET_DIR, so the crates.io dependencies compile once for every lab, and so the
# grader is seen to respect it) and, once the first lab has downloaded them from
# crates.io into an empty CARGO_HOME, a copy of those downloads that later labs start
# from (COURSE_PATH_FRESH_HOME=1 gives every lab an empty one).
# Prints one line per check and the time each part took; exits 1 at the first failure.
set -euo pipefail
kit=$(cd "$(dirname "$0")/.." && pwd)
lab=${1:?usage: scripts/course_path.sh LAB [SCRATCH]}
scratch=${2:-$kit/target/course-path}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
here=$scratch/$lab
rm -rf "$here"
mkdir -p "$here"
export CARGO_TARGET_DIR=$scratch/target
export NO_COLOR=1 CARGO_TERM_COLOR=never
unset GRADER_WORK_DIR GRADER_LAB LAB
started=$SECONDS
part=$SECONDS
fail() { echo "course path $lab: FAILED: $*" >&2; exit 1; }
ok() { echo "course path $lab: ok: $* ($((SECONDS - part)) s)" >&2; part=$SECONDS; }
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

# The instructors' grader, built as the kit's tests build it.
(cd "$kit" && CARGO_TARGET_DIR="$kit/target" cargo build -q -p grader)
grader=$kit/target/debug/grader
manifest=$kit/labs/$lab/lab.json
[ -f "$manifest" ] || fail "no lab $lab in $kit"
read -r student package solution total < <(python3 - "$manifest" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(m["student_crate"], m["student_package"], m["solution_crate"], m["total_points"])
PY
)
mapfile -t files < <(python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["student_files"]))' "$manifest")

# Submissions: the reference's files and the skeleton's, as a student's repository and as
# a Gradescope or PrairieLearn upload (the files alone).
for who in reference skeleton; do
  from=$kit/$solution
  [ $who = skeleton ] && from=$kit/$student
  for f in "${files[@]}"; do
    install -D -m 644 "$from/$f" "$here/subs/$who/$student/$f"
    install -D -m 644 "$from/$f" "$here/flat/$who/$(basename "$f")"
  done
done

# 1. The edition, cloned into a private folder, from an empty CARGO_HOME.
"$grader" --kit "$kit" release "$lab" --out "$here/edition" 2>"$here/release.log" ||
  fail "grader release $lab: $(cat "$here/release.log")"
git -C "$here/edition" init -q
git -C "$here/edition" add -A
git -C "$here/edition" -c user.name=course -c user.email=course@example.invalid commit -qm "the edition of $lab"
private=$(mktemp -d /tmp/course-path-XXXXXX)
chmod 700 "$private"
trap 'rm -rf "$private"' EXIT
git clone -q "$here/edition" "$private/kit"
edition=$private/kit
ok "released and cloned into $private (mode $(stat -c %a "$private"))"

seed=$scratch/cargo-home-seed
fresh_home() { # an empty CARGO_HOME, or the first lab's downloads
  rm -rf "$1"
  if [ -d "$seed" ] && [ -z "${COURSE_PATH_FRESH_HOME:-}" ]; then cp -a "$seed" "$1"; else mkdir -p "$1"; fi
}
fresh_home "$here/home-readme"
readme_commands=$(sed -n '/^## Two commands/,/^## /p' "$edition/README.md" | sed -n '/^```sh/,/^```/p' | grep -v '^#\|^```')
first=$(sed -n 1p <<<"$readme_commands")
second=$(sed -n 2p <<<"$readme_commands")
[ "$first" = "cargo run -p grader -- check $lab" ] || fail "the README's first command is '$first'"
[ "$second" = "cargo test --workspace" ] || fail "the README's second command is '$second'"
set +e
(cd "$edition" && CARGO_HOME=$here/home-readme $first >"$here/first.txt" 2>"$here/first.err")
status=$?
set -e
[ $status -eq 1 ] || fail "'$first' exited with $status: $(tail -n 20 "$here/first.err")"
grep -q "^Start here:" "$here/first.txt" || fail "no Start here in: $(head -n 20 "$here/first.txt")"
sed -n '/^Start here:/,/^$/p' "$here/first.txt" | grep -q "todo!() at $student/src/" ||
  fail "Start here is not at a todo!() of $student: $(sed -n '/^Start here:/,/^$/p' "$here/first.txt")"
(cd "$edition" && CARGO_HOME=$here/home-readme cargo run -q -p grader -- check "$lab" --format json -o "$here/first.json" 2>/dev/null) || true
[ "$(field "$here/first.json" score)" = 0 ] || fail "the skeleton scores $(field "$here/first.json" score)"
[ -d "$seed" ] || cp -a "$here/home-readme" "$seed"
ok "from an empty CARGO_HOME, '$first' scores the skeleton 0, Start here at a todo!() of $student"
(cd "$edition" && CARGO_HOME=$here/home-readme $second >"$here/second.txt" 2>&1) ||
  fail "'$second' failed: $(grep -E '^(test .* FAILED|failures:|error)' "$here/second.txt" | head -n 20)"
ok "'$second' passes in the edition"

# 2. No file names another lab's crate or handout.
others=$(python3 - "$kit" "$lab" <<'PY'
import json, pathlib, sys
kit, lab = pathlib.Path(sys.argv[1]), sys.argv[2]
for m in sorted(kit.glob("labs/*/lab.json")):
    other = m.parent.name
    if other == lab:
        continue
    data = json.loads(m.read_text())
    for name in (data["student_package"], data["solution_package"], f"{other}_plugin",
                 f"{other}_harness", f"labs/{other}/README.md", data["student_crate"]):
        print(name)
PY
)
while read -r needle; do
  [ -n "$needle" ] || continue
  hits=$(cd "$edition" && grep -rlw --exclude-dir=.git -F -- "$needle" . || true)
  [ -z "$hits" ] || fail "the edition names $needle in: $hits"
done <<<"$others"
ok "no file names another lab's crate or handout"

# 3. `grader grade` on a fresh machine, after only `cargo build -p grader`: always from an
# empty CARGO_HOME, since what the sandboxed builds need beyond the grader's own crates
# is what this step checks is downloaded.
rm -rf "$here/home-grade"
mkdir -p "$here/home-grade"
(cd "$edition" && CARGO_HOME=$here/home-grade cargo build -q -p grader 2>"$here/build.err") ||
  fail "cargo build -p grader: $(tail "$here/build.err")"
set +e
(cd "$edition" && CARGO_HOME=$here/home-grade "$CARGO_TARGET_DIR/debug/grader" grade "$lab" "$here/subs" \
  --results-dir "$here/grades" >"$here/grade.out" 2>"$here/grade.err")
status=$?
set -e
[ $status -eq 0 ] || fail "grader grade exited with $status: $(tail -n 20 "$here/grade.err")"
python3 - "$here/grades/gradebook.json" "$total" <<'PY' || fail "the gradebook: $(cat "$here/grades/gradebook.csv")"
import json, sys
book = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in book["rows"]} if "rows" in book else {r["name"]: r for r in book["submissions"]}
assert all(r["status"] == "graded" for r in rows.values()), rows
assert rows["skeleton"]["score"] == 0, rows["skeleton"]
assert rows["reference"]["score"] == rows["reference"]["max_score"], rows["reference"]
PY
ok "grader grade $lab grades from a fresh CARGO_HOME (reference full marks, skeleton 0)"

# 4. The edition's grade.sh as its workflow runs it.
workflow_lab=$(sed -n 's/^ *lab: \[\(.*\)\]$/\1/p' "$edition/ci/github/grade.yml")
[ "$workflow_lab" = "$lab" ] || fail "the edition's workflow grades [$workflow_lab]"
set +e
(cd "$here" && KIT=$edition LAB=$workflow_lab SUBMISSION=$here/subs/reference RESULTS=$here/gh \
  PASS_MARK=100% GRADER=$CARGO_TARGET_DIR/debug/grader GITHUB_STEP_SUMMARY=$here/summary.md \
  bash "$edition/ci/github/grade.sh" >"$here/gh.out" 2>"$here/gh.err")
status=$?
set -e
[ $status -eq 0 ] || fail "grade.sh exited with $status: $(tail "$here/gh.err")"
[ "$(field "$here/gh/results.json" lab)" = "$lab" ] || fail "grade.sh graded $(field "$here/gh/results.json" lab)"
set +e
(cd "$here" && KIT=$edition SUBMISSION=$here/subs/skeleton RESULTS=$here/gh-none GRADER=$CARGO_TARGET_DIR/debug/grader \
  LAB=nolab bash "$edition/ci/github/grade.sh" >/dev/null 2>"$here/gh-none.err")
status=$?
set -e
[ $status -eq 3 ] || fail "grade.sh with LAB=nolab exited with $status, not 3"
ok "the edition's grade.sh grades $lab (reference at 100%), and a wrong LAB is exit 3"

# 5. The Gradescope bundle, unzipped into a scratch autograder root.
GRADER=$grader bash "$kit/ci/gradescope/make_bundle.sh" "$lab" "$here/autograder.zip" 2>"$here/bundle.err" ||
  fail "make_bundle.sh: $(tail "$here/bundle.err")"
root=$here/autograder
mkdir -p "$root/source" "$root/results"
unzip -q "$here/autograder.zip" -d "$root/source"
(GRADER_KIT=$root/source CARGO_HOME=$here/home-readme bash "$root/source/setup.sh" >"$here/setup.log" 2>&1) ||
  fail "setup.sh: $(tail -n 20 "$here/setup.log")"
for who in reference skeleton; do
  rm -rf "$root/submission" "$root/results"
  cp -r "$here/flat/$who" "$root/submission"
  (AUTOGRADER_ROOT=$root GRADER_KIT=$root/source CARGO_HOME=$here/home-readme \
    bash "$root/source/run_autograder" >"$here/ag-$who.log" 2>&1) || fail "run_autograder ($who): $(tail "$here/ag-$who.log")"
  cp "$root/results/results.json" "$here/gradescope-$who.json"
done
python3 - "$here/gradescope-reference.json" "$here/gradescope-skeleton.json" "$total" <<'PY' || fail "Gradescope results"
import json, sys
ref, skel, total = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3])
assert ref["score"] == total, (ref["score"], total)
assert sum(t["max_score"] for t in ref["tests"]) == total
assert any(t["visibility"] == "after_published" for t in ref["tests"]), "no hidden scenario ran"
assert skel["score"] == 0, skel["score"]
PY
ok "the Gradescope bundle: setup.sh, then run_autograder: the reference $total/$total, the skeleton 0"

# 6. PrairieLearn.
GRADER=$grader bash "$kit/ci/prairielearn/make_course.sh" "$lab" "$here/pl" 2>"$here/pl.err" ||
  fail "make_course.sh: $(tail "$here/pl.err")"
for who in reference skeleton; do
  plroot=$here/pl-$who
  mkdir -p "$plroot"
  cp -r "$here/flat/$who" "$plroot/student"
  cp -r "$here/pl/course/serverFilesCourse" "$plroot/serverFilesCourse"
  (PL_GRADE_ROOT=$plroot GRADER_KIT=$edition GRADER_BIN=$CARGO_TARGET_DIR/debug/grader CARGO_HOME=$here/home-readme \
    "$here/pl/image/run" "$lab" >"$here/pl-$who.log" 2>&1) || fail "PrairieLearn run ($who): $(tail "$here/pl-$who.log")"
done
python3 - "$here/pl-reference/results/results.json" "$here/pl-skeleton/results/results.json" \
  "$here/pl/course/questions/$lab/info.json" "$kit/labs/$lab/hidden" <<'PY' || fail "PrairieLearn results"
import json, pathlib, sys
ref, skel, info = (json.load(open(p)) for p in sys.argv[1:4])
hidden = [p.stem for p in pathlib.Path(sys.argv[4]).glob("*.json")]
for r in (ref, skel):
    for field in ("gradable", "score", "message", "output", "images", "tests"):
        assert field in r, field
    assert 0.0 <= r["score"] <= 1.0
    for t in r["tests"]:
        for field in ("name", "description", "points", "max_points", "message", "output", "images"):
            assert field in t, (field, t)
    text = json.dumps(r)
    assert not any(h in text for h in hidden), "a hidden scenario is described"
    assert any(t["name"] == "hidden scenarios" for t in r["tests"]), "the hidden scenarios are not counted"
assert ref["gradable"] and ref["score"] == 1.0, ref["score"]
assert skel["gradable"] and skel["score"] == 0.0, skel["score"]
opts = info["externalGradingOptions"]
assert info["gradingMethod"] == "External" and info["type"] == "v3"
assert opts["entrypoint"][0] == "/grader/run" and not opts["enableNetworking"]
PY
ok "PrairieLearn: the reference 1.0, the skeleton 0.0, every documented field, hidden counted not described"
echo "course path $lab: passed in $((SECONDS - started)) s" >&2
