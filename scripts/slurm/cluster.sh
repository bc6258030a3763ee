#!/usr/bin/env bash
# A one-node Slurm cluster in a folder, for the tests and for trying the array job on one
# machine: munged with its own key and socket, slurmctld and slurmd with the repo's config.
#
#   scripts/slurm/cluster.sh start DIR   # prints the SLURM_CONF line to export
#   scripts/slurm/cluster.sh stop DIR
#
# Needs Debian's slurm-wlm and munge (scripts/setup.sh installs them). Ports: SLURMCTLD_PORT
# and SLURMD_PORT (default 16817 and 16818, away from a real cluster's 6817/6818).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

die() { printf 'cluster.sh: %s\n' "$*" >&2; exit 1; }

[[ $# -eq 2 ]] || die "usage: cluster.sh start|stop DIR"
action="$1"
mkdir -p "$2"
dir="$(cd "$2" && pwd)"
conf="$dir/slurm.conf"

stop_pid_file() {
    local f="$1" pid
    [[ -f "$f" ]] || return 0
    pid="$(cat "$f" 2>/dev/null || true)"
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
}

case "$action" in
start)
    for tool in munged mungekey slurmctld slurmd sinfo; do
        command -v "$tool" >/dev/null || die "$tool not found (apt packages slurm-wlm and munge)"
    done
    mkdir -p "$dir/state" "$dir/spool"
    if [[ ! -f "$dir/munge.key" ]]; then
        mungekey -c -k "$dir/munge.key" -b 1024
        chmod 600 "$dir/munge.key"
    fi
    if ! [[ -f "$dir/munged.pid" ]] || ! kill -0 "$(cat "$dir/munged.pid")" 2>/dev/null; then
        munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
            --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"
    fi
    node="$(slurmd -C | head -n 1)"
    sed -e "s|@DIR@|$dir|g" -e "s|@HOST@|$(hostname -s)|g" -e "s|@USER@|$(id -un)|g" \
        -e "s|@CTLD_PORT@|${SLURMCTLD_PORT:-16817}|g" -e "s|@SLURMD_PORT@|${SLURMD_PORT:-16818}|g" \
        -e "s|@NODE@|$node|g" "$HERE/slurm.conf.in" >"$conf"
    export SLURM_CONF="$conf"
    # -i: ignore a state file from an earlier run of this folder.
    slurmctld -f "$conf" -i
    slurmd -f "$conf"
    for _ in $(seq 100); do
        state="$(sinfo -h -o '%T' 2>/dev/null | head -n 1 || true)"
        [[ "$state" == idle* || "$state" == mixed* || "$state" == allocated* ]] && break
        sleep 0.2
    done
    [[ "$state" == idle* || "$state" == mixed* || "$state" == allocated* ]] ||
        die "the node did not come up (state '${state:-none}'); logs in $dir/slurmctld.log and $dir/slurmd.log"
    printf 'export SLURM_CONF=%s\n' "$conf"
    ;;
stop)
    stop_pid_file "$dir/slurmd.pid"
    stop_pid_file "$dir/slurmctld.pid"
    stop_pid_file "$dir/munged.pid"
    ;;
*)
    die "usage: cluster.sh start|stop DIR"
    ;;
esac
