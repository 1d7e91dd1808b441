#!/usr/bin/env bash
# Writes the Gradescope autograder zip: setup.sh and run_autograder at its root, beside
# the kit they grade with. Upload the zip as the assignment's autograder (Configure
# Autograder, Zip file upload). Build it from the instructors' edition of the kit: the
# hidden scenarios then run on Gradescope, which never shows students the zip.
# Usage: ci/gradescope/make_bundle.sh [OUT.zip]   (default: ./autograder.zip)
set -euo pipefail

kit=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-autograder.zip}
case $out in /*) ;; *) out="$PWD/$out" ;; esac
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

if git -C "$kit" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # Tracked files and new ones that are not ignored: never target/ or .git.
  (cd "$kit" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 -I{} sh -c '[ -e "$1" ] && cp --parents -- "$1" "$2"' _ {} "$stage")
else
  tar -C "$kit" --exclude=./target --exclude=./.git -cf - . | tar -C "$stage" -xf -
fi
cp "$kit/ci/gradescope/setup.sh" "$kit/ci/gradescope/run_autograder" "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"
rm -f "$out"
(cd "$stage" && zip -qr -X "$out" .)
echo "wrote $out ($(du -h "$out" | cut -f1)); upload it as the Gradescope autograder" >&2
