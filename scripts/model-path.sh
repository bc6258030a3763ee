#!/usr/bin/env bash
# Print the absolute path of the test GGUF model (gemma3 270M Q4_K_M) on stdout,
# assembling it first if needed (`setup.sh --model-path`; its log goes to stderr).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/setup.sh" --model-path
