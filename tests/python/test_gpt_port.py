"""A GPT written the way PyTorch programs write one (nanoGPT's shape: a ModuleDict of
blocks, a tied head, weight init by apply, AdamW with decay and no-decay groups, a cosine
learning rate written into param_groups, gradient clipping, a checkpoint, top-k
sampling), run by kael and by torch from the same weights on the same batches. The code
is written once; only the library it is given differs, as only the imports of a real
program change."""
import math

import numpy as np
import pytest

import kael

torch = pytest.importorskip("torch")

VOCAB, BLOCK, EMBD, HEADS, LAYERS = 17, 8, 16, 2, 2


def gpt(lib):
    nn, F = lib.nn, lib.nn.functional

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(EMBD, 3 * EMBD)
            self.c_proj = nn.Linear(EMBD, EMBD)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(EMBD, dim=2)
            q, k, v = (t.view(B, T, HEADS, C // HEADS).transpose(1, 2) for t in (q, k, v))
            if hasattr(F, "scaled_dot_product_attention"):
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
            else:  # torch 1.13: the same attention written out
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                mask = lib.tril(lib.ones(T, T)).view(1, 1, T, T)
                y = F.softmax(att.masked_fill(mask == 0, float("-inf")), dim=-1) @ v
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn = nn.LayerNorm(EMBD), SelfAttention()
            self.ln_2 = nn.LayerNorm(EMBD)
            self.mlp = nn.Sequential(nn.Linear(EMBD, 4 * EMBD), nn.GELU(), nn.Linear(4 * EMBD, EMBD))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(VOCAB, EMBD), wpe=nn.Embedding(BLOCK, EMBD),
                                                  h=nn.ModuleList([Block() for _ in range(LAYERS)]),
                                                  ln_f=nn.LayerNorm(EMBD)))
            self.lm_head = nn.Linear(EMBD, VOCAB, bias=False)
            self.transformer.wte.weight = self.lm_head.weight
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                lib.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    lib.nn.init.zeros_(module.bias)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = lib.arange(0, t, dtype=lib.long, device=idx.device)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            if targets is None:
                return logits[:, [-1], :], None
            return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

        def configure_optimizers(self, weight_decay, learning_rate):
            params = {name: p for name, p in self.named_parameters() if p.requires_grad}
            groups = [{"params": [p for p in params.values() if p.dim() >= 2], "weight_decay": weight_decay},
                      {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0}]
            return lib.optim.AdamW(groups, lr=learning_rate, betas=(0.9, 0.95))

        @lib.no_grad()
        def generate(self, idx, new_tokens, top_k):
            for _ in range(new_tokens):
                logits, _ = self(idx[:, -BLOCK:])
                logits = logits[:, -1, :]
                v, _ = lib.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
                idx = lib.cat((idx, lib.multinomial(F.softmax(logits, dim=-1), num_samples=1)), dim=1)
            return idx

    return GPT()


def batches(count):
    rng = np.random.default_rng(5)
    data = (np.arange(400) * 3) % VOCAB  # a pattern the model can learn in a few steps
    for _ in range(count):
        starts = rng.integers(0, len(data) - BLOCK - 1, size=4)
        yield (np.stack([data[s:s + BLOCK] for s in starts]), np.stack([data[s + 1:s + 1 + BLOCK] for s in starts]))


def learning_rate(step):
    return 1e-3 * 0.5 * (1 + math.cos(math.pi * step / 20))


def train(lib, model, optimizer, steps, first=0):
    losses = []
    for step, (x, y) in enumerate(batches(first + steps)):
        if step < first:
            continue
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step)
        _, loss = model(lib.from_numpy(x), lib.from_numpy(y))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    return losses


def twins():
    torch.manual_seed(0)
    t_model = gpt(torch)
    k_model = gpt(kael)
    assert list(k_model.state_dict()) == list(t_model.state_dict())
    k_model.load_state_dict({name: kael.tensor(value.numpy()) for name, value in t_model.state_dict().items()})
    return k_model, t_model


def test_training_follows_torchs_losses_step_by_step():
    k_model, t_model = twins()
    k_losses = train(kael, k_model, k_model.configure_optimizers(0.1, 1e-3), 12)
    t_losses = train(torch, t_model, t_model.configure_optimizers(0.1, 1e-3), 12)
    np.testing.assert_allclose(k_losses, t_losses, rtol=1e-5)
    assert k_losses[-1] < k_losses[0]


def test_a_checkpoint_resumes_the_run_exactly(tmp_path):
    k_model, _ = twins()
    optimizer = k_model.configure_optimizers(0.1, 1e-3)
    train(kael, k_model, optimizer, 6)
    kael.save({"model": k_model.state_dict(), "optimizer": optimizer.state_dict(), "iter_num": 6}, tmp_path / "c.pt")
    uninterrupted = train(kael, k_model, optimizer, 4, first=6)

    checkpoint = kael.load(tmp_path / "c.pt", map_location="cpu")
    resumed_model = gpt(kael)
    resumed_model.load_state_dict(checkpoint["model"])
    resumed_optimizer = resumed_model.configure_optimizers(0.1, 1e-3)
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])
    assert train(kael, resumed_model, resumed_optimizer, 4, first=checkpoint["iter_num"]) == uninterrupted


def test_sampling_keeps_to_the_top_k_tokens():
    k_model, _ = twins()
    k_model.eval()
    kael.manual_seed(1)
    start = kael.tensor([[1, 2, 3]], dtype=kael.long)
    out = k_model.generate(start, 6, top_k=3)
    assert out.shape == (1, 9) and out[:, :3].tolist() == [[1, 2, 3]] and not out.requires_grad
    logits, _ = k_model(out[:, :3])
    allowed = set(kael.topk(logits[0, -1], 3).indices.tolist())
    assert out[0, 3].item() in allowed
