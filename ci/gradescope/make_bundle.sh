#!/usr/bin/env bash
# Writes the Gradescope autograder zip from the instructors' edition of the kit, with
# setup.sh and run_autograder at its root. Upload it under Configure Autograder (Zip file
# upload).
#
# The reference solution is checked here, on your machine, and never shipped: first the
# reference is graded as a submission would be, hidden scenarios included, and must get
# full marks; then the zip is made from the student edition (`grader release`, which
# leaves out the solutions, the mutants, the instructors' notes and the grader's tests)
# plus the lab's hidden scenarios, which the grader alone reads on Gradescope.
#
# Usage: ci/gradescope/make_bundle.sh [OUT.zip]   (default: ./autograder.zip)
# Environment: LAB (default lab4); GRADER, a grader program to use instead of building
# the kit's.
set -euo pipefail

kit=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-autograder.zip}
case $out in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$(dirname "$out")"
lab=${LAB:-lab4}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

grader=${GRADER:-}
if [ -z "$grader" ]; then
  echo "building the grader ..." >&2
  cargo build -q --release --locked -p grader --manifest-path "$kit/Cargo.toml"
  grader="$kit/target/release/grader"
fi

echo "checking the reference solution on every scenario, hidden ones included ..." >&2
solution=$(sed -n 's/.*"solution_crate": *"\([^"]*\)".*/\1/p' "$kit/labs/$lab/lab.json")
if [ -z "$solution" ] || [ ! -d "$kit/$solution" ]; then
  echo "error: no reference solution in $kit (bundle the instructors' edition)" >&2
  exit 1
fi
# The reference is the kit's own code: no sandbox needed to grade it here.
if ! "$grader" --kit "$kit" --color never check "$lab" --submission "$kit/$solution" \
  --no-sandbox --format json --output "$stage/reference.json"; then
  echo "error: the reference solution ($solution) does not get full marks; fix the kit before bundling" >&2
  exit 1
fi

echo "writing the student edition and the hidden scenarios ..." >&2
"$grader" --kit "$kit" --color never release "$lab" --out "$stage/kit" >&2
if [ -d "$kit/labs/$lab/hidden" ]; then
  cp -R "$kit/labs/$lab/hidden" "$stage/kit/labs/$lab/hidden"
fi
# The generated scenarios graded in CI, as the reference filled them in while it was
# graded above: hidden scenarios of the bundle like the others (Gradescope has no
# reference to fill them in).
seeds="$kit/labs/$lab/generated_seeds.json"
if [ -f "$seeds" ]; then
  from=$(sed -n 's/.*"from": *\([0-9]*\).*/\1/p' "$seeds")
  count=$(sed -n 's/.*"count": *\([0-9]*\).*/\1/p' "$seeds")
  filled="${GRADER_WORK_DIR:-$kit/target/grader}/$lab/generated/filled"
  mkdir -p "$stage/kit/labs/$lab/hidden"
  for seed in $(seq "$from" $((from + count - 1))); do
    cp "$filled/gen_$seed.json" "$stage/kit/labs/$lab/hidden/" || {
      echo "error: the generated scenario of seed $seed was not filled in" >&2
      exit 1
    }
  done
fi
cp "$kit/ci/gradescope/setup.sh" "$kit/ci/gradescope/run_autograder" "$stage/kit/"
chmod +x "$stage/kit/setup.sh" "$stage/kit/run_autograder"
if [ -e "$stage/kit/$solution" ]; then
  echo "error: $solution would be shipped" >&2
  exit 1
fi
rm -f "$out"
(cd "$stage/kit" && zip -qr -X "$out" .)
total=$(sed -n 's/^ *"max_score": *\([0-9]*\),*$/\1/p' "$stage/reference.json" | head -n 1)
echo "wrote $out ($(du -h "$out" | cut -f1)): the student edition, the hidden scenarios and the Gradescope scripts, no reference solution; upload it as the Gradescope autograder" >&2
[ -n "$total" ] || total="total_points (lab.json)"
echo "give the Gradescope assignment $total points in all (visible and hidden scenarios: the reference's score)" >&2
