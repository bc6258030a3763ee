#!/usr/bin/env bash
# The README's main job: a short benchmark of the local LLM agent (Gemma 3 270M through
# llama.cpp) next to the scripted baseline against the built-in world, ending with the report.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh
# shellcheck disable=SC1091
. .venv/alpha3-env
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
export CCACHE_DIR="${CCACHE_DIR:-$TARGET/ccache}"
cargo build --release --locked -p alpha3
exec "$TARGET/release/alpha3" bench --suite configs/bench/short.toml --out "${1:-out/short}"
