#!/usr/bin/env bash
# Runs karpathy/nanoGPT's own train.py and sample.py on kael with only their import lines
# changed (port.py), and the same files unchanged on PyTorch, on the KJV text as nanoGPT's
# character-level dataset. nanoGPT's code is not part of kael: pass a checkout of it.
#
#   examples/porting/nanogpt.sh NANOGPT_DIR WORK_DIR [kael|torch|both] [--max_iters=N ...]
#
# Each side gets WORK_DIR/<side>/ with the program files, data/kjv_char, a training log
# (train.log), a run resumed from its checkpoint (resume.log) and a sample (sample.log).
# Environment: KAEL_PYTHONPATH (default build/main/python), KJV (default build/data/kjv.txt),
# CHARS (characters of the text to use, default 400000), PYTHON (default /usr/bin/python3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[[ $# -ge 2 ]] || { sed -n 2,12p "$0"; exit 2; }
nanogpt="$(cd "$1" && pwd)"; work="$2"; sides="${3:-both}"; shift 2; [[ $# -gt 0 ]] && shift
python="${PYTHON:-/usr/bin/python3}"
kael_path="$(cd "${KAEL_PYTHONPATH:-$root/build/main/python}" && pwd)"
kjv="${KJV:-$root/build/data/kjv.txt}"
[[ -f "$nanogpt/train.py" && -f "$nanogpt/model.py" ]] || { echo "nanogpt.sh: $nanogpt is not a nanoGPT checkout" >&2; exit 2; }
[[ -f "$kjv" ]] || { echo "nanogpt.sh: $kjv is missing; scripts/make-corpus writes it" >&2; exit 2; }
[[ "$sides" == both ]] && sides="torch kael"

mkdir -p "$work"
work="$(cd "$work" && pwd)"
"$python" "$here/prepare_kjv_char.py" "$kjv" "$work/data/kjv_char" --chars "${CHARS:-400000}"

for side in $sides; do
  dir="$work/$side"
  rm -rf "$dir"; mkdir -p "$dir/data"
  ln -s "$work/data/kjv_char" "$dir/data/kjv_char"
  cp "$nanogpt/configurator.py" "$here/train_kjv_char.py" "$dir/"
  for program in model.py train.py sample.py; do
    if [[ "$side" == kael ]]; then
      "$python" "$here/port.py" "$nanogpt/$program" "$dir/$program"
    else
      cp "$nanogpt/$program" "$dir/$program"
    fi
  done
  # sample.py imports tiktoken at the top but uses it only for data without meta.pkl;
  # Debian does not package it, so a stand-in that says so takes its place.
  if ! "$python" -c "import tiktoken" 2>/dev/null; then
    printf '%s\n' '"""Stand-in: tiktoken is not installed; the character data carries its own meta.pkl."""' \
      'def get_encoding(name):' \
      '    raise ImportError(f"tiktoken is not installed, so there is no {name!r} encoding")' > "$dir/tiktoken.py"
  fi
  pythonpath=""; [[ "$side" == kael ]] && pythonpath="$kael_path"
  run() { (cd "$dir" && PYTHONPATH="$pythonpath" OMP_NUM_THREADS="${THREADS:-1}" KAEL_NUM_THREADS="${THREADS:-1}" \
             "$python" "$@"); }
  echo "== $side: train.py"
  run train.py train_kjv_char.py "$@" 2>&1 | tee "$dir/train.log"
  echo "== $side: train.py resumed from its checkpoint for 20 more steps"
  iters="$(sed -n 's/^max_iters = //p' "$here/train_kjv_char.py")"
  for arg in "$@"; do [[ "$arg" == --max_iters=* ]] && iters="${arg#--max_iters=}"; done
  run train.py train_kjv_char.py "$@" --init_from=resume --max_iters=$((iters + 20)) --lr_decay_iters=$((iters + 20)) \
    2>&1 | tee "$dir/resume.log"
  echo "== $side: sample.py"
  run sample.py --out_dir=out-kjv-char --device=cpu --dtype=float32 --num_samples=2 --max_new_tokens=200 \
    --start="In the beginning" 2>&1 | tee "$dir/sample.log"
done
