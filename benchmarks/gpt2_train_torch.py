#!/usr/bin/env python3
"""PyTorch training GPT-2, the reference kael's GPT-2 training benchmark is measured against
(benchmarks/gpt2_train_speed.cpp is its twin; benchmarks/record_gpt2_train.sh runs both).

    gpt2_train_torch.py --model DIR --tokens FILE --threads N [--steps 12] [--batch 4]
                        [--seq 64] [--lr 1e-4]

The model is GPT-2 written as a PyTorch user writes it (nanoGPT's layout: nn.Linear,
nn.LayerNorm, nn.Embedding, the head tied to the token embedding, attention as masked
softmax, since PyTorch 1.13 has no fused attention on the CPU), loaded from a Hugging
Face-layout directory with the Conv1D weights copied transposed into the Linear layers, as
nanoGPT's from_pretrained does. It trains with torch.optim.AdamW (lr --lr, weight decay
0.01, PyTorch's other defaults) on the batches kael's twin uses: step s, row b starts at
token (s * batch + b) * seq of FILE (uint16 ids). Gradients are dropped between steps
(zero_grad(set_to_none=True)), PyTorch's fastest setting. Prints one JSON object on one line
with every step's time and loss.
"""
import argparse
import json
import math
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts" / "lib"))
import gpt2_reference as ref  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402


class Attention(nn.Module):
    def __init__(self, n_embd: int, n_head: int, n_positions: int):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.register_buffer("mask", torch.ones(n_positions, n_positions, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        scores = scores.masked_fill(~self.mask[:T, :T], float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int, n_positions: int, eps: float):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd, eps=eps)
        self.attn = Attention(n_embd, n_head, n_positions)
        self.ln_2 = nn.LayerNorm(n_embd, eps=eps)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.c_proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, config: dict):
        super().__init__()
        n_embd, n_head, n_positions = config["n_embd"], config["n_head"], config["n_positions"]
        eps = config["layer_norm_epsilon"]
        self.wte = nn.Embedding(config["vocab_size"], n_embd)
        self.wpe = nn.Embedding(n_positions, n_embd)
        self.h = nn.ModuleList(Block(n_embd, n_head, n_positions, eps) for _ in range(config["n_layer"]))
        self.ln_f = nn.LayerNorm(n_embd, eps=eps)
        self.lm_head = nn.Linear(n_embd, config["vocab_size"], bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as GPT-2's head is

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.size(1)))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))

    def load(self, state: dict):
        """Hugging Face's names and Conv1D layout into this module's."""
        mine = dict(self.named_parameters())
        with torch.no_grad():
            for name, tensor in state.items():
                name = name.removeprefix("transformer.")
                if name == "lm_head.weight" or name.endswith(".attn.bias") or name.endswith(".attn.masked_bias"):
                    continue
                name = name.replace(".mlp.c_fc.", ".c_fc.").replace(".mlp.c_proj.", ".c_proj.")
                conv1d = name.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight"))
                mine[name].copy_(tensor.t() if conv1d else tensor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=pathlib.Path, required=True)
    parser.add_argument("--tokens", type=pathlib.Path, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-4)
    args = parser.parse_args()
    if min(args.threads, args.steps, args.batch, args.seq) < 1:
        parser.error("--threads, --steps, --batch and --seq must be positive")
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(args.threads)

    config = json.loads((args.model / "config.json").read_text(encoding="utf-8"))
    model = GPT(config)
    model.load(ref.read_safetensors(args.model / "model.safetensors"))
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    ids = torch.from_numpy(np.fromfile(args.tokens, dtype="<u2").astype(np.int64))
    needed = args.steps * args.batch * args.seq + 1
    if ids.numel() < needed:
        parser.error(f"the token file holds {ids.numel()} tokens; the run needs {needed}")

    step_ms, forward_ms, backward_ms, optimizer_ms, losses = [], [], [], [], []
    for step in range(args.steps):
        starts = [(step * args.batch + b) * args.seq for b in range(args.batch)]
        inputs = torch.stack([ids[s : s + args.seq] for s in starts])
        targets = torch.stack([ids[s + 1 : s + 1 + args.seq] for s in starts])
        start = time.perf_counter()
        logits = model(inputs)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        forward_end = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        backward_end = time.perf_counter()
        optimizer.step()
        end = time.perf_counter()
        losses.append(loss.item())
        step_ms.append(1e3 * (end - start))
        forward_ms.append(1e3 * (forward_end - start))
        backward_ms.append(1e3 * (backward_end - forward_end))
        optimizer_ms.append(1e3 * (end - backward_end))
    print(json.dumps({"impl": "pytorch", "torch_version": torch.__version__, "threads": args.threads,
                      "batch": args.batch, "seq": args.seq, "step_ms": step_ms, "forward_ms": forward_ms,
                      "backward_ms": backward_ms, "optimizer_ms": optimizer_ms, "losses": losses}))


if __name__ == "__main__":
    main()
