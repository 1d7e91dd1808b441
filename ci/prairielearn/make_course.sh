#!/usr/bin/env bash
# Writes what a PrairieLearn course needs to grade one lab, from the instructors' kit:
#
#   OUT/image/                          the grading image's folder: the lab's student
#                                       edition, setup.sh, run and the Dockerfile
#   OUT/course/questions/LAB/           the question: info.json (external grading in that
#                                       image) and question.html (the file upload)
#   OUT/course/serverFilesCourse/resilience/LAB/hidden/
#                                       the lab's hidden scenarios, which reach each
#                                       grading job and never the image
#
# First the reference solution is graded as a submission, hidden scenarios included, and
# must get full marks, as for the Gradescope bundle. docs/ci.md says what to do next.
#
# Usage: ci/prairielearn/make_course.sh LAB OUT [IMAGE]   (IMAGE: the image's name on
# Docker Hub, default your-course/resilience-LAB)
# Environment: GRADER, a grader program to use instead of building the kit's.
set -euo pipefail

kit=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
labs=()
for manifest in "$kit"/labs/*/lab.json; do
  [ -f "$manifest" ] && labs+=("$(basename "$(dirname "$manifest")")")
done
lab=${1:-}
out=${2:-}
if [ -z "$lab" ] || [ -z "$out" ]; then
  echo "error: usage: make_course.sh LAB OUT [IMAGE], LAB one of: ${labs[*]}" >&2
  exit 3
fi
case " ${labs[*]} " in
  *" $lab "*) ;;
  *) echo "error: $lab is not a lab of the kit in $kit, which holds: ${labs[*]}" >&2; exit 3 ;;
esac
image=${3:-your-course/resilience-$lab}
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "error: $out exists and is not empty; give a new folder" >&2
  exit 3
fi
grader=${GRADER:-}
if [ -z "$grader" ]; then
  echo "building the grader ..." >&2
  cargo build -q --release --locked -p grader --manifest-path "$kit/Cargo.toml"
  grader="${CARGO_TARGET_DIR:-$kit/target}/release/grader"
fi
solution=$(sed -n 's/.*"solution_crate": *"\([^"]*\)".*/\1/p' "$kit/labs/$lab/lab.json")
echo "checking the reference solution of $lab on every scenario, hidden ones included ..." >&2
if ! "$grader" --kit "$kit" --color never check "$lab" --submission "$kit/$solution" \
  --no-sandbox --format prairielearn --output /dev/null; then
  echo "error: the reference solution ($solution) does not get full marks; fix the kit first" >&2
  exit 1
fi
mkdir -p "$out"
"$grader" --kit "$kit" --color never release "$lab" --out "$out/image" >&2
cp "$kit/ci/gradescope/setup.sh" "$kit/ci/prairielearn/run" "$kit/ci/prairielearn/Dockerfile" "$out/image/"
chmod +x "$out/image/setup.sh" "$out/image/run"
hidden="$out/course/serverFilesCourse/resilience/$lab/hidden"
mkdir -p "$hidden"
# The hidden scenarios, the generated ones graded in CI among them (filled in by the
# reference as an edition with --hidden is written), go to the course's server files.
full=$(mktemp -d)
trap 'rm -rf "$full"' EXIT
"$grader" --kit "$kit" --color never release "$lab" --hidden --out "$full/kit" >&2
if [ -d "$full/kit/labs/$lab/hidden" ]; then cp "$full/kit/labs/$lab/hidden"/*.json "$hidden"/; fi
question="$out/course/questions/$lab"
mkdir -p "$question"
python3 - "$kit/labs/$lab/lab.json" "$question" "$image" "$lab" <<'PY'
import html, json, sys, uuid
manifest, question, image, lab = sys.argv[1:5]
m = json.load(open(manifest))
files = [f.rsplit("/", 1)[-1] for f in m["student_files"]]
info = {
    "uuid": str(uuid.uuid4()),
    "type": "v3",
    "title": m["title"],
    "topic": "Resilience",
    "tags": [lab],
    "singleVariant": True,
    "gradingMethod": "External",
    "externalGradingOptions": {
        "enabled": True,
        "image": image,
        "entrypoint": ["/grader/run", lab],
        "serverFilesCourse": [f"resilience/{lab}/"],
        "timeout": 300,
        "enableNetworking": False,
    },
}
json.dump(info, open(f"{question}/info.json", "w"), indent=2)
open(f"{question}/info.json", "a").write("\n")
names = ", ".join(f.replace(",", "\\,") for f in files)
open(f"{question}/question.html", "w").write(f"""<pl-question-panel>
  <p>{html.escape(m["title"])}: upload the files you filled in ({html.escape(", ".join(files))}),
  as the handout <code>labs/{lab}/README.md</code> asks. Every visible scenario is graded as
  <code>grader check {lab}</code> grades it on your machine; the hidden ones count too.</p>
</pl-question-panel>
<pl-file-upload file-names="{html.escape(names)}"></pl-file-upload>
<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
""")
PY
echo "wrote $out: build and push the image from $out/image as $image, then copy $out/course into the course repository (docs/ci.md, PrairieLearn)" >&2
