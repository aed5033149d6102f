#!/usr/bin/env bash
# Records examples/results/char_gpt_summary.md (chapter 11): the character-level GPT
# trained for the same number of steps by kael (examples/char_gpt.cpp) and by PyTorch
# (examples/char_gpt.py), one thread each, on the King James Version; their validation
# losses, their training throughput, and kael's sample. The logs and kael's loss curve
# are kept beside the summary.
#
#   examples/record_char_gpt.sh [STEPS] [BUILD_DIR]      defaults: 1000, build/main
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
steps="${1:-1000}"
build="${2:-$root/build/main}"
results="$root/examples/results"
mkdir -p "$results"
corpus="$root/build/data/kjv.txt"
[ -f "$corpus" ] || "$root/scripts/make-corpus" "$corpus"
export OPENBLAS_NUM_THREADS=1
"$build/examples/char_gpt" --data "$corpus" --steps "$steps" --eval-every 200 --out "$results/char_gpt_run" \
  --sample-chars 400 > "$results/char_gpt_kael.log"
cp "$results/char_gpt_run/char_gpt_loss.csv" "$results/char_gpt_loss.csv"
rm -rf "$results/char_gpt_run"
/usr/bin/python3 "$root/examples/char_gpt.py" --data "$corpus" --steps "$steps" --eval-every 200 --threads 1 \
  > "$results/char_gpt_torch.log"
val() { grep -a "^step" "$1" | tail -1 | sed 's/.*validation loss \([0-9.]*\)$/\1/'; }
rate() { sed -n 's/^training: .*, \([0-9]*\) tokens\/s$/\1/p' "$1"; }
kael_val=$(val "$results/char_gpt_kael.log")
torch_val=$(val "$results/char_gpt_torch.log")
kael_rate=$(rate "$results/char_gpt_kael.log")
torch_rate=$(rate "$results/char_gpt_torch.log")
{
  echo "Recorded on $(date -u +%F) on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) by \`examples/record_char_gpt.sh $steps\`: the same model (4 layers, 4 heads, width 128, context 64, batch 16, AdamW 1e-3) for $steps steps, one thread each; throughput includes the validation passes every 200 steps."
  echo
  echo "| | kael | PyTorch | kael / PyTorch |"
  echo "|---|---:|---:|---:|"
  echo "| validation loss after $steps steps | $kael_val | $torch_val | $(awk -v a="$kael_val" -v b="$torch_val" 'BEGIN { printf "%.3f", a / b }') |"
  echo "| training tokens per second | $kael_rate | $torch_rate | $(awk -v a="$kael_rate" -v b="$torch_rate" 'BEGIN { printf "%.2f", a / b }') |"
  echo "| sampling characters per second (kael, no KV cache) | $(sed -n 's/^sampling: \([0-9]*\) characters\/s$/\1/p' "$results/char_gpt_kael.log") | | |"
  echo
  echo "kael's sample (temperature 0.8, after the prompt \"And God said\"):"
  echo
  echo '```text'
  sed -n '/^sample (temperature/,/^sampling:/p' "$results/char_gpt_kael.log" | sed '1d;$d'
  echo '```'
} > "$results/char_gpt_summary.md"
echo "record_char_gpt: wrote $results/char_gpt_summary.md"
