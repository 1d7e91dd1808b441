#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image. The kit is the
# content of the autograder zip, unpacked in /autograder/source (make_bundle.sh writes it).
# It installs Rust, builds the grader, and grades the reference solution once: that both
# checks the kit (the reference must get full marks) and compiles everything a submission
# shares, so each submission then costs one small build.
set -euxo pipefail

KIT=${GRADER_KIT:-/autograder/source}
LAB=${GRADER_LAB:-lab4}
TOOLCHAIN=${RUST_TOOLCHAIN:-stable}

if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get install -y --no-install-recommends curl ca-certificates build-essential
  fi
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
    sh -s -- -y --profile minimal --default-toolchain "$TOOLCHAIN"
fi
export PATH="$HOME/.cargo/bin:$PATH"

cd "$KIT"
cargo build --release --locked -p grader
./target/release/grader --color never check "$LAB" --solution --format json >/dev/null
