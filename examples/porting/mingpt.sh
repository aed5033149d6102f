#!/usr/bin/env bash
# Runs karpathy/minGPT's character-level project (projects/chargpt/chargpt.py with the
# mingpt package: its model, its Trainer with a DataLoader over a RandomSampler, its
# sampling and its torch.save) on kael with only the import lines changed, and unchanged
# on PyTorch, on the start of the KJV text. minGPT's code is not part of kael: pass a
# checkout of it.
#
#   examples/porting/mingpt.sh MINGPT_DIR WORK_DIR [kael|torch|both] [--trainer.max_iters=N ...]
#
# Each side gets WORK_DIR/mingpt-<side>/ with the ported files and train.log. Environment
# as for nanogpt.sh (KAEL_PYTHONPATH, KJV, CHARS default 200000, PYTHON, THREADS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[[ $# -ge 2 ]] || { sed -n 2,11p "$0"; exit 2; }
mingpt="$(cd "$1" && pwd)"; work="$2"; sides="${3:-both}"; shift 2; [[ $# -gt 0 ]] && shift
python="${PYTHON:-/usr/bin/python3}"
kael_path="$(cd "${KAEL_PYTHONPATH:-$root/build/main/python}" && pwd)"
kjv="${KJV:-$root/build/data/kjv.txt}"
[[ -f "$mingpt/mingpt/model.py" && -f "$mingpt/projects/chargpt/chargpt.py" ]] ||
  { echo "mingpt.sh: $mingpt is not a minGPT checkout" >&2; exit 2; }
[[ -f "$kjv" ]] || { echo "mingpt.sh: $kjv is missing; scripts/make-corpus writes it" >&2; exit 2; }
[[ "$sides" == both ]] && sides="torch kael"
mkdir -p "$work"; work="$(cd "$work" && pwd)"

for side in $sides; do
  dir="$work/mingpt-$side"
  rm -rf "$dir"; mkdir -p "$dir/mingpt" "$dir/projects/chargpt"
  for program in "$mingpt"/mingpt/*.py "$mingpt/projects/chargpt/chargpt.py"; do
    relative="${program#"$mingpt"/}"
    if [[ "$side" == kael ]]; then
      "$python" "$here/port.py" "$program" "$dir/$relative"
    else
      cp "$program" "$dir/$relative"
    fi
  done
  head -c "${CHARS:-200000}" "$kjv" > "$dir/projects/chargpt/input.txt"
  pythonpath="$dir"; [[ "$side" == kael ]] && pythonpath="$kael_path:$dir"
  echo "== $side: minGPT chargpt.py"
  (cd "$dir/projects/chargpt" && PYTHONPATH="$pythonpath" OMP_NUM_THREADS="${THREADS:-1}" \
     KAEL_NUM_THREADS="${THREADS:-1}" "$python" chargpt.py --system.work_dir=out --model.model_type=gpt-mini \
     --data.block_size=64 --trainer.batch_size=16 --trainer.max_iters=300 --trainer.num_workers=0 "$@") \
    2>&1 | tee "$dir/train.log"
done
