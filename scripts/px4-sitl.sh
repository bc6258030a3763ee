#!/usr/bin/env bash
# Builds the real PX4 SITL (upstream PX4 a70a558, SIH quadrotor, headless) that the end-to-end
# tests fly against, from the offline source bundle in ../shared/px4/, into a cache outside the
# clone: ${PX4_SITL_HOME:-$HOME/.cache/px4-sitl}. Idempotent: a finished build is reused (a few
# seconds); from scratch it takes 3-6 minutes on 2 idle cores (16 on busy ones).
#
#   scripts/px4-sitl.sh            build (or check) it, then print its directory on stdout
#
# Without the bundle it says so and exits 0 outside CI (the PX4 tests then skip with that
# reason), and exits 1 under CI=true: CI must never pass by skipping.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUNDLE="${ALPHA3_PX4_BUNDLE:-$ROOT/../shared/px4}"
DEST="${PX4_SITL_HOME:-$HOME/.cache/px4-sitl}"

if [[ ! -f "$BUNDLE/build.sh" ]]; then
    echo "px4-sitl: no PX4 source bundle at $BUNDLE (build.sh missing)" >&2
    if [[ "${CI:-}" == "true" ]]; then
        exit 1
    fi
    exit 0
fi
started=$SECONDS
bash "$BUNDLE/build.sh" "$DEST" >&2
echo "px4-sitl: ready in $((SECONDS - started)) s: $DEST" >&2
printf '%s\n' "$DEST"
