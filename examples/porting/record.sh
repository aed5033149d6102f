#!/usr/bin/env bash
# Runs nanoGPT (nanogpt.sh) and minGPT (mingpt.sh) on kael and on PyTorch, and writes what
# the porting guide shows: both programs' losses side by side, nanoGPT's resumed run and
# samples, and the time per training step of each side.
#
#   examples/porting/record.sh NANOGPT_DIR MINGPT_DIR [RESULTS_MD]
#
# RESULTS_MD defaults to examples/results/porting.md; the programs, data, checkpoints and
# logs of the last run stay in build/porting.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[[ $# -ge 2 ]] || { sed -n 2,9p "$0"; exit 2; }
results="${3:-$root/examples/results/porting.md}"
work="$root/build/porting"
"$here/nanogpt.sh" "$1" "$work" both
"$here/mingpt.sh" "$2" "$work" both
revision() { (cd "$1" && git rev-parse --short HEAD 2>/dev/null) || echo "unknown"; }
/usr/bin/python3 "$here/summarize.py" "$work" "$(revision "$1")" "$(revision "$2")" > "$results"
echo "record.sh: wrote $results"
