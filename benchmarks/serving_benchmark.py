#!/usr/bin/env python3
"""A serving benchmark as vLLM's benchmark_serving runs one (chapter 13), against
examples/gpt2_server or any server of OpenAI's completion API.

    serving_benchmark.py --url http://127.0.0.1:PORT [--requests 40] [--rates 1,2,inf]
                         [--max-concurrency 8] [--input-len 128] [--output-len 64]
                         [--range-ratio 0.5] [--seed 0] [--ttft-slo-ms 2000] [--tpot-slo-ms 200]
                         [--json OUT.json]

For each request rate the same requests are sent: prompts of random token ids and output
lengths drawn uniformly from [len * (1 - ratio), len * (1 + ratio)] with the seed (vLLM's
"random" dataset), arriving as a Poisson process of that rate (exponential gaps between
arrivals; "inf" sends them all at once), at most --max-concurrency in flight. Each request
streams, asks for exactly its output length (the end-of-text token is banned with
logit_bias, as vLLM's ignore_eos does) and is timed by the client:

- TTFT, time to first token: from sending the request to the first piece of text;
- TPOT, time per output token: (latency - TTFT) / (output tokens - 1), per request;
- ITL, inter-token latency: the gap between consecutive pieces of text, over all requests;
- E2E latency, and the throughputs: requests, output tokens and all tokens per second;
- goodput: requests per second that met both --ttft-slo-ms and --tpot-slo-ms.

Means, medians and 99th percentiles (nearest rank) are reported per rate, with the client's
own CPU time, which shares the machine with the server on a small one. Only Python's
standard library is used.
"""
import argparse
import http.client
import json
import math
import random
import statistics
import sys
import threading
import time
import urllib.parse

from server_load import nearest_rank  # the same percentile rule as the load test and the server

END_OF_TEXT = 50256


def summary(samples, scale=1e3):
    """Mean, median and p99 of `samples` (seconds) in milliseconds."""
    if not samples:
        return {"mean": None, "median": None, "p99": None}
    return {"mean": statistics.fmean(samples) * scale, "median": statistics.median(samples) * scale,
            "p99": nearest_rank(samples, 99) * scale}


def make_requests(count, input_len, output_len, ratio, vocab, seed):
    """(prompt token ids, output length) pairs, the same for every rate."""
    rng = random.Random(seed)
    span = lambda n: (max(1, int(n * (1 - ratio))), max(1, int(n * (1 + ratio))))
    low_in, high_in = span(input_len)
    low_out, high_out = span(output_len)
    requests = []
    for _ in range(count):
        length = rng.randint(low_in, high_in)
        requests.append(([rng.randrange(vocab - 1) for _ in range(length)], rng.randint(low_out, high_out)))
    return requests


def one_request(url, model, prompt, output_len, result):
    """Sends one streamed completion and records its timings into `result`."""
    parts = urllib.parse.urlsplit(url)
    body = {"prompt": prompt, "max_tokens": output_len, "stream": True, "temperature": 1.0, "seed": len(prompt),
            "logit_bias": {str(END_OF_TEXT): -100}, "stream_options": {"include_usage": True}}
    if model:
        body["model"] = model
    start = time.perf_counter()
    arrivals = []
    completion_tokens = None
    try:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
        connection.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            result.update(ok=False, error=f"status {response.status}: {response.read()[:200]!r}")
            return
        for raw in response:
            if not raw.startswith(b"data: "):
                continue
            if raw.startswith(b"data: [DONE]"):
                break
            event = json.loads(raw[6:])
            if event.get("usage"):
                completion_tokens = event["usage"]["completion_tokens"]
            if any(choice.get("text") for choice in event.get("choices", [])):
                arrivals.append(time.perf_counter())
        connection.close()
    except (OSError, http.client.HTTPException, ValueError) as error:
        result.update(ok=False, error=repr(error))
        return
    end = time.perf_counter()
    if not arrivals:
        result.update(ok=False, error="no text")
        return
    tokens = completion_tokens if completion_tokens is not None else len(arrivals)
    result.update(ok=True, ttft=arrivals[0] - start, latency=end - start, output_tokens=tokens,
                  prompt_tokens=len(prompt), itls=[b - a for a, b in zip(arrivals, arrivals[1:])],
                  tpot=(end - start - (arrivals[0] - start)) / (tokens - 1) if tokens > 1 else None)


def run_rate(url, model, requests, rate, max_concurrency, seed, ttft_slo, tpot_slo):
    rng = random.Random(seed)
    gate = threading.Semaphore(max_concurrency)
    results = [dict() for _ in requests]
    threads = []
    cpu_start = time.process_time()
    start = time.perf_counter()

    def worker(index):
        try:
            prompt, output_len = requests[index]
            one_request(url, model, prompt, output_len, results[index])
        finally:
            gate.release()

    for index in range(len(requests)):
        if rate != math.inf and index > 0:
            time.sleep(rng.expovariate(rate))
        gate.acquire()
        thread = threading.Thread(target=worker, args=(index,))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    duration = time.perf_counter() - start
    done = [r for r in results if r.get("ok")]
    output_tokens = sum(r["output_tokens"] for r in done)
    prompt_tokens = sum(r["prompt_tokens"] for r in done)
    good = [r for r in done if r["ttft"] * 1e3 <= ttft_slo and (r["tpot"] is None or r["tpot"] * 1e3 <= tpot_slo)]
    return {
        "rate": "inf" if rate == math.inf else rate,
        "max_concurrency": max_concurrency,
        "requests": len(requests),
        "completed": len(done),
        "failed": len(requests) - len(done),
        "errors": sorted({r["error"] for r in results if not r.get("ok")})[:3],
        "duration_s": duration,
        "request_throughput": len(done) / duration,
        "output_throughput": output_tokens / duration,
        "total_token_throughput": (output_tokens + prompt_tokens) / duration,
        "goodput": len(good) / duration,
        "ttft_ms": summary([r["ttft"] for r in done]),
        "tpot_ms": summary([r["tpot"] for r in done if r["tpot"] is not None]),
        "itl_ms": summary([gap for r in done for gap in r["itls"]]),
        "e2e_latency_ms": summary([r["latency"] for r in done]),
        "client_cpu_s": time.process_time() - cpu_start,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", default="")
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--rates", default="1,2,inf")
    parser.add_argument("--max-concurrency", type=int, default=8)
    parser.add_argument("--input-len", type=int, default=128)
    parser.add_argument("--output-len", type=int, default=64)
    parser.add_argument("--range-ratio", type=float, default=0.5)
    parser.add_argument("--vocab-size", type=int, default=50257)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ttft-slo-ms", type=float, default=2000.0)
    parser.add_argument("--tpot-slo-ms", type=float, default=200.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.requests < 1 or args.max_concurrency < 1 or not 0 <= args.range_ratio < 1:
        parser.error("--requests and --max-concurrency must be positive, --range-ratio in [0, 1)")
    rates = [math.inf if r.strip() == "inf" else float(r) for r in args.rates.split(",")]
    requests = make_requests(args.requests, args.input_len, args.output_len, args.range_ratio, args.vocab_size,
                             args.seed)
    runs = []
    for rate in rates:
        run = run_rate(args.url, args.model, requests, rate, args.max_concurrency, args.seed, args.ttft_slo_ms,
                       args.tpot_slo_ms)
        print(json.dumps(run), file=sys.stderr)
        runs.append(run)
    report = {"input_len": args.input_len, "output_len": args.output_len, "range_ratio": args.range_ratio,
              "seed": args.seed, "ttft_slo_ms": args.ttft_slo_ms, "tpot_slo_ms": args.tpot_slo_ms, "runs": runs}
    text = json.dumps(report, indent=1)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    else:
        print(text)
    return 0 if all(run["failed"] == 0 for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
