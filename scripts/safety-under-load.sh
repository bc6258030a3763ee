#!/usr/bin/env bash
# How the safety path keeps up while the local model decodes (issue 31), as a benchmark, not a
# test: flies a few suite scenarios in real time with the scripted agent (the cores idle) and
# with Gemma 3 270M through llama.cpp (its threads decoding on every core at each decision) —
# once with its threads lowered as the runtime runs them, once at the process's priority —
# against `alpha3 sim-vehicle` (the built-in world as a PX4-like MAVLink vehicle) and, with
# --px4, against the real PX4 SITL — all at 1×. Every episode writes its safety timing
# (OUT/**/safety/<episode>.json: the telemetry's age each time the gate judged, the gate's own
# time, how late each watchdog tick ran, split by whether a decision was pending); the table
# at the end pools them per vehicle, agent and phase.
#
#   scripts/safety-under-load.sh [--px4] [--no-sim] [--scenarios N] [OUT]
#                                                  # default OUT: out/safety-under-load
#
# Needs a release binary (cargo build --release -p alpha3), the test model (scripts/setup.sh)
# and, for --px4, the PX4 SITL build (scripts/px4-sitl.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

px4=false
sim=true
scenarios=3
OUT=out/safety-under-load
while [[ $# -gt 0 ]]; do
    case "$1" in
        --px4) px4=true; shift ;;
        --no-sim) sim=false; shift ;;
        --scenarios) scenarios=$2; shift 2 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) OUT=$1; shift ;;
    esac
done
ALPHA3=${ALPHA3:-target/release/alpha3}
# shellcheck disable=SC1091
[[ -f .venv/alpha3-env ]] && . .venv/alpha3-env
if [[ ! -x "$ALPHA3" || -z "${ALPHA3_MODEL:-}" || ! -f "${ALPHA3_MODEL:-}" ]]; then
    echo "needs $ALPHA3 (cargo build --release -p alpha3) and ALPHA3_MODEL (scripts/setup.sh)" >&2
    exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The suite: the first N scenarios, the three agents, one episode at a time (a second worker
# would be load of another kind).
sed -e 's/^name = .*/name = "gemma3-270m-normal-priority"/' \
    -e '/^\[policy.llama\]/a inference_priority = "normal"' \
    -e "s#^model_path = \"#model_path = \"$ROOT/#" \
    configs/policies/llama-local.toml > "$work/llama-normal.toml"
cat > "$work/suite.toml" <<TOML
[bench]
name = "safety-under-load"
scenarios = ["$ROOT/configs/scenarios"]
max_scenarios = $scenarios
seeds = [1]
policies = ["$ROOT/configs/policies/scripted.toml", "$ROOT/configs/policies/llama-local.toml", "$work/llama-normal.toml"]
concurrency = 1
min_turns = 8
max_turns = 12
max_tokens = 10000
max_tool_actions = 25
base_config = "$ROOT/configs/alpha3.toml"
TOML

if $sim; then
    echo "==> sim-vehicle (built-in world over MAVLink, 1×)"
    instance=45
    "$ALPHA3" sim-vehicle --scenario configs/scenarios/sc-0000.json --instance "$instance" \
        --speed-factor 1 > "$OUT/sim-vehicle.log" 2>&1 &
    pids+=($!)
    "$ALPHA3" sitl --suite "$work/suite.toml" --connect "udpin:127.0.0.1:$((14540 + instance))" \
        --no-builtin --fresh --out "$OUT/sim-vehicle" 2>&1 | tee "$OUT/sim-vehicle-run.log" \
        | grep -E "telemetry age|α3 macro" || true
    kill "${pids[0]}" 2>/dev/null || true
fi

if $px4; then
    PX4_HOME=${PX4_SITL_HOME:-$HOME/.cache/px4-sitl}
    echo "==> PX4 SITL (SIH, 1×)"
    "$ALPHA3" sitl --suite "$work/suite.toml" --px4 "$PX4_HOME" \
        --instances 1 --first-instance 2 --speed-factor 1 --no-builtin --fresh --out "$OUT/px4" 2>&1 \
        | tee "$OUT/px4-run.log" | grep -E "telemetry age|α3 macro" || true
fi

python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
pool = {}
for f in sorted(glob.glob(os.path.join(out, "**", "safety", "*.json"), recursive=True)):
    vehicle = os.path.relpath(f, out).split(os.sep)[0]
    d = json.load(open(f))
    agent = d["episode_id"].split("__")[0]
    for phase in ("calm", "deciding"):
        s = d["samples"][phase]
        p = pool.setdefault((vehicle, agent, phase), {"age_ms": [], "gate_us": [], "late_ms": []})
        for k in p:
            p[k] += s[k]

def spread(v, digits=0):
    if not v:
        return "-"
    v = sorted(v)
    q = lambda x: v[min(len(v) - 1, round((len(v) - 1) * x))]
    return f"{q(0.5):.{digits}f} / {q(0.99):.{digits}f} / {v[-1]:.{digits}f}"

print("\n| vehicle | agent | phase | judgements | telemetry age, ms | gate, µs | ticks | tick late, ms |")
print("|---|---|---|---|---|---|---|---|")
for (vehicle, agent, phase), p in sorted(pool.items()):
    if not p["age_ms"] and not p["late_ms"]:
        continue
    print(f"| {vehicle} | {agent} | {'model deciding' if phase == 'deciding' else 'otherwise'} | "
          f"{len(p['age_ms'])} | {spread(p['age_ms'])} | {spread(p['gate_us'])} | "
          f"{len(p['late_ms'])} | {spread(p['late_ms'])} |")
print("\n(p50 / p99 / max; the gate refuses telemetry older than 1000 ms)")
PY
