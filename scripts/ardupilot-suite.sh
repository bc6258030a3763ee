#!/usr/bin/env bash
# The 50-scenario suite on real ArduCopter SITLs: starts N headless SITLs (instances 5.., each
# sending its companion link to UDP 127.0.0.1:14700+k), flies the suite on them with
# `alpha3 sitl --connect … --instances N`, then stops them.
#
#   scripts/ardupilot-suite.sh [OUT]        # default out/ardupilot
#   AP_INSTANCES=2 AP_SPEEDUP=2 SUITE=configs/bench/px4-sitl.toml scripts/ardupilot-suite.sh
#
# Needs the SITL build (../shared/ardupilot/build.sh, as scripts/test.sh runs it) and a release
# binary (cargo build --release -p alpha3). Every SITL gets a pack far larger than the
# configured vehicle's (BATT_CAPACITY): one SITL flies many episodes back to back, and on SITL
# the battery the gate and the score read is the twin's (docs/ARCHITECTURE.md, "Truth on SITL").
# SITL's output goes to OUT/ardupilot-sitl-k.log.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

OUT=${1:-out/ardupilot}
AP_HOME_DIR=${ARDUPILOT_SITL_HOME:-$HOME/.cache/ardupilot-sitl}
BIN=$AP_HOME_DIR/src/build/sitl/bin/arducopter
PARM=$AP_HOME_DIR/src/Tools/autotest/default_params/copter.parm
INSTANCES=${AP_INSTANCES:-2}
SPEEDUP=${AP_SPEEDUP:-2}
SUITE=${SUITE:-configs/bench/px4-sitl.toml}
FIRST_PORT=14700
ALPHA3=${ALPHA3:-target/release/alpha3}

for f in "$BIN" "$PARM" "$ALPHA3"; do
    if [[ ! -e "$f" ]]; then
        echo "missing $f (build.sh for the SITL, cargo build --release -p alpha3)" >&2
        exit 1
    fi
done

mkdir -p "$OUT"
work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

echo "BATT_CAPACITY 1000000" >"$work/extra.parm"
for ((k = 0; k < INSTANCES; k++)); do
    mkdir -p "$work/sitl$k"
    (cd "$work/sitl$k" && exec "$BIN" --model + --speedup "$SPEEDUP" \
        --home 47.397742,8.545594,488,0 --defaults "$PARM,$work/extra.parm" \
        --sysid 1 --serial0 tcp:0 --serial1 "udpclient:127.0.0.1:$((FIRST_PORT + k))" \
        -I "$((5 + k))" -w) >"$OUT/ardupilot-sitl-$k.log" 2>&1 &
    pids+=($!)
done

# sitl waits for each autopilot's own "ready" (EKF, pre-arm checks): ~40 s of SITL time.
"$ALPHA3" sitl --suite "$SUITE" --connect "udpin:127.0.0.1:$FIRST_PORT" \
    --instances "$INSTANCES" --ready-timeout-s 180 --out "$OUT" --fresh
