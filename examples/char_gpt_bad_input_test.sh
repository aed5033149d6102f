#!/bin/sh
# Example.CharGptRefusesBadInput: every bad input gets a clear error and a failing exit
# status, and a refused checkpoint leaves the run before any training.
#   char_gpt_bad_input_test.sh CHAR_GPT WORK_DIR
set -u
char_gpt="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work"
# A text of 3000 characters of plain ASCII, enough for a block of 8.
i=0
while [ $i -lt 100 ]; do printf 'In the beginning was the word. '; i=$((i + 1)); done > "$work/text.txt"
small="--layers 1 --heads 1 --width 8 --block-size 8 --batch-size 2 --eval-batches 1 --sample-chars 5"
failures=0
expect() {  # DESCRIPTION EXPECTED-MESSAGE ARGS...
  what="$1"
  message="$2"
  shift 2
  if "$char_gpt" "$@" > "$work/out.log" 2>&1; then
    echo "FAIL: $what: exited 0"
    failures=$((failures + 1))
  elif ! grep -q "$message" "$work/out.log"; then
    echo "FAIL: $what: no '$message' in:"
    cat "$work/out.log"
    failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}
printf 'abc\377def' > "$work/bad_utf8.txt"
: > "$work/empty.txt"
expect "invalid UTF-8" "not valid UTF-8 at byte 3" --data "$work/bad_utf8.txt" $small --steps 1
expect "an empty text" "too few" --data "$work/empty.txt" $small --steps 1
expect "a prompt outside the vocabulary" "is not in the model's vocabulary" --data "$work/text.txt" $small --steps 1 \
  --eval-every 1 --out "$work/run" --prompt "Zebra"
expect "a negative temperature" "temperature" --data "$work/text.txt" $small --steps 1 --temperature -1
expect "top-p 0" "top_p" --data "$work/text.txt" $small --steps 1 --top-p 0
expect "top-k 0" "top_k" --data "$work/text.txt" $small --steps 1 --top-k 0
if ! "$char_gpt" --data "$work/text.txt" $small --steps 2 --eval-every 1 --out "$work/run" --prompt "In" \
    > "$work/run.log" 2>&1; then
  echo "FAIL: the run that makes the checkpoint failed:"
  cat "$work/run.log"
  failures=$((failures + 1))
fi
expect "a checkpoint of another width" "another shape" --data "$work/text.txt" --layers 1 --heads 1 --width 16 \
  --block-size 8 --batch-size 2 --eval-batches 1 --steps 3 --resume "$work/run/char_gpt.safetensors" --out "$work/other"
# As many distinct characters, but not the same ones: w becomes W.
sed 's/w/W/g' "$work/text.txt" > "$work/other_text.txt"
expect "a checkpoint of another vocabulary" "another vocabulary" --data "$work/other_text.txt" $small --steps 3 \
  --resume "$work/run/char_gpt.safetensors" --out "$work/other"
[ $failures -eq 0 ]
