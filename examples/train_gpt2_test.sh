#!/bin/sh
# Example.TrainGpt2FineTunesAndResumesExactly: train_gpt2 from a clean clone, on a small GPT-2
# directory that scripts/make-tiny-gpt2 writes here (random weights, GPT-2's real vocabulary
# from scripts/fetch-gpt2-vocab) and a text made here: the loss goes down, a run stopped at a
# checkpoint and resumed writes the same losses and the same checkpoint as one that was not
# stopped, the model directory it writes loads again, the model's file is never written to,
# and bad input gets a clear error and a failing status. Given kael's Python module (its
# directory and the interpreter it is built for), the Python twin examples/train_gpt2.py
# must lower the loss and resume exactly too. Exit 77 (skipped) without PyTorch, which
# writes the model, or without the vocabulary.
#   train_gpt2_test.sh TRAIN_GPT2 PYTHON REPOSITORY VOCAB_DIR WORK_DIR [MODULE_DIR MODULE_PYTHON]
set -u
train="$1"
python="$2"
repository="$3"
vocab="$4"
work="$5"
module="${6:-}"
module_python="${7:-}"
if ! "$python" -c "import torch, numpy" 2>/dev/null; then
  echo "skipped: $python has no PyTorch to write the model with"
  exit 77
fi
if [ ! -f "$vocab/encoder.json" ] || [ ! -f "$vocab/vocab.bpe" ]; then
  echo "skipped: no GPT-2 vocabulary in $vocab (scripts/fetch-gpt2-vocab)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
model="$work/model"
"$python" "$repository/scripts/make-tiny-gpt2" "$model" --vocab-size 50257 --n-positions 32 --vocab-dir "$vocab" \
  --seed 5 > "$work/make.log" 2>&1 || { cat "$work/make.log"; exit 1; }
text="$work/text.txt"
i=0
while [ $i -lt 60 ]; do
  echo "In the beginning was the Word, and the Word was with God, and the Word was God. Verse $i." >> "$text"
  i=$((i + 1))
done
before="$(sha256sum < "$model/model.safetensors")"
failures=0
fail() {
  echo "FAIL: $1"
  failures=$((failures + 1))
}
common="--model $model --data $text --batch-size 2 --block-size 16 --lr 1e-3 --eval-every 4 --eval-batches 2 --sample-tokens 5 --threads 1"

# shellcheck disable=SC2086  # the options are words
"$train" $common --steps 8 --out "$work/whole" > "$work/whole.log" 2>&1 || { cat "$work/whole.log"; fail "the run failed"; }
# shellcheck disable=SC2086
"$train" $common --steps 4 --checkpoint-every 4 --out "$work/parts" > "$work/first.log" 2>&1 ||
  { cat "$work/first.log"; fail "the first half failed"; }
# shellcheck disable=SC2086
"$train" $common --steps 8 --resume "$work/parts/train_gpt2.safetensors" --out "$work/parts" \
  > "$work/second.log" 2>&1 || { cat "$work/second.log"; fail "the resumed half failed"; }
grep -q "resumed from .* at step 4" "$work/second.log" || fail "the resumed run did not say where it resumed"
cmp -s "$work/whole/train_gpt2_loss.csv" "$work/parts/train_gpt2_loss.csv" ||
  fail "the resumed run's losses differ from the uninterrupted run's"
cmp -s "$work/whole/train_gpt2.safetensors" "$work/parts/train_gpt2.safetensors" ||
  fail "the resumed run's final checkpoint differs from the uninterrupted run's"
first="$(sed -n 2p "$work/whole/train_gpt2_loss.csv" | cut -d, -f2)"
last="$(tail -1 "$work/whole/train_gpt2_loss.csv" | cut -d, -f2)"
"$python" -c "import sys; sys.exit(0 if float('$last') < float('$first') else 1)" ||
  fail "the training loss did not go down ($first to $last)"
grep -q "^sample" "$work/whole.log" || fail "no sample at the end"
[ "$(sha256sum < "$model/model.safetensors")" = "$before" ] || fail "the model's file changed"
# The written directory is a model like any other: training it for no step changes nothing.
# shellcheck disable=SC2086
"$train" --model "$work/whole/model" --data "$text" --batch-size 2 --block-size 16 --steps 0 --sample-tokens 0 \
  --out "$work/reloaded" > "$work/reloaded.log" 2>&1 || { cat "$work/reloaded.log"; fail "the written model does not load"; }
cmp -s "$work/whole/model/model.safetensors" "$work/reloaded/model/model.safetensors" ||
  fail "the written model does not read back as itself"

refused() {  # NAME ARGS...: the run must fail with a message on standard error, not crash
  name="$1"
  shift
  "$train" "$@" > "$work/refused.out" 2> "$work/refused.err"
  status=$?
  if [ $status -eq 0 ] || [ $status -ge 128 ] || [ ! -s "$work/refused.err" ]; then
    fail "$name: status $status, message '$(cat "$work/refused.err")'"
  fi
}
refused "a missing model directory" --model "$work/nowhere" --data "$text"
refused "a block longer than the model's context" --model "$model" --data "$text" --block-size 64
refused "an unknown option" --model "$model" --data "$text" --nonsense 1
refused "a checkpoint of another model" --model "$model" --data "$text" --resume "$model/model.safetensors"
printf 'not a checkpoint' > "$work/garbage.safetensors"
refused "a file that is not safetensors" --model "$model" --data "$text" --resume "$work/garbage.safetensors"
if [ -n "$module" ]; then
  twin() {  # OUT-DIR ARGS...: the Python twin with the C++ runs' recipe
    out="$1"
    shift
    # shellcheck disable=SC2086  # the options are words
    PYTHONPATH="$module" "$module_python" "$repository/examples/train_gpt2.py" $common --out "$out" "$@"
  }
  twin "$work/py_whole" --steps 8 > "$work/py_whole.log" 2>&1 || { cat "$work/py_whole.log"; fail "the Python twin failed"; }
  twin "$work/py_parts" --steps 4 --checkpoint-every 4 > "$work/py_first.log" 2>&1 ||
    { cat "$work/py_first.log"; fail "the Python twin's first half failed"; }
  twin "$work/py_parts" --steps 8 --resume "$work/py_parts/train_gpt2.pt" > "$work/py_second.log" 2>&1 ||
    { cat "$work/py_second.log"; fail "the Python twin's resumed half failed"; }
  cmp -s "$work/py_whole/train_gpt2_loss.csv" "$work/py_parts/train_gpt2_loss.csv" ||
    fail "the Python twin's resumed losses differ from its uninterrupted run's"
  py_first="$(sed -n 2p "$work/py_whole/train_gpt2_loss.csv" | cut -d, -f2)"
  py_last="$(tail -1 "$work/py_whole/train_gpt2_loss.csv" | cut -d, -f2)"
  "$python" -c "import sys; sys.exit(0 if float('$py_last') < float('$py_first') else 1)" ||
    fail "the Python twin's loss did not go down ($py_first to $py_last)"
fi
[ $failures -eq 0 ] || exit 1
echo "train_gpt2: fine-tuned, resumed exactly, refused every bad input"
