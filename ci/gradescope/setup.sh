#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image. The kit is the
# content of the autograder zip, unpacked in /autograder/source (make_bundle.sh writes it:
# the student edition plus the hidden scenarios, no reference solution).
#
# It installs Rust (system-wide, in /usr/local) and bubblewrap, builds the grader, makes
# the hidden scenarios readable by root alone, and grades the kit's untouched student
# crate as a submission once: that proves the sandbox works in this image (setup fails
# here, with the reason, if it does not) and compiles everything submissions share, so
# each submission then costs one small build.
#
# GRADER_NO_SANDBOX=1 grades without the sandbox (see docs/ci.md before doing that); set it
# here and in run_autograder alike.
set -euxo pipefail

KIT=${GRADER_KIT:-/autograder/source}
# The bundle's one lab (make_bundle.sh releases the edition of one lab).
LAB=${GRADER_LAB:-}
if [ -z "$LAB" ]; then
  labs=("$KIT"/labs/*/lab.json)
  if [ ${#labs[@]} -ne 1 ] || [ ! -f "${labs[0]}" ]; then
    echo "setup failed: GRADER_LAB is not set and $KIT holds ${#labs[@]} labs; make the bundle with make_bundle.sh LAB" >&2
    exit 3
  fi
  LAB=$(basename "$(dirname "${labs[0]}")")
fi
TOOLCHAIN=${RUST_TOOLCHAIN:-stable}

missing=()
for tool in curl cc bwrap; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update
  apt-get install -y --no-install-recommends curl ca-certificates build-essential bubblewrap
fi
if [ -x /usr/local/cargo/bin/cargo ] || ! command -v cargo >/dev/null 2>&1; then
  # System-wide, where run_autograder looks for it.
  export RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo
  export PATH="$CARGO_HOME/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
    sh -s -- -y --no-modify-path --profile minimal --default-toolchain "$TOOLCHAIN"
fi

cd "$KIT"
cargo build --release --locked -p grader
cargo fetch --locked


# The hidden scenarios: for the grader (root) alone.
if [ -d "labs/$LAB/hidden" ]; then
  chown -R root:root "labs/$LAB/hidden"
  chmod -R go-rwx "labs/$LAB/hidden"
fi

student=$(sed -n 's/.*"student_crate": *"\([^"]*\)".*/\1/p' "labs/$LAB/lab.json")
flags=()
if [ -n "${GRADER_NO_SANDBOX:-}" ]; then flags+=(--no-sandbox); fi
set +e
"${CARGO_TARGET_DIR:-target}/release/grader" --color never check "$LAB" --submission "$student" "${flags[@]}" \
  --format json --output /tmp/grader-setup.json
status=$?
set -e
# The untouched skeleton is graded (status 1, no points); anything else means the sandbox
# or the kit does not work in this image.
if [ "$status" -ne 1 ]; then
  echo "setup failed: grading the untouched student crate as a submission ended with status $status (see the messages above)" >&2
  exit 1
fi
rm -f /tmp/grader-setup.json
