#!/usr/bin/env python3
"""The twin of examples/train_gpt2.cpp from Python: fine-tunes GPT-2 from a Hugging Face
model directory on a text with kael's Python module, evaluates, checkpoints, resumes, and
samples at the end (chapter 12).

    PYTHONPATH=build/main/python /usr/bin/python3 examples/train_gpt2.py --model DIR
        [--data build/data/kjv.txt] [--steps 100] [--batch-size 4] [--block-size 64]
        [--lr 1e-4] [--weight-decay 0.01] [--seed 0] [--threads N] [--eval-every 20]
        [--eval-batches 8] [--checkpoint-every 0] [--resume FILE] [--out DIR]
        [--prompt TEXT] [--sample-tokens 40] [--temperature 0.8] [--top-k N]

The recipe is the C++ program's: the tokenizer of DIR, 90% of the tokens to train and 10%
to validate, AdamW (betas 0.9 and 0.95), gradients clipped to norm 1, the batches of step s
drawn from a generator seeded by (seed, s), so a resumed run computes what an
uninterrupted one does. The batches come from NumPy's generator, not the C++ program's, so
the two programs' curves agree in distribution, not draw for draw. The checkpoint
(<out>/train_gpt2.pt) holds the model's and AdamW's state dicts and the step, written by
kael.save (a safetensors file with the structure as JSON, as torch.save would be used).
"""
import argparse
import pathlib
import sys
import time

import numpy as np

import kael
import kael.nn.functional as F
import kael.nn.utils


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=pathlib.Path, required=True)
    parser.add_argument("--data", type=pathlib.Path, default=pathlib.Path("build/data/kjv.txt"))
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--block-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--weight-decay", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--eval-every", type=int, default=20)
    parser.add_argument("--eval-batches", type=int, default=8)
    parser.add_argument("--checkpoint-every", type=int, default=0)
    parser.add_argument("--resume", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("train_gpt2_out"))
    parser.add_argument("--prompt", default="And God said")
    parser.add_argument("--sample-tokens", type=int, default=40)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--top-k", type=int)
    args = parser.parse_args()
    if min(args.steps, args.checkpoint_every, args.sample_tokens) < 0 or \
            min(args.batch_size, args.block_size, args.eval_every, args.eval_batches) < 1:
        parser.error("counts must be positive (steps, checkpoint-every and sample-tokens may be 0)")
    return args


def batch_of(tokens: np.ndarray, args, rng: np.random.Generator):
    """`batch_size` windows of block_size + 1 tokens: inputs, and targets one further."""
    starts = rng.integers(0, len(tokens) - args.block_size - 1, size=args.batch_size)
    windows = np.stack([tokens[s:s + args.block_size + 1] for s in starts])
    return kael.tensor(windows[:, :-1].copy()), kael.tensor(windows[:, 1:].reshape(-1).copy())


def loss_of(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape([-1, logits.shape[-1]]), y)


def validation_loss(model, tokens: np.ndarray, args) -> float:
    model.eval()
    rng = np.random.default_rng([args.seed, 0x5EED])
    with kael.no_grad():
        total = sum(loss_of(model, *batch_of(tokens, args, rng)).item() for _ in range(args.eval_batches))
    model.train()
    return total / args.eval_batches


def save_checkpoint(path: pathlib.Path, model, optimizer, step: int) -> None:
    partial = path.with_suffix(".partial")
    kael.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, partial)
    partial.replace(path)  # a run killed while saving leaves the last checkpoint whole


def load_checkpoint(path: pathlib.Path, model, optimizer) -> int:
    state = kael.load(path)
    if not isinstance(state, dict) or "step" not in state:
        raise ValueError(f"{path} is not a checkpoint of train_gpt2.py")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return int(state["step"])


def main() -> int:
    args = parse()
    if not args.data.is_file():
        print(f"skipped: no text at '{args.data}' (scripts/make-corpus writes build/data/kjv.txt)")
        return 77
    if args.threads:
        kael.set_num_threads(args.threads)
    tokenizer = kael.text.GPT2Tokenizer.from_directory(str(args.model))
    model = kael.nn.load_gpt2(str(args.model))
    tokens = np.array(tokenizer.encode(args.data.read_text(encoding="utf-8")), dtype=np.int64)
    split = len(tokens) * 9 // 10
    train, validation = tokens[:split], tokens[split:]
    if len(validation) <= args.block_size + 1:
        raise ValueError(f"the text has {len(tokens)} tokens, too few for windows of {args.block_size}")

    model.train()
    optimizer = kael.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=args.weight_decay)
    step = 0
    if args.resume:
        step = load_checkpoint(args.resume, model, optimizer)
        print(f"resumed from {args.resume} at step {step}")
    print(f"text: {len(tokens)} tokens ({len(train)} train, {len(validation)} validation)\n"
          f"model: {model.num_parameters()} parameters, {kael.get_num_threads()} thread(s)")
    args.out.mkdir(parents=True, exist_ok=True)
    first, start = step, time.perf_counter()
    with open(args.out / "train_gpt2_loss.csv", "a" if args.resume else "w", encoding="utf-8") as curve:
        if not args.resume:
            curve.write("step,train_loss,val_loss\n")
        for step in range(step, args.steps):
            x, y = batch_of(train, args, np.random.default_rng([args.seed, step]))
            loss = loss_of(model, x, y)
            optimizer.zero_grad()
            loss.backward()
            kael.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            value = loss.item()
            line = f"{step + 1},{value:.9g},"
            if (step + 1) % args.eval_every == 0 or step + 1 == args.steps:
                val = validation_loss(model, validation, args)
                line += f"{val:.9g}"
                print(f"step {step + 1:5d}  train loss {value:.4f}  validation loss {val:.4f}", flush=True)
            curve.write(line + "\n")
            if args.checkpoint_every and (step + 1) % args.checkpoint_every == 0:
                save_checkpoint(args.out / "train_gpt2.pt", model, optimizer, step + 1)
        else:
            step = args.steps
    seconds = time.perf_counter() - start
    if step > first:
        print(f"training: {step - first} steps in {seconds:.1f} s, {1e3 * seconds / (step - first):.0f} ms a step")
    save_checkpoint(args.out / "train_gpt2.pt", model, optimizer, max(step, first))

    model.eval()
    kael.manual_seed(args.seed)
    result = kael.nn.generate(model, tokenizer.encode(args.prompt), max_new_tokens=args.sample_tokens,
                              temperature=args.temperature, top_k=args.top_k,
                              stop_token=tokenizer.end_of_text)
    print(f"sample (temperature {args.temperature:.2f}):\n{args.prompt}{tokenizer.decode(result['tokens'])}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ValueError, RuntimeError, OSError) as error:
        print(f"train_gpt2.py: {error}", file=sys.stderr)
        sys.exit(2)
