#!/usr/bin/env bash
# Cross-builds the `alpha3` binary for 64-bit Arm Linux (Raspberry Pi 5, Jetson) on this
# x86-64 Debian machine, into target-aarch64/ (kept apart from target/).
#
#   scripts/aarch64-build.sh            release build -> target-aarch64/aarch64-unknown-linux-gnu/release/alpha3
#   ALPHA3_NICE=0 scripts/aarch64-build.sh   do not lower the build's priority
#
# Installs what is missing (idempotent, as root): Debian's gcc/g++ for aarch64 and qemu-user
# (to run the result, see aarch64-perf-qemu.sh), and the Rust target via rustup. llama.cpp is
# compiled by llama-cpp-sys-2's cmake with the cross compilers (~10+ min on 2 cores). Note: when
# cross-compiling, llama-cpp-sys-2 builds llama.cpp for plain armv8-a (no dotprod/i8mm kernels);
# for full speed build on the device itself, see docs/AARCH64.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET=aarch64-unknown-linux-gnu
TARGET_DIR="${ALPHA3_AARCH64_TARGET_DIR:-$ROOT/target-aarch64}"
NICE="${ALPHA3_NICE:-10}"

log() { printf 'aarch64-build: %s\n' "$*"; }
die() { printf 'aarch64-build: ERROR: %s\n' "$*" >&2; exit 1; }

need_apt=()
command -v aarch64-linux-gnu-gcc >/dev/null || need_apt+=(gcc-aarch64-linux-gnu)
command -v aarch64-linux-gnu-g++ >/dev/null || need_apt+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || need_apt+=(qemu-user)
# llama-cpp-sys-2 needs cmake and libclang (bindgen) as for the native build.
command -v cmake >/dev/null || need_apt+=(cmake)
if ((${#need_apt[@]})); then
    log "installing ${need_apt[*]}"
    [[ $(id -u) -eq 0 ]] || die "run as root (or install: apt-get install ${need_apt[*]})"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
log "cross gcc: $(aarch64-linux-gnu-gcc -dumpfullversion)"

if ! rustup target list --installed | grep -qx "$TARGET"; then
    log "rustup target add $TARGET"
    rustup target add "$TARGET" ||
        die "rustup could not install the $TARGET standard library (is its server reachable?)"
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
# bindgen (llama-cpp-sys-2) parses llama.cpp's headers for the target.
export BINDGEN_EXTRA_CLANG_ARGS_aarch64_unknown_linux_gnu="--sysroot=/usr/aarch64-linux-gnu -I/usr/aarch64-linux-gnu/include"
# Lets `cargo run --target aarch64-…` execute the result under qemu.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"

log "building alpha3 for $TARGET into $TARGET_DIR (nice $NICE)"
started=$(date +%s)
cd "$ROOT"
nice -n "$NICE" cargo build --locked --release -p alpha3 --bin alpha3 \
    --target "$TARGET" --target-dir "$TARGET_DIR"
bin="$TARGET_DIR/$TARGET/release/alpha3"
log "built $bin in $(($(date +%s) - started)) s"
file "$bin" 2>/dev/null || true
