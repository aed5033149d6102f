#!/usr/bin/python3
"""Generates text with GPT-2 from a Hugging Face model directory, from Python (chapter 12):
the twin of examples/gpt2_generate.cpp, with the same options and the same output.

    PYTHONPATH=build/main/python /usr/bin/python3 examples/gpt2_generate.py --model DIR
        [--prompt TEXT] [--max-new-tokens 64] [--temperature 0.8] [--top-k 40] [--top-p 1.0]
        [--seed 0] [--threads N] [--greedy] [--no-cache]

The continuation is printed as it is generated; the speed of the prompt's prefill and of
the decode goes to standard error at the end.
"""
import argparse
import sys

import kael


def rate(tokens: int, seconds: float) -> str:
    per_second = tokens / seconds if seconds > 0 else 0.0
    return f"{tokens} tokens in {seconds:.3f} s ({per_second:.1f} tokens/s)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="config.json, model.safetensors, vocab.json, merges.txt")
    parser.add_argument("--prompt", default="<|endoftext|>")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--top-k", type=int, default=40)
    parser.add_argument("--top-p", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--greedy", action="store_true", help="temperature 0: the most likely token each time")
    parser.add_argument("--no-cache", action="store_true", help="rerun the whole sequence for every token")
    args = parser.parse_args()
    try:
        if args.threads is not None:
            kael.set_num_threads(args.threads)
        tokenizer = kael.text.GPT2Tokenizer.from_directory(args.model)
        model = kael.nn.load_gpt2(args.model)
        prompt = tokenizer.encode(args.prompt, allow_special=True)
        kael.manual_seed(args.seed)
        decoder = kael.text.StreamingDecoder(tokenizer)
        print(args.prompt, end="", flush=True)
        result = kael.nn.generate(
            model, prompt, max_new_tokens=args.max_new_tokens,
            temperature=0.0 if args.greedy else args.temperature, top_k=args.top_k, top_p=args.top_p,
            stop_token=tokenizer.end_of_text, use_cache=not args.no_cache,
            on_token=lambda token: print(decoder.push(token), end="", flush=True))
        print(decoder.finish())
    except (ValueError, IndexError, TypeError, RuntimeError, OSError) as error:
        print(f"gpt2_generate.py: {error}", file=sys.stderr)
        return 1
    print(f"threads {kael.get_num_threads()}; prefill: {rate(len(prompt), result['prefill_seconds'])}; "
          f"decode: {rate(result['decode_steps'], result['decode_seconds'])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
