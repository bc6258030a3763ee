#!/usr/bin/env bash
# The project's test command (README, .ci/run): installs what the tests need, then runs
# format, lint, the API docs, the test suite (nextest) and the doc tests. Works on a fresh Debian 12 machine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

step() { printf '\n==> %s\n' "$*"; }
started=$SECONDS

# On a failure, end with the machine's state: CI shows only the tail of the output, and a
# compiler killed by a full disk or by memory pressure prints little of its own.
on_error() {
    local rc=$?
    printf '\n==> failed (exit %d) after %ss; disk and memory at the failure:\n' "$rc" "$((SECONDS - started))"
    df -h "$ROOT" /tmp 2>/dev/null || true
    du -sh "${CARGO_TARGET_DIR:-$ROOT/target}" 2>/dev/null || true
    free -m 2>/dev/null || true
    exit "$rc"
}
trap on_error ERR

step "setup (apt packages, .venv with pymavlink, test model)"
scripts/setup.sh
# shellcheck disable=SC1091
. .venv/alpha3-env

step "ArduPilot SITL (../shared/ardupilot/build.sh, cached outside the clone)"
# The ArduPilot tests (runtime/tests/ardupilot_conformance.rs, sitl_ardupilot.rs) fly a real
# ArduCopter SITL. build.sh skips every step already done: under a second on a warm machine,
# ~18 min of compiling on a fresh 2-core one. Without the bundle those tests skip (and fail
# under CI=true).
export ARDUPILOT_SITL_HOME="${ARDUPILOT_SITL_HOME:-$HOME/.cache/ardupilot-sitl}"
ardupilot_build="$ROOT/../shared/ardupilot/build.sh"
if [[ -f "$ardupilot_build" ]]; then
    ardupilot_started=$SECONDS
    bash "$ardupilot_build" "$ARDUPILOT_SITL_HOME"
    printf 'ArduPilot SITL ready in %ss\n' "$((SECONDS - ardupilot_started))"
else
    printf 'no %s: the ArduPilot SITL tests will skip\n' "$ardupilot_build"
fi

step "PX4 SITL (the real autopilot the end-to-end tests fly; built once into a cache)"
PX4_SITL_HOME="$(scripts/px4-sitl.sh)"
export PX4_SITL_HOME

# llama.cpp's cmake build picks ccache up when it is installed; keep its cache in the
# project so repeated CI runs on the same machine reuse it.
export CCACHE_DIR="${CCACHE_DIR:-${CARGO_TARGET_DIR:-$ROOT/target}/ccache}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# A CI run builds once: incremental caches would only take disk (gigabytes for this workspace).
if [[ "${CI:-}" == "true" ]]; then
    export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The README's main job builds alpha3 without its default features (no MCP server, no OpenAI
# backend): that build is checked too.
cargo clippy -p alpha3 --no-default-features --lib --bins --locked -- -D warnings

step "cargo doc (warnings are errors: broken or private links in the API docs)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

step "cargo nextest (the test suite)"
cargo nextest run --workspace --locked --no-fail-fast

step "doc tests"
cargo test --workspace --doc --locked

printf '\n==> all checks passed in %ss\n' "$((SECONDS - started))"
