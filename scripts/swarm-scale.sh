#!/usr/bin/env bash
# How many vehicles `alpha3 swarm` holds on this machine (issue 33): N vehicles in parallel
# lanes 60 m apart, each flying 200 m north at 40 m (no conflicts: this measures the load, not
# the deconfliction), on N fresh PX4 SITL instances at a speed factor.
#
#   scripts/swarm-scale.sh N [SPEED] [OUT]      # e.g. scripts/swarm-scale.sh 6 1
#
# Prints the swarm's table and, per vehicle, the safety loop's timing (telemetry age and late
# ticks, p50/p99/max) from its fly.log, and the machine's load while it flew.
set -euo pipefail
N=${1:?N vehicles}
SPEED=${2:-1}
OUT=${3:-out/swarm-scale-$N-x$SPEED}
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ALPHA3=${ALPHA3_BIN:-$ROOT/target/release/alpha3}
PX4=${PX4_SITL_HOME:-$HOME/.cache/px4-sitl}
rm -rf "$OUT" && mkdir -p "$OUT/swarm"
python3 - "$N" "$OUT/swarm" "$ROOT" <<'PY'
import json, sys
n, out, root = int(sys.argv[1]), sys.argv[2], sys.argv[3]
base = json.load(open(f"{root}/configs/swarm/cross-3/uav-1.json"))
lines = ['name = "lanes-%d"' % n, "origin_lat_deg = 47.397742", "origin_lon_deg = 8.545594",
         "origin_alt_amsl_m = 488.0", ""]
for k in range(n):
    x = 60.0 * k
    s = json.loads(json.dumps(base))
    s["name"] = f"lanes-{n}-uav-{k + 1}"
    s["airspace"]["geofence"] = [{"type": "polygon", "points": [[-100.0, -100.0], [60.0 * n + 40.0, -100.0], [60.0 * n + 40.0, 350.0], [-100.0, 350.0]]}]
    s["spawn"]["xyz"] = [x, 0.0, 40.0]
    s["mission"]["waypoints"] = [[x, 200.0, 40.0]]
    s["landing"]["emergency_sites"] = [[x, 0.0, 0.0]]
    s["swarm"]["size"] = n
    s["swarm"]["roles"] = ["member"] * n
    json.dump(s, open(f"{out}/uav-{k + 1}.json", "w"))
    lines += ["[[vehicle]]", f'name = "uav-{k + 1}"', f'scenario = "uav-{k + 1}.json"', ""]
open(f"{out}/lanes.toml", "w").write("\n".join(lines))
PY
( while sleep 2; do cut -d' ' -f1 /proc/loadavg; done ) > "$OUT/load.txt" &
LOAD=$!
trap 'kill $LOAD 2>/dev/null || true' EXIT
"$ALPHA3" swarm --swarm "$OUT/swarm/lanes.toml" --config "$ROOT/configs/alpha3.toml" --px4 "$PX4" \
    --speed-factor "$SPEED" --out "$OUT/run" --timeout-s 900 || true
for f in "$OUT"/run/uav-*/fly.log; do
    printf '%s: %s\n' "$(basename "$(dirname "$f")")" "$(grep -o 'otherwise: .*' "$f" | head -1)"
done
printf 'load average while it flew (1 min): max %s\n' "$(sort -n "$OUT/load.txt" | tail -1)"
