#!/bin/sh
# Example.CharGptResumesBitForBit: 40 steps in one run against 20 steps, a checkpoint, and
# 20 more after resuming from it. The training losses of every step must be equal.
#   char_gpt_resume_test.sh CHAR_GPT MAKE_CORPUS WORK_DIR
set -eu
char_gpt="$1"
make_corpus="$2"
work="$3"
command -v bible >/dev/null || { echo "skipped: bible-kjv is not installed"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
"$make_corpus" "$work/kjv.txt" >/dev/null
common="--data $work/kjv.txt --layers 2 --heads 2 --width 32 --block-size 32 --batch-size 8 --eval-every 20 --eval-batches 2 --sample-chars 20"
"$char_gpt" $common --steps 40 --out "$work/straight" > "$work/straight.log"
"$char_gpt" $common --steps 20 --out "$work/stopped" > "$work/first_half.log"
"$char_gpt" $common --steps 40 --out "$work/stopped" --resume "$work/stopped/char_gpt.safetensors" > "$work/second_half.log"
cut -d, -f1,2 "$work/straight/char_gpt_loss.csv" > "$work/straight.csv"
cut -d, -f1,2 "$work/stopped/char_gpt_loss.csv" > "$work/stopped.csv"
if ! cmp -s "$work/straight.csv" "$work/stopped.csv"; then
  echo "the resumed run's losses differ from the uninterrupted run's:"
  diff "$work/straight.csv" "$work/stopped.csv" | head -10
  exit 1
fi
echo "the resumed run took the same 40 steps: $(tail -1 "$work/stopped.csv")"
