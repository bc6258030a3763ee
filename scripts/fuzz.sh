#!/usr/bin/env bash
# Coverage-guided fuzzing of alpha3's parsers and MAVLink ingest with cargo-fuzz (libFuzzer) on
# the stable toolchain (`--sanitizer none`: no nightly needed; the code under test has no
# `unsafe`, so no sanitizer is lost that could find anything).
#
#   scripts/fuzz.sh                       # every target, FUZZ_SECONDS (600) each, one after another
#   FUZZ_SECONDS=60 scripts/fuzz.sh turn_parser config
#   FUZZ_JOBS=2 scripts/fuzz.sh mavlink_session   # libFuzzer workers per target
#   FUZZ_RUNS=10000000 FUZZ_SECONDS=1800 scripts/fuzz.sh   # stop at 10M executions or 30 min
#
# New inputs go to fuzz/work/<target>/ (not checked in); the checked-in seeds in
# fuzz/corpus/<target>/ are read only. A crash lands in fuzz/artifacts/<target>/ and makes the
# script exit 1; make it a regression input (fuzz/README.md). A summary line per target gives
# the executions and crashes.
set -euo pipefail

CARGO_FUZZ_VERSION=0.13.1
cd "$(dirname "$0")/.."

if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  cargo install --locked "cargo-fuzz@$CARGO_FUZZ_VERSION"
fi

ALL=(turn_parser mavlink_session translate config record episode document operator_line scenario_rules mission_file mission_protocol plan_mission a2a)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL[@]}")
SECONDS_EACH=${FUZZ_SECONDS:-600}
JOBS=${FUZZ_JOBS:-1}
RUNS=${FUZZ_RUNS:-}

status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "fuzz/work/$t" "fuzz/artifacts/$t" "fuzz/corpus/$t"
  log="fuzz/work/$t.log"
  parallel=()
  # With -jobs, libFuzzer runs workers that log to fuzz-<n>.log in the current directory.
  [ "$JOBS" -gt 1 ] && parallel=(-jobs="$JOBS" -workers="$JOBS")
  [ -n "$RUNS" ] && parallel+=(-runs="$RUNS")
  started=$(date +%s)
  set +e
  cargo fuzz run --sanitizer none "$t" "fuzz/work/$t" "fuzz/corpus/$t" -- \
    -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "${parallel[@]}" -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1
  rc=$?
  set -e
  elapsed=$(($(date +%s) - started))
  if [ "$JOBS" -gt 1 ]; then
    cat fuzz-*.log >>"$log" 2>/dev/null || true
    rm -f fuzz-*.log
  fi
  # -a: a target whose log holds fuzzed bytes makes grep call it binary (and count 0).
  execs=$({ grep -a -h 'stat::number_of_executed_units' "$log" || true; } | awk '{s += $2} END {print s + 0}')
  crashes=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)
  corpus=$(find "fuzz/work/$t" -type f | wc -l)
  echo "$t: ${elapsed}s (limit ${SECONDS_EACH}s${RUNS:+ or $RUNS runs}) x $JOBS, executions $execs, crashes $crashes, corpus $corpus (rc $rc)"
  if [ "$crashes" -gt 0 ] || [ "$rc" -ne 0 ]; then
    status=1
  fi
done
exit $status
