#!/usr/bin/env bash
# Runs the cross-built aarch64 `alpha3 perf --quick --json` under qemu-aarch64 (user-mode
# emulation), as a smoke test that the Arm build starts and measures. Figures under qemu are
# emulation speed, not a Pi's: take real ones on the device (docs/AARCH64.md).
#
#   scripts/aarch64-perf-qemu.sh [extra perf args...]     e.g. --model models/x.gguf
#
# Build first with scripts/aarch64-build.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET_DIR="${ALPHA3_AARCH64_TARGET_DIR:-$ROOT/target-aarch64}"
BIN="$TARGET_DIR/aarch64-unknown-linux-gnu/release/alpha3"

[[ -x "$BIN" ]] || { echo "aarch64-perf-qemu: $BIN not found: run scripts/aarch64-build.sh" >&2; exit 1; }
command -v qemu-aarch64 >/dev/null || { echo "aarch64-perf-qemu: qemu-aarch64 missing (apt-get install qemu-user)" >&2; exit 1; }

# Without --model, no LLM figures (ALPHA3_MODEL is ignored here unless passed explicitly).
exec env -u ALPHA3_MODEL qemu-aarch64 -L /usr/aarch64-linux-gnu "$BIN" perf --quick --json "$@"
