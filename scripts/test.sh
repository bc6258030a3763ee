#!/usr/bin/env bash
# The project's test command (README, .ci/run): installs what the tests need, then runs
# format, lint, the test suite (nextest) and the doc tests. Works on a fresh Debian 12 machine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

step() { printf '\n==> %s\n' "$*"; }
started=$SECONDS

step "setup (apt packages, .venv with pymavlink, test model)"
scripts/setup.sh
# shellcheck disable=SC1091
. .venv/alpha3-env

# llama.cpp's cmake build picks ccache up when it is installed; keep its cache in the
# project so repeated CI runs on the same machine reuse it.
export CCACHE_DIR="${CCACHE_DIR:-$ROOT/target/ccache}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo nextest (the test suite)"
cargo nextest run --workspace --locked --no-fail-fast

step "doc tests"
cargo test --workspace --doc --locked

printf '\n==> all checks passed in %ss\n' "$((SECONDS - started))"
