#!/usr/bin/env bash
# Records benchmarks/RESULTS-serving.md (chapter 13):
#
# - the load test: examples/gpt2_server with GPT-2 small (124M parameters, random weights in
#   the Hugging Face layout with GPT-2's real vocabulary, which scripts/make-tiny-gpt2
#   writes once into build/data/gpt2-124m-serving) under CLIENTS concurrent clients for
#   SECONDS seconds (benchmarks/server_load.py; 16 and 30 unless given), once with the
#   decode steps of up to 8 requests batched together and once with one request at a time;
# - the serving benchmark in vLLM's manner (benchmarks/serving_benchmark.py): Poisson arrivals
#   at 1, 2 and 4 requests a second and all at once, at most 8 in flight, against the batched
#   server;
# - what batching buys: benchmarks/decode_batch.cpp, a decode step of 1, 2, 4 and 8 rows
#   on one thread and on every core;
# - what chunked prefill buys: benchmarks/serve_prefill.cpp, 8 streams while a 900-token
#   prompt arrives, its prompt in chunks of 64, 128 and 256 tokens and whole; and what
#   prefix caching buys, the time to first token of a repeated 512-token prefix;
# - the profiler's price: benchmarks/bench_profiler.cpp.
#
# Needs a build in build/main (or $1) with -DKAEL_BUILD_BENCHMARKS=ON, python3-torch (to
# write the model) and the vocabulary (scripts/fetch-gpt2-vocab).
#
#   benchmarks/record_serving.sh [BUILD_DIR] [CLIENTS] [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/main}"
clients="${2:-16}"
seconds="${3:-30}"
out="$root/benchmarks/RESULTS-serving.md"
model="$root/build/data/gpt2-124m-serving"
python=/usr/bin/python3
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ ! -f "$model/model.safetensors" ] || [ ! -f "$model/vocab.json" ]; then
  "$python" "$root/scripts/make-tiny-gpt2" "$model" --preset gpt2 --seed 0 --vocab-dir "$root/build/data/gpt2-vocab"
fi
threads="$(nproc)"

for batch in 8 1; do
  OPENBLAS_NUM_THREADS=1 "$build/examples/gpt2_server" --model "$model" --port 0 --threads "$threads" \
    --max-batch "$batch" --max-queue 64 --name gpt2-random > "$work/server-$batch.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    grep -q "on http://" "$work/server-$batch.log" && break
    sleep 0.2
  done
  port="$(sed -n 's/.* on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/server-$batch.log")"
  curl -s "http://127.0.0.1:$port/metrics?format=json" > "$work/before-$batch.json"
  "$python" "$root/benchmarks/server_load.py" --url "http://127.0.0.1:$port" --clients "$clients" \
    --seconds "$seconds" --max-tokens 32 --json "$work/load-$batch.json"
  curl -s "http://127.0.0.1:$port/metrics?format=json" > "$work/after-$batch.json"
  if [ "$batch" = 8 ]; then
    "$python" "$root/benchmarks/serving_benchmark.py" --url "http://127.0.0.1:$port" --requests 32 \
      --rates 1,2,4,inf --max-concurrency 8 --input-len 128 --output-len 64 --json "$work/bench.json"
  fi
  kill -TERM "$server_pid"
  wait "$server_pid" || true
  server_pid=""
  echo "record_serving: max-batch $batch done" >&2
done

for t in 1 "$threads"; do
  OPENBLAS_NUM_THREADS=1 "$build/benchmarks/kael_bench_decode_batch" --model "$model" --threads "$t" \
    > "$work/decode-$t.json"
done

OPENBLAS_NUM_THREADS=1 "$build/benchmarks/kael_bench_serve_prefill" --model "$model" --threads "$threads" \
  > "$work/prefill.json"

OPENBLAS_NUM_THREADS=1 "$build/benchmarks/kael_bench_profiler" --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_format=json > "$work/profiler.json" 2> /dev/null

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
if grep -q avx512f /proc/cpuinfo; then isa="AVX-512"; else isa="AVX2, no AVX-512"; fi
# The family and model tell CPUs of one name apart (an AMD EPYC of family 25 is a Zen 3 or 4,
# of family 26 a Zen 5), and their speeds differ.
family="$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)"
model_number="$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)"
isa="family $family model $model_number, $isa"
"$python" - "$work" "$cpu" "$isa" "$threads" "$(git -C "$root" rev-parse --short HEAD)" > "$out" <<'PY'
import datetime, json, pathlib, sys
work, cpu, isa, threads, commit = pathlib.Path(sys.argv[1]), *sys.argv[2:]
print("# Serving: the load test and the profiler's price")
print()
print(f"Recorded on {datetime.date.today()} at commit {commit} by `benchmarks/record_serving.sh` on {cpu} "
      f"({isa}), the server's kernels on {threads} threads. The model is GPT-2 small (124M parameters) with "
      "random weights and GPT-2's vocabulary; each request asks for 32 tokens (temperature 0.8, top-k 40), half "
      "of them streamed.")
print()
print("| run | clients | seconds | requests | complete | clear errors | broken | requests/s | tokens/s "
      "| p50 latency s | p99 latency s | mean decode batch |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for batch in (8, 1):
    load = json.loads((work / f"load-{batch}.json").read_text())
    before = json.loads((work / f"before-{batch}.json").read_text())
    after = json.loads((work / f"after-{batch}.json").read_text())
    tokens = after["completion_tokens"] - before["completion_tokens"]
    steps = after["decode_steps"] - before["decode_steps"]
    mean_batch = after["mean_decode_batch"]
    print(f"| max-batch {batch} | {load['clients']} | {load['seconds']:.1f} | {load['requests']} | {load['complete']} "
          f"| {load['clear_errors']} | {load['broken']} | {load['requests_per_second']:.2f} "
          f"| {tokens / load['seconds']:.1f} | {load['latency_p50_seconds']:.3f} | {load['latency_p99_seconds']:.3f} "
          f"| {mean_batch:.2f} |")
print()
print("A request is complete when it got status 200 and, streamed, a last event with a finish reason and "
      "`[DONE]`; a clear error is a status of 4xx or 5xx with a JSON error body; anything else is broken. "
      "Latencies are those of complete requests, from sending the request to reading its last byte.")
print()
bench = json.loads((work / "bench.json").read_text())
print("## The serving benchmark")
print()
print(f"`benchmarks/serving_benchmark.py` against the batched server (max-batch 8), as vLLM's `benchmark_serving` "
      f"runs: {bench['runs'][0]['requests']} requests, prompts of random token ids {bench['input_len']} long and "
      f"outputs {bench['output_len']} long, each within {bench['range_ratio']:.0%} (seed {bench['seed']}), arriving as "
      f"a Poisson process of the given rate (inf: all at once), at most {bench['runs'][0]['max_concurrency']} in flight, "
      "streamed, the end-of-text token banned so every output has its length. TTFT is the time to the first token, "
      "TPOT the time per output token after it, ITL the gap between tokens; goodput counts the requests a second that "
      f"met TTFT <= {bench['ttft_slo_ms']:.0f} ms and TPOT <= {bench['tpot_slo_ms']:.0f} ms. The client shares the "
      "machine's cores with the server; its own CPU time is the last column.")
print()
print("| request rate | completed | requests/s | output tokens/s | TTFT mean ms | TTFT median ms | TTFT p99 ms "
      "| TPOT median ms | TPOT p99 ms | ITL median ms | ITL p99 ms | goodput requests/s | client CPU s |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for run in bench["runs"]:
    rate = "inf" if run["rate"] == "inf" else f"{run['rate']:g}/s"
    print(f"| {rate} | {run['completed']} | {run['request_throughput']:.2f} | {run['output_throughput']:.1f} "
          f"| {run['ttft_ms']['mean']:.0f} | {run['ttft_ms']['median']:.0f} | {run['ttft_ms']['p99']:.0f} "
          f"| {run['tpot_ms']['median']:.1f} | {run['tpot_ms']['p99']:.1f} | {run['itl_ms']['median']:.1f} "
          f"| {run['itl_ms']['p99']:.1f} | {run['goodput']:.2f} | {run['client_cpu_s']:.2f} |")
print()
print("## A decode step of several rows")
print()
decode = {t: json.loads((work / f"decode-{t}.json").read_text()) for t in sorted({1, int(threads)})}
first = next(iter(decode.values()))
print(f"`kael_bench_decode_batch`: R sequences, each with a {first['prompt_tokens']}-token prompt in its own cache, "
      f"take one decode step together (`nn::decode_step`) and one draw each (temperature {first['temperature']:g}, "
      f"top-k {first['top_k']}); the median of {first['steps'] - 1} steps. The compute floor is R multiply-adds for "
      f"each of the model's {first['parameters']:,} parameters at the rate of kael's blocked matrix product on a "
      "problem that fits the caches (128 rows times a 768 x 3072 matrix), measured beside it on the same threads.")
print()
print("| run | model ms | sampling ms | step ms | step / 1-row step | compute floor ms |")
print("|---|---:|---:|---:|---:|---:|")
for t, run in decode.items():
    for row in run["rows"]:
        print(f"| {t} thread{'s' if t > 1 else ''}, {row['rows']} row{'s' if row['rows'] > 1 else ''} | {row['model_ms']:.1f} | {row['sample_ms']:.2f} | {row['step_ms']:.1f} "
              f"| {row['ratio_to_one_row']:.2f} | {row['compute_floor_ms']:.1f} |")
print()
print("The blocked product's rate: " + ", ".join(f"{run['gemm_gflops']:.1f} GFLOP/s on {t} thread{'s' if t > 1 else ''}"
                                               for t, run in decode.items()) + ". "
      f"The profiler's largest rows for a step of {first['profile_rows']} rows on one thread, per step:")
print()
print("| operation | calls | total ms | self ms |")
print("|---|---:|---:|---:|")
for row in first["profile"][:8]:
    print(f"| {row['name']} | {row['calls_per_step']:.0f} | {row['total_ms_per_step']:.2f} | {row['self_ms_per_step']:.2f} |")
print()
print("## A long prompt beside running streams")
print()
prefill = json.loads((work / "prefill.json").read_text())
print(f"`kael_bench_serve_prefill`: {prefill['streams']} streams decode side by side (each {prefill['stream_tokens']} "
      f"tokens) when a request with a {prefill['long_prompt_tokens']}-token prompt arrives; the scheduler prefills it "
      f"in chunks of at most the given size a step, beside the streams' decode rows, or whole (a chunk as long as the "
      f"context); {prefill['threads']} threads. The streams' inter-token latency is measured over the gaps that overlap "
      "the long prompt's prefill, from its submission to its first token.")
print()
print("| prefill chunk | long prompt's time to first token s | streams' median inter-token ms "
      "| p99 inter-token ms during the prefill | largest ms during the prefill |")
print("|---|---:|---:|---:|---:|")
for run in prefill["runs"]:
    label = "whole" if run is prefill["runs"][-1] else f"{run['chunk']} tokens"
    print(f"| {label} | {run['long_ttft_s']:.2f} | {run['itl_median_ms']:.1f} | {run['itl_p99_during_prefill_ms']:.0f} "
          f"| {run['itl_max_during_prefill_ms']:.0f} |")
print()
prefix = prefill["prefix"]
print(f"Prefix caching: a prompt of a {prefix['prefix_tokens']}-token prefix and {prefix['own_tokens']} tokens of its "
      "own, alone on the server, one token asked for. The time to its first token:")
print()
print("| the prefix | time to first token s | speed-up over a fresh prefix |")
print("|---|---:|---:|")
print(f"| fresh | {prefix['fresh_ttft_s']:.3f} | 1.0 |")
print(f"| used by the request before, prefix caching off | {prefix['uncached_ttft_s']:.3f} "
      f"| {prefix['fresh_ttft_s'] / prefix['uncached_ttft_s']:.1f} |")
print(f"| used by the request before, prefix caching on ({prefix['reused_tokens']} positions reused) "
      f"| {prefix['cached_ttft_s']:.3f} | {prefix['fresh_ttft_s'] / prefix['cached_ttft_s']:.1f} |")
print()
print("## The profiler's price")
print()
bench = {b["name"]: b for b in json.loads((work / "profiler.json").read_text())["benchmarks"]}
def median_ns(name):
    return bench[f"{name}_median"]["real_time"]
print("| measure | ns |")
print("|---|---:|")
for label, name in (("a tiny operation, no Profiler", "BM_TinyOpProfilerOff"),
                    ("a recording point, no Profiler", "BM_RecordingPointProfilerOff"),
                    ("a tiny operation, recorded", "BM_TinyOpProfilerOn")):
    value = median_ns(name)
    print(f"| {label} | {value:.1f} |" if value >= 10 else f"| {label} | {value:.2f} |")
print()
print("The median of 5 repetitions of `kael_bench_profiler` (exp of a one-element tensor), one thread.")
PY
echo "record_serving: wrote $out" >&2
