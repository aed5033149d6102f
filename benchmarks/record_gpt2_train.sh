#!/usr/bin/env bash
# Records benchmarks/RESULTS-gpt2-training.md (chapter 12): a training step of GPT-2 small
# (124M parameters, random weights in the Hugging Face layout, as scripts/make-tiny-gpt2
# --preset gpt2 writes them into build/data/gpt2-124m-random) at batch 4 and sequence 64,
# AdamW, on the King James Version in GPT-2's tokens: kael (benchmarks/gpt2_train_speed.cpp,
# the parameters as nn::load_gpt2 returns them) against PyTorch (benchmarks/gpt2_train_torch.py,
# the model as a PyTorch user writes it), on 1 and on 2 threads.
#
# Each side runs twice: as it starts, and tuned. Tuned is what this project found best for
# PyTorch on its machines: OpenBLAS told its CPU (OPENBLAS_CORETYPE=SkylakeX on AVX-512,
# Haswell on AVX2; on some virtual machines OpenBLAS misreads the CPU and falls back to a
# slow kernel) and, on 2 threads, OMP_WAIT_POLICY=PASSIVE. kael gets the same environment,
# under which its automatic matrix backend takes OpenBLAS. The programs alternate, ROUNDS
# times, so that a machine that slows down slows all of them; a figure is the median over the
# rounds of each run's median step (the first step, which makes the optimizer's state and
# touches every page for the first time, is left out). It also checks that the losses agree
# step by step, and writes kael's profile of one step to benchmarks/profiles/gpt2-train-step.txt.
#
#   benchmarks/record_gpt2_train.sh [BUILD_DIR] [ROUNDS] [STEPS]     defaults: build/main, 3, 10
#
# Needs a build with -DKAEL_BUILD_BENCHMARKS=ON, python3-torch, bible-kjv and GPT-2's
# vocabulary (scripts/fetch-gpt2-vocab).
#
# With ISA=avx2 both sides run the code an AVX2-only CPU runs, on whatever CPU this is, as
# benchmarks/compare_with_libtorch.py --isa avx2 does: kael built for x86-64-v3 (in
# build/bench-avx2, which this configures and builds) with KAEL_GEMM_ISA=avx2, PyTorch with
# ATEN_CPU_CAPABILITY=avx2, OpenBLAS on both sides with its Haswell kernels when tuned; the
# table goes to benchmarks/RESULTS-gpt2-training-avx2-code.md. That measures AVX2 code on
# this machine's cores and memory, not an AVX2 machine. On a CPU without AVX-512 the plain
# run is the AVX2 record, and goes to benchmarks/RESULTS-gpt2-training-avx2.md.
#
# With LLMC=DIR, a checkout of github.com/karpathy/llm.c in which `make train_gpt2` has
# been run, it also times llm.c's CPU trainer on the same weights and tokens
# (benchmarks/llmc_convert.py writes its files). train_gpt2 runs 41 steps with evaluations
# and sampling between them and cannot be told fewer, so each run is stopped after
# LLMC_SECONDS (default 300) and the steps it printed by then are used.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/main}"
rounds="${2:-3}"
steps="${3:-10}"
out="$root/benchmarks/RESULTS-gpt2-training.md"
profile="$root/benchmarks/profiles/gpt2-train-step.txt"
isa_env=()
flags="$(grep -m1 '^flags' /proc/cpuinfo)"
case "$flags" in
  *avx512f*) ;;
  *) out="$root/benchmarks/RESULTS-gpt2-training-avx2.md"
     profile="$root/benchmarks/profiles/gpt2-train-step-avx2.txt" ;;
esac
if [ "${ISA:-native}" = avx2 ]; then
  build="$root/build/bench-avx2"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKAEL_MARCH=x86-64-v3 \
    -DKAEL_BUILD_BENCHMARKS=ON -DKAEL_BUILD_TESTS=OFF -DKAEL_BUILD_EXAMPLES=OFF >&2
  cmake --build "$build" --target kael_bench_gpt2_train kael_gpt2_tokens >&2
  out="$root/benchmarks/RESULTS-gpt2-training-avx2-code.md"
  profile="$root/benchmarks/profiles/gpt2-train-step-avx2-code.txt"
  isa_env=(KAEL_GEMM_ISA=avx2 ATEN_CPU_CAPABILITY=avx2)
fi
data="$root/build/data"
model="$data/gpt2-124m-random"
tokens="$data/kjv-gpt2.bin"
python=/usr/bin/python3
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -f "$model/model.safetensors" ]; then
  "$python" "$root/scripts/make-tiny-gpt2" "$model" --preset gpt2 --seed 0
fi
[ -f "$data/kjv.txt" ] || "$root/scripts/make-corpus" "$data/kjv.txt"
[ -f "$data/gpt2-vocab/encoder.json" ] || "$root/scripts/fetch-gpt2-vocab"
[ -f "$tokens" ] || "$build/benchmarks/kael_gpt2_tokens" --text "$data/kjv.txt" --vocab "$data/gpt2-vocab" --out "$tokens"
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
isa="AVX2"
case "$flags" in *avx512f*) isa="AVX-512" ;; esac
case "$flags" in *avx512_bf16*) isa="$isa, AVX512-BF16" ;; esac
case "$flags" in *amx_tile*) isa="$isa, AMX" ;; esac
if [ "${ISA:-native}" = avx2 ]; then
  isa="AVX2 code on a CPU with $isa: kael -march=x86-64-v3 with KAEL_GEMM_ISA=avx2, PyTorch ATEN_CPU_CAPABILITY=avx2"
fi

core="Haswell"
case "$flags" in *avx512f*) [ "${ISA:-native}" = avx2 ] || core="SkylakeX" ;; esac

tuned() {  # threads: the tuned environment, one setting per line
  echo "OPENBLAS_CORETYPE=$core"
  [ "$1" -gt 1 ] && echo "OMP_WAIT_POLICY=PASSIVE"
  return 0
}
run_kael() {  # threads, then any environment settings
  local threads=$1
  shift
  env OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" "${isa_env[@]}" "$@" "$build/benchmarks/kael_bench_gpt2_train" \
    --model "$model" --tokens "$tokens" --threads "$threads" --steps "$steps"
}
run_torch() {  # threads, then any environment settings
  local threads=$1
  shift
  env OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" "${isa_env[@]}" "$@" "$python" \
    "$root/benchmarks/gpt2_train_torch.py" --model "$model" --tokens "$tokens" --threads "$threads" --steps "$steps"
}
for threads in 1 2; do
  mapfile -t settings < <(tuned "$threads")
  for round in $(seq "$rounds"); do
    run_kael "$threads" >> "$work/kael-$threads.jsonl"
    run_torch "$threads" >> "$work/torch-$threads.jsonl"
    run_kael "$threads" "${settings[@]}" >> "$work/kael_tuned-$threads.jsonl"
    run_torch "$threads" "${settings[@]}" >> "$work/torch_tuned-$threads.jsonl"
    echo "record_gpt2_train: $threads thread(s), round $round of $rounds done" >&2
  done
done
if [ -n "${LLMC:-}" ]; then
  "$python" "$root/benchmarks/llmc_convert.py" --model "$model" --tokens "$tokens" --out "$work/llmc" >&2
  for threads in 1 2; do
    # Line-buffered: the lines it printed before the timeout stops it must reach the log.
    (cd "$work/llmc" && OMP_NUM_THREADS=$threads timeout "${LLMC_SECONDS:-300}" stdbuf -oL "$LLMC/train_gpt2" \
      > "$work/llmc-$threads.log" 2>&1 || true)
    echo "record_gpt2_train: llm.c on $threads thread(s) done" >&2
  done
fi
mkdir -p "$(dirname "$profile")"
env OPENBLAS_NUM_THREADS=1 "${isa_env[@]}" "$build/benchmarks/kael_bench_gpt2_train" --model "$model" --tokens "$tokens" --threads 1 \
  --steps 4 --profile-step 3 2> "$work/profile.txt" > /dev/null
{
  echo "# kael_bench_gpt2_train --threads 1 --profile-step 3 (GPT-2 124M, B=4, T=64, AdamW), $cpu, $(date +%F)"
  grep -v '^kael_bench_gpt2_train: profile' "$work/profile.txt"
} > "$profile"

"$python" - "$work" "$cpu" "$isa" "$rounds" "$steps" "$core" > "$out" <<'EOF'
import datetime, json, pathlib, statistics, sys
work, cpu, isa, rounds, steps, core = pathlib.Path(sys.argv[1]), *sys.argv[2:]
def runs(name):
    return [json.loads(line) for line in (work / f"{name}.jsonl").read_text().splitlines()]
def figure(rows, key):  # the median over rounds of each run's median step, the first step left out
    return statistics.median(statistics.median(row[key][1:]) for row in rows)
print(f"Measured on {datetime.date.today()} on {cpu} ({isa}) by `benchmarks/record_gpt2_train.sh`: "
      f"GPT-2 small (124M parameters, random weights) trained with AdamW (lr 1e-4, weight decay 0.01) "
      f"at batch 4 and sequence 64 on the King James Version in GPT-2's tokens, {steps} steps per run; "
      f"each figure is the median over {rounds} alternating rounds of each run's median step, "
      f"the first step left out. kael trains the parameters as `nn::load_gpt2` returns them "
      f"(the Conv1D weights as transposed views of the mapped file). Tuned is `OPENBLAS_CORETYPE={core}` "
      f"for both, and `OMP_WAIT_POLICY=PASSIVE` on 2 threads; as they start, neither is set.")
print()
print("| step, milliseconds | kael | PyTorch | kael / PyTorch | kael, tuned | PyTorch, tuned | kael / PyTorch, tuned |")
print("|---|---:|---:|---:|---:|---:|---:|")
worst = 0.0
for threads in (1, 2):
    label = "1 thread" if threads == 1 else f"{threads} threads"
    sides = {name: runs(f"{name}-{threads}") for name in ("kael", "torch", "kael_tuned", "torch_tuned")}
    for key, part in (("step_ms", "whole step"), ("forward_ms", "forward and loss"),
                      ("backward_ms", "backward"), ("optimizer_ms", "AdamW step")):
        k, t, kt, tt = (figure(sides[name], key) for name in ("kael", "torch", "kael_tuned", "torch_tuned"))
        print(f"| {part}, {label} | {k:.0f} | {t:.0f} | {k / t:.2f} | {kt:.0f} | {tt:.0f} | {kt / tt:.2f} |")
    for mine in sides["kael"] + sides["kael_tuned"]:
        for theirs in sides["torch"] + sides["torch_tuned"]:
            worst = max(worst, max(abs(a - b) for a, b in zip(mine["losses"], theirs["losses"])))
print()
print("Below 1 in a ratio column, kael is faster.")
print()
llmc_rows = []
for threads in (1, 2):
    log = work / f"llmc-{threads}.log"
    if log.exists():
        times = [float(line.split("(took ")[1].split(" ms")[0]) for line in log.read_text().splitlines()
                 if line.startswith("step ") and "(took " in line]
        if len(times) >= 2:
            llmc_rows.append((threads, statistics.median(times[1:]), len(times) - 1))
if llmc_rows:
    print("| llm.c's `train_gpt2` (no BLAS: its own loops, OpenMP), milliseconds a step | llm.c | kael | kael / llm.c |")
    print("|---|---:|---:|---:|")
    for threads, ms, count in llmc_rows:
        kael_ms = figure(runs(f"kael-{threads}"), "step_ms")
        label = "1 thread" if threads == 1 else f"{threads} threads"
        print(f"| llm.c's step, {label} (the median of its steps 1 to {count}) | {ms:.0f} | {kael_ms:.0f} | {kael_ms / ms:.2f} |")
    print()
    print("llm.c trains the same weights on the same tokens, in its own order (its loader shuffles) and "
          "without weight decay, so only its times compare, not its losses.")
    print()
kael = runs("kael-1")[0]
print(f"The losses agree: over every pair of runs, the largest difference between kael's and PyTorch's loss "
      f"at the same step is {worst:.1e} (the losses start at {kael['losses'][0]:.4f} and reach "
      f"{kael['losses'][-1]:.4f} after {steps} steps). Once training runs, kael's allocator makes "
      f"{kael['system_allocations'][-1]:.0f} system allocations in a step (it had {kael['peak_in_use_mib']:.0f} MiB "
      f"in use at its peak).")
EOF
echo "record_gpt2_train: wrote $out and $profile"
