#!/usr/bin/env bash
# Submits an alpha3 bench suite to Slurm as an array of TASKS shards and a merge that runs
# when they have all ended; prints the two job ids ("ARRAY_ID MERGE_ID").
#
#   scripts/slurm/submit.sh SUITE OUT TASKS [sbatch options…]
#
# OUT must be on a filesystem every node sees. Logs go to OUT/slurm/. Extra options (e.g.
# --partition=gpu, --cpus-per-task=4, --time=02:00:00) go to both sbatch calls. ALPHA3_BIN in
# the environment names the binary the jobs run (sbatch passes the environment on).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -lt 3 ]]; then
    echo "usage: submit.sh SUITE OUT TASKS [sbatch options…]" >&2
    exit 2
fi
suite="$(realpath "$1")"
mkdir -p "$2/slurm"
out="$(realpath "$2")"
tasks="$3"
shift 3
[[ "$tasks" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: TASKS must be a positive number" >&2; exit 2; }
array_id="$(sbatch --parsable --array="0-$((tasks - 1))" --output="$out/slurm/bench-%A_%a.out" \
    "$@" "$HERE/bench.sbatch" "$suite" "$out")"
array_id="${array_id%%;*}"
merge_id="$(sbatch --parsable --dependency="afterany:$array_id" --output="$out/slurm/merge-%j.out" \
    "$@" "$HERE/merge.sbatch" "$suite" "$out")"
merge_id="${merge_id%%;*}"
echo "$array_id $merge_id"
