#!/usr/bin/env bash
# Writes the Gradescope autograder zip of one lab from the instructors' edition of the
# kit, with setup.sh and run_autograder at its root. Upload it under Configure Autograder
# (Zip file upload).
#
# The reference solution is checked here, on your machine, and never shipped: first the
# reference is graded as a submission would be, hidden scenarios included, and must get
# full marks; then the zip is made from the edition of that lab alone, with its hidden
# scenarios (`grader release LAB --hidden`: no solutions, mutants, instructors' notes,
# grader tests or other labs). The bundle records its lab (its edition.json holds that
# lab only), so nothing has to be set on Gradescope.
#
# Usage: ci/gradescope/make_bundle.sh LAB [OUT.zip]   (default OUT: ./autograder-LAB.zip)
# Environment: GRADER, a grader program to use instead of building the kit's.
# Exit status: 0 written; 1 the reference does not get full marks (nothing written);
# 3 no lab or an unknown one given, or a tool missing.
set -euo pipefail

kit=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
labs=()
for manifest in "$kit"/labs/*/lab.json; do
  [ -f "$manifest" ] && labs+=("$(basename "$(dirname "$manifest")")")
done
lab=${1:-${LAB:-}}
if [ -z "$lab" ]; then
  echo "error: name the lab to bundle: make_bundle.sh LAB [OUT.zip], LAB one of: ${labs[*]}" >&2
  exit 3
fi
case " ${labs[*]} " in
  *" $lab "*) ;;
  *) echo "error: $lab is not a lab of the kit in $kit, which holds: ${labs[*]}" >&2; exit 3 ;;
esac
out=${2:-autograder-$lab.zip}
case $out in /*) ;; *) out="$PWD/$out" ;; esac
for tool in zip sed; do
  command -v "$tool" >/dev/null || { echo "error: $tool is not installed (apt-get install $tool)" >&2; exit 3; }
done
mkdir -p "$(dirname "$out")"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

grader=${GRADER:-}
if [ -z "$grader" ]; then
  echo "building the grader ..." >&2
  cargo build -q --release --locked -p grader --manifest-path "$kit/Cargo.toml"
  grader="${CARGO_TARGET_DIR:-$kit/target}/release/grader"
  case $grader in /*) ;; *) grader="$PWD/$grader" ;; esac
fi

echo "checking the reference solution of $lab on every scenario, hidden ones included ..." >&2
solution=$(sed -n 's/.*"solution_crate": *"\([^"]*\)".*/\1/p' "$kit/labs/$lab/lab.json")
if [ -z "$solution" ] || [ ! -d "$kit/$solution" ]; then
  echo "error: $kit has no reference solution of $lab (${solution:-solution_crate is not in labs/$lab/lab.json}): bundle from the instructors' kit" >&2
  exit 1
fi
# The reference is the kit's own code: no sandbox needed to grade it here.
if ! "$grader" --kit "$kit" --color never check "$lab" --submission "$kit/$solution" \
  --no-sandbox --format json --output "$stage/reference.json"; then
  echo "error: the reference solution ($solution) does not get full marks; fix the kit before bundling" >&2
  exit 1
fi

echo "writing the edition of $lab with its hidden scenarios ..." >&2
"$grader" --kit "$kit" --color never release "$lab" --hidden --out "$stage/kit" >&2
# The edition's hidden scenarios include the generated ones graded in CI, filled in by
# the reference as the edition was written (Gradescope has no reference to fill them in).
cp "$kit/ci/gradescope/setup.sh" "$kit/ci/gradescope/run_autograder" "$stage/kit/"
chmod +x "$stage/kit/setup.sh" "$stage/kit/run_autograder"
if [ -e "$stage/kit/$solution" ]; then
  echo "error: $solution would be shipped" >&2
  exit 1
fi
rm -f "$out"
(cd "$stage/kit" && zip -qr -X "$out" .)
total=$(sed -n 's/^ *"max_score": *\([0-9]*\),*$/\1/p' "$stage/reference.json" | head -n 1)
echo "wrote $out ($(du -h "$out" | cut -f1)): the edition of $lab, its hidden scenarios and the Gradescope scripts, no reference solution; upload it as the Gradescope autograder" >&2
[ -n "$total" ] || total="total_points (lab.json)"
echo "give the Gradescope assignment $total points in all (visible and hidden scenarios: the reference's score)" >&2
