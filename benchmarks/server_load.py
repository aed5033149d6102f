#!/usr/bin/env python3
"""A bounded load test of examples/gpt2_server (chapter 13): N clients on loopback send
completion requests one after the other for a fixed time, and the run reports throughput,
latency percentiles, and whether every request got a complete answer or a clear error.

    server_load.py --url http://127.0.0.1:PORT [--clients 16] [--seconds 30] [--max-tokens 32]
                   [--stream-share 0.5] [--json OUT.json]

Half the requests stream (server-sent events) and half do not, by default; each asks for
a different seed. A request "completes" when it gets status 200 and, streamed, its last
event has a finish reason and [DONE] follows; a "clear error" is a 4xx or 5xx status with
a JSON error body (429 when the queue is full). Anything else (a dropped connection, a
malformed body, a stream cut short) is counted as broken, and the run fails.
Only Python's standard library is used.
"""
import argparse
import http.client
import json
import math
import sys
import threading
import time
import urllib.parse

PROMPTS = ["The tensor is", "Once upon a time", "In the beginning", "A framework that is also a book"]


def nearest_rank(samples, p):
    """The p-th percentile by the nearest-rank rule, as the server's metrics compute it."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def read_stream(response):
    """(text, finish_reason, done) of a server-sent event stream."""
    text, finish, done = "", None, False
    for raw in response:
        line = raw.decode("utf-8").rstrip("\n")
        if not line.startswith("data: "):
            continue
        data = line[len("data: "):]
        if data == "[DONE]":
            done = True
            break
        event = json.loads(data)
        if "error" in event:
            return text, "error", False
        choice = event["choices"][0]
        text += choice["text"]
        finish = choice["finish_reason"] or finish
    return text, finish, done


def one_request(host, port, body, stream):
    """('complete' | 'error' | 'broken', status, tokens, seconds)."""
    start = time.perf_counter()
    connection = http.client.HTTPConnection(host, port, timeout=120)
    try:
        connection.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            payload = json.loads(response.read())
            ok = isinstance(payload.get("error", {}).get("message"), str)
            return ("error" if ok else "broken"), response.status, 0, time.perf_counter() - start
        if stream:
            _, finish, done = read_stream(response)
            complete = done and finish in ("length", "stop")
            tokens = None
        else:
            payload = json.loads(response.read())
            complete = payload["choices"][0]["finish_reason"] in ("length", "stop")
            tokens = payload["usage"]["completion_tokens"]
        return ("complete" if complete else "broken"), 200, tokens, time.perf_counter() - start
    except (OSError, ValueError, KeyError, http.client.HTTPException):
        return "broken", None, 0, time.perf_counter() - start
    finally:
        connection.close()


def run(url, clients, seconds, max_tokens, stream_share=0.5):
    """Runs the load and returns its summary as a dict."""
    parsed = urllib.parse.urlparse(url)
    host, port = parsed.hostname, parsed.port
    results = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    barrier = threading.Barrier(clients)

    def client(index):
        barrier.wait()
        n = 0
        while time.perf_counter() < deadline:
            stream = (n * clients + index) % 100 < stream_share * 100
            body = {"prompt": PROMPTS[(index + n) % len(PROMPTS)], "max_tokens": max_tokens,
                    "temperature": 0.8, "top_k": 40, "seed": index * 100003 + n, "stream": stream}
            outcome = one_request(host, port, body, stream)
            with lock:
                results.append(outcome)
            n += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    latencies = [r[3] for r in results if r[0] == "complete"]
    counted = [r[2] for r in results if r[0] == "complete" and r[2] is not None]
    summary = {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "max_tokens": max_tokens,
        "requests": len(results),
        "complete": sum(r[0] == "complete" for r in results),
        "clear_errors": sum(r[0] == "error" for r in results),
        "broken": sum(r[0] == "broken" for r in results),
        "status_429": sum(r[1] == 429 for r in results),
        "requests_per_second": round(sum(r[0] == "complete" for r in results) / elapsed, 2),
        "latency_p50_seconds": nearest_rank(latencies, 50),
        "latency_p99_seconds": nearest_rank(latencies, 99),
        # Tokens of the non-streamed requests (their usage says how many); streamed ones
        # are counted by the server's /metrics.
        "tokens_per_second_unstreamed": round(sum(counted) / elapsed, 1),
    }
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--stream-share", type=float, default=0.5)
    parser.add_argument("--json")
    args = parser.parse_args()
    summary = run(args.url, args.clients, args.seconds, args.max_tokens, args.stream_share)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0 if summary["broken"] == 0 and summary["complete"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
