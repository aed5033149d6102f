#!/usr/bin/env python3
"""The PyTorch twin of examples/char_gpt.cpp: the same model and recipe, for comparing.

A GPT of 4 layers, 4 heads and width 128 (pre-LayerNorm blocks, GELU with the tanh form,
a head tied to the token embedding, GPT-2's initialisation with scaled residual
projections), context 64, batch 16, AdamW (lr 1e-3, betas 0.9/0.99, weight decay 0.1),
gradients clipped to norm 1, on the same text and split. The batches come from NumPy's
generator, so the curves are comparable in distribution, not draw for draw. Prints the
lines char_gpt prints.

    /usr/bin/python3 examples/char_gpt.py --data build/data/kjv.txt [--steps 2000] [--threads 1]
"""
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(width)
        self.c_attn = nn.Linear(width, 3 * width)
        self.attn_proj = nn.Linear(width, width)
        self.ln_2 = nn.LayerNorm(width)
        self.c_fc = nn.Linear(width, 4 * width)
        self.mlp_proj = nn.Linear(4 * width, width)

    # book-region: attention
    def attention(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        y = scores.masked_fill(~mask, float("-inf")).softmax(-1) @ v
        return self.attn_proj(y.transpose(1, 2).reshape(b, t, c))
    # end-book-region: attention

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab, block, layers, heads, width):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(block, width)
        self.h = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        # book-region: init
        for name, p in self.named_parameters():
            if name.endswith("proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * layers))
            elif name.endswith("weight") and p.dim() == 2:
                nn.init.normal_(p, 0.0, 0.02)
            elif name.endswith("bias") and "ln" not in name:
                nn.init.zeros_(p)
        # end-book-region: init

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.h:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.T


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--block-size", type=int, default=64)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--eval-every", type=int, default=200)
    parser.add_argument("--eval-batches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    text = open(args.data, encoding="utf-8").read()
    characters = sorted(set(text))
    index = {ch: i for i, ch in enumerate(characters)}
    tokens = np.array([index[ch] for ch in text], dtype=np.int64)
    split = len(tokens) * 9 // 10
    train, validation = tokens[:split], tokens[split:]
    model = GPT(len(characters), args.block_size, args.layers, args.heads, args.width)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.99), weight_decay=0.1)
    print(f"text: {len(text)} characters ({len(train)} train, {len(validation)} validation), "
          f"{len(characters)} distinct\nmodel: {sum(p.numel() for p in model.parameters())} parameters")

    def batch(source, rng):
        starts = rng.integers(0, len(source) - args.block_size - 1, size=args.batch_size)
        x = np.stack([source[s:s + args.block_size] for s in starts])
        y = np.stack([source[s + 1:s + args.block_size + 1] for s in starts])
        return torch.from_numpy(x), torch.from_numpy(y)

    def loss_of(x, y):
        logits = model(x)
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), y.reshape(-1))

    def validation_loss():
        rng = np.random.default_rng(args.seed + 12345)
        model.eval()
        with torch.no_grad():
            total = sum(loss_of(*batch(validation, rng)).item() for _ in range(args.eval_batches))
        model.train()
        return total / args.eval_batches

    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    for step in range(args.steps):
        loss = loss_of(*batch(train, rng))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if (step + 1) % args.eval_every == 0 or step + 1 == args.steps:
            print(f"step {step + 1:5d}  train loss {loss.item():.4f}  validation loss {validation_loss():.4f}",
                  flush=True)
    seconds = time.perf_counter() - start
    print(f"training: {args.steps} steps in {seconds:.1f} s, "
          f"{args.steps * args.batch_size * args.block_size / seconds:.0f} tokens/s")


if __name__ == "__main__":
    main()
