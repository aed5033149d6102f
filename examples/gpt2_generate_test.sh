#!/bin/sh
# Example.Gpt2GenerateRunsOnALocalModel: gpt2_generate from a clean clone, on a GPT-2
# directory that scripts/make-tiny-gpt2 writes here (random weights, GPT-2's real
# vocabulary from scripts/fetch-gpt2-vocab): the text streams, the same seed gives the same
# text, the thread count and the cache change no token, and every bad input gets a clear
# error and a failing exit status, never a crash. Exit 77 (skipped) without PyTorch, which
# writes the model, or without the vocabulary.
#   gpt2_generate_test.sh GPT2_GENERATE PYTHON REPOSITORY VOCAB_DIR WORK_DIR
set -u
generate="$1"
python="$2"
repository="$3"
vocab="$4"
work="$5"
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
  --seed 3 > "$work/make.log" 2>&1 || { cat "$work/make.log"; exit 1; }
failures=0
fail() {
  echo "FAIL: $1"
  failures=$((failures + 1))
}
run() {  # OUT-FILE ARGS...: runs gpt2_generate, standard output to OUT-FILE, errors to OUT-FILE.err
  out="$1"
  shift
  "$generate" "$@" > "$out" 2> "$out.err"
}

prompt="Hello, world"  # GPT-2: Hello , world (15496, 11, 995)
if run "$work/greedy1" --model "$model" --prompt "$prompt" --greedy --max-new-tokens 12 --threads 1; then
  echo "ok: greedy generation ran"
  head -c ${#prompt} "$work/greedy1" | grep -qF "$prompt" || fail "the output does not start with the prompt"
  grep -q "prefill: 3 tokens" "$work/greedy1.err" || fail "no prefill line for the prompt's 3 tokens: $(cat "$work/greedy1.err")"
  grep -q "decode: " "$work/greedy1.err" || fail "no decode line: $(cat "$work/greedy1.err")"
else
  fail "greedy generation failed: $(cat "$work/greedy1.err")"
fi
run "$work/greedy2" --model "$model" --prompt "$prompt" --greedy --max-new-tokens 12 --threads 2 ||
  fail "greedy generation on 2 threads failed: $(cat "$work/greedy2.err")"
cmp -s "$work/greedy1" "$work/greedy2" && echo "ok: 2 threads give the same text" || fail "2 threads changed the text"
run "$work/nocache" --model "$model" --prompt "$prompt" --greedy --max-new-tokens 12 --no-cache ||
  fail "generation without the cache failed: $(cat "$work/nocache.err")"
cmp -s "$work/greedy1" "$work/nocache" && echo "ok: the cache changes no token" || fail "--no-cache changed the text"
run "$work/seed1" --model "$model" --prompt "$prompt" --seed 7 --max-new-tokens 12 || fail "sampling failed"
run "$work/seed2" --model "$model" --prompt "$prompt" --seed 7 --max-new-tokens 12 || fail "sampling failed"
cmp -s "$work/seed1" "$work/seed2" && echo "ok: the same seed gives the same text" || fail "the same seed gave other text"

expect() {  # DESCRIPTION EXPECTED-MESSAGE ARGS...
  what="$1"
  message="$2"
  shift 2
  "$generate" "$@" > "$work/bad.log" 2>&1
  status=$?
  if [ $status -eq 0 ]; then
    fail "$what: exited 0"
  elif [ $status -ne 1 ]; then
    fail "$what: exit status $status (a crash?): $(cat "$work/bad.log")"
  elif ! grep -qF "$message" "$work/bad.log"; then
    fail "$what: no '$message' in: $(cat "$work/bad.log")"
  else
    echo "ok: $what"
  fi
}
broken() {  # NAME: a copy of the model directory to break
  rm -rf "$work/$1"
  cp -r "$model" "$work/$1"
  echo "$work/$1"
}
expect "a missing directory" "$work/absent" --model "$work/absent"
expect "no --model" "needs --model" --prompt "hi"
expect "an unknown option" "unknown option --colour" --model "$model" --colour red
expect "a negative --max-new-tokens" "max-new-tokens" --model "$model" --max-new-tokens -1
expect "a negative temperature" "temperature" --model "$model" --temperature -1
expect "top-p above 1" "top_p" --model "$model" --top-p 1.5
long=""
i=0
while [ $i -lt 40 ]; do long="$long word"; i=$((i + 1)); done
expect "a prompt longer than the context" "prompt" --model "$model" --prompt "$long"
expect "invalid UTF-8 in the prompt" "UTF-8" --model "$model" --prompt "$(printf 'abc\377')"
dir=$(broken truncated)
head -c 1000 "$model/model.safetensors" > "$dir/model.safetensors"
expect "a truncated model.safetensors" "model.safetensors" --model "$dir"
dir=$(broken no_weights)
rm "$dir/model.safetensors"
expect "no model.safetensors" "model.safetensors" --model "$dir"
dir=$(broken other_width)
sed 's/"n_embd": *[0-9]*/"n_embd": 48/' "$model/config.json" > "$dir/config.json"
expect "a config that disagrees with the weights" "shape" --model "$dir"
dir=$(broken bad_config)
printf '{"n_layer": 2,' > "$dir/config.json"
expect "a config.json that is not JSON" "config.json" --model "$dir"
dir=$(broken bad_merges)
printf '#version: 0.2\nnot-a-token another\n' > "$dir/merges.txt"
expect "merges of tokens outside the vocabulary" "merges.txt" --model "$dir"
expect "a device this build lacks or cannot reach" "cuda" --model "$model" --device cuda:1
[ $failures -eq 0 ]
