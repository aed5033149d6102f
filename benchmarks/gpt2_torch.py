#!/usr/bin/env python3
"""PyTorch's eager speed on GPT-2, the reference kael's GPT-2 benchmark is measured against
(chapter 12).

    gpt2_torch.py --model DIR --threads N [--prompt-tokens 64] [--new-tokens 128]
                  [--no-cache-tokens 8] [--repeats 5] [--seed 0]

DIR is a Hugging Face-layout directory (config.json, model.safetensors), such as
scripts/make-tiny-gpt2 --preset gpt2 writes. The model is scripts/lib/gpt2_reference.py's
plain-PyTorch GPT-2, float32, run under torch.inference_mode, so it does the same
arithmetic kael does and nothing more (no dropout, no autograd bookkeeping). Measured:

    forward_ms_best, forward_ms_median   one forward pass over the prompt (no cache)
    prefill_ms            the prompt's forward pass that also fills the key/value cache
    decode_tokens_per_s   greedy decoding of --new-tokens tokens, one at a time, with the cache
    nocache_tokens_per_s  greedy decoding of --no-cache-tokens tokens rerunning the whole
                          sequence each step (null with --no-cache-tokens 0)

Each figure but the forward median is the best of --repeats runs, after one warm-up run
that is not timed (it pays for first-touch page faults and the allocator's first growth).
Prints one JSON object on one line.
"""
import argparse
import json
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts" / "lib"))
import gpt2_reference as ref  # noqa: E402

import torch  # noqa: E402


def seconds(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=pathlib.Path, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--prompt-tokens", type=int, default=64)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--no-cache-tokens", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0, help="seed of the random prompt")
    args = parser.parse_args()
    if args.threads < 1 or args.repeats < 1 or args.prompt_tokens < 1 or args.new_tokens < 1 or args.no_cache_tokens < 0:
        parser.error("--threads, --repeats, --prompt-tokens and --new-tokens must be positive")

    # Both pools: intra-op is what matmuls use; inter-op is pinned too so that nothing
    # else PyTorch starts competes for the cores the comparison assumes.
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(args.threads)

    model = ref.load_model(args.model)
    longest = args.prompt_tokens + max(args.new_tokens, args.no_cache_tokens)
    if longest > model.n_positions:
        parser.error(f"{longest} tokens is more than the model's {model.n_positions} positions")
    vocab_size = model.w["wte.weight"].shape[0]
    generator = torch.Generator().manual_seed(args.seed)
    prompt = torch.randint(vocab_size, (1, args.prompt_tokens), generator=generator)

    def forward():
        model(prompt)

    # Prefill and decode are timed separately inside one generation, as the prompt's
    # cost grows with its length while each decode step's grows only with the cache.
    def generate():
        start = time.perf_counter()
        logits, past = model(prompt)
        token = logits[:, -1:].argmax(-1)
        prefill = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(args.new_tokens):
            logits, past = model(token, past)
            token = logits[:, -1:].argmax(-1)
        return prefill, time.perf_counter() - start

    def generate_without_cache():
        sequence = prompt
        for _ in range(args.no_cache_tokens):
            logits, _ = model(sequence)
            sequence = torch.cat([sequence, logits[:, -1:].argmax(-1)], dim=1)

    with torch.inference_mode():
        forward()
        forward_times = [seconds(forward) for _ in range(args.repeats)]
        generate()
        prefill_times, decode_times = zip(*(generate() for _ in range(args.repeats)))
        nocache = None
        if args.no_cache_tokens > 0:
            generate_without_cache()
            nocache = args.no_cache_tokens / min(seconds(generate_without_cache) for _ in range(args.repeats))

    print(json.dumps({
        "impl": "torch",
        "torch_version": torch.__version__,
        "threads": args.threads,
        "forward_ms_best": round(1e3 * min(forward_times), 3),
        "forward_ms_median": round(1e3 * statistics.median(forward_times), 3),
        "prefill_ms": round(1e3 * min(prefill_times), 3),
        "decode_tokens_per_s": round(args.new_tokens / min(decode_times), 3),
        "nocache_tokens_per_s": None if nocache is None else round(nocache, 3),
        "prompt_tokens": args.prompt_tokens,
        "new_tokens": args.new_tokens,
        "no_cache_tokens": args.no_cache_tokens,
        "repeats": args.repeats,
    }))


if __name__ == "__main__":
    main()
