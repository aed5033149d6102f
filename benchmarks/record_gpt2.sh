#!/usr/bin/env bash
# Records benchmarks/RESULTS-gpt2.md (chapter 12): GPT-2 small (124M parameters, random
# weights in the Hugging Face layout, which scripts/make-tiny-gpt2 --preset gpt2 writes
# once into build/data/gpt2-124m-random) run by kael (benchmarks/gpt2_speed.cpp) and by
# PyTorch (benchmarks/gpt2_torch.py, the plain-PyTorch GPT-2 of scripts/lib), on 1 and on
# 2 threads. The two programs alternate, ROUNDS times (3 unless given), so that a machine
# that slows down in the middle slows both; the table shows the median of the rounds.
# Needs a build in build/main (or $1) with -DKAEL_BUILD_BENCHMARKS=ON, and python3-torch.
#
#   benchmarks/record_gpt2.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/main}"
rounds="${2:-3}"
out="$root/benchmarks/RESULTS-gpt2.md"
model="$root/build/data/gpt2-124m-random"
python=/usr/bin/python3
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ ! -f "$model/model.safetensors" ]; then
  "$python" "$root/scripts/make-tiny-gpt2" "$model" --preset gpt2 --seed 0
fi
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
for threads in 1 2; do
  for round in $(seq "$rounds"); do
    OPENBLAS_NUM_THREADS=$threads "$build/benchmarks/kael_bench_gpt2" --model "$model" --threads "$threads" \
      >> "$work/kael-$threads.jsonl"
    OMP_NUM_THREADS=$threads "$python" "$root/benchmarks/gpt2_torch.py" --model "$model" --threads "$threads" \
      >> "$work/torch-$threads.jsonl"
    echo "record_gpt2: $threads thread(s), round $round of $rounds done" >&2
  done
done
"$python" - "$work" "$cpu" "$rounds" > "$out" <<'EOF'
import json, pathlib, statistics, sys, datetime
work, cpu, rounds = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
def runs(name):
    return [json.loads(line) for line in (work / f"{name}.jsonl").read_text().splitlines()]
def median(rows, key):
    return statistics.median(row[key] for row in rows)
print(f"Measured on {datetime.date.today()} on {cpu} by `benchmarks/record_gpt2.sh`: GPT-2 small "
      f"(124M parameters, random weights), a prompt of 64 tokens, 128 tokens decoded greedily; "
      f"the median of {rounds} alternating rounds, each figure inside a round the best of 5 runs.")
print()
def thread_label(threads):
    return "1 thread" if threads == 1 else f"{threads} threads"
print("| measure | kael | PyTorch | kael / PyTorch |")
print("|---|---:|---:|---:|")
for threads in (1, 2):
    kael, torch = runs(f"kael-{threads}"), runs(f"torch-{threads}")
    for key, label, faster in (("forward_ms_best", "forward, 64 tokens (ms)", "lower"),
                               ("prefill_ms", "prefill, 64 tokens (ms)", "lower"),
                               ("decode_tokens_per_s", "decode with the cache (tokens/s)", "higher"),
                               ("nocache_tokens_per_s", "decode without the cache (tokens/s)", "higher")):
        k, t = median(kael, key), median(torch, key)
        ratio = t / k if faster == "lower" else k / t
        print(f"| {label}, {thread_label(threads)} | {k:.1f} | {t:.1f} | {ratio:.2f} |")
print()
print("The last column is how many times faster kael is (above 1: kael is faster).")
print()
print("| threads | weights read per token | memory read bandwidth | decode limit (tokens/s) "
      "| kael's decode, share of the limit | PyTorch's decode, share of the limit |")
print("|---|---:|---:|---:|---:|---:|")
for threads in (1, 2):
    kael, torch = runs(f"kael-{threads}"), runs(f"torch-{threads}")
    gb = kael[0]["weight_bytes"] / 1e9
    bandwidth = median(kael, "read_gb_per_s")
    limit = bandwidth / gb
    kael_share = median(kael, "decode_tokens_per_s") / limit
    torch_share = median(torch, "decode_tokens_per_s") / limit
    print(f"| {thread_label(threads)} | {gb:.3f} GB | {bandwidth:.1f} GB/s | {limit:.1f} "
          f"| {100 * kael_share:.0f}% | {100 * torch_share:.0f}% |")
print()
print("kael's prefill asks for the last position's logits only (what generation needs); "
      "PyTorch's reference computes them for every position, as its forward does. "
      "The decode limit is the bandwidth divided by the bytes of the weights: every decode "
      "step reads each weight once.")
EOF
echo "record_gpt2: wrote $out"
