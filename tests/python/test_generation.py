"""Chapter 11 from Python: multinomial, sample_next and the fused attention, the last
against attention written in PyTorch (1.13 has no fused one of its own) on random inputs."""
import math

import numpy as np
import pytest

import kael
import kael.nn.functional as F


def test_multinomial_follows_the_weights():
    kael.manual_seed(0)
    draws = kael.multinomial(kael.tensor([1.0, 3.0]), 20000, replacement=True)
    assert draws.dtype == kael.int64 and abs(draws.float().mean().item() - 0.75) < 0.02
    with pytest.raises(ValueError):
        kael.multinomial(kael.tensor([1.0, -1.0]), 1)


def test_sample_next_greedy_and_filtered():
    logits = kael.tensor([[0.0, 2.0, 1.0], [5.0, 5.0, -1.0]])
    assert kael.sample_next(logits, temperature=0).tolist() == [1, 0]
    kael.manual_seed(1)
    assert set(kael.sample_next(logits[0], top_k=1).tolist() for _ in range(20)) == {1}
    with pytest.raises(ValueError):
        kael.sample_next(logits, top_k=0)
    with pytest.raises(ValueError):
        kael.sample_next(logits, top_p=0.0)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("queries,keys", [(5, 5), (1, 6), (3, 7)])
def test_fused_attention_matches_torch(causal, queries, keys):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(queries * 10 + keys)
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in
              [(2, 3, queries, 8), (2, 3, keys, 8), (2, 3, keys, 4)]]
    kq, kk, kv = (kael.tensor(a, requires_grad=True) for a in arrays)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in arrays)
    ko = F.scaled_dot_product_attention(kq, kk, kv, is_causal=causal)
    scores = tq @ tk.transpose(-2, -1) / math.sqrt(8)
    if causal:
        scores = scores.masked_fill(~torch.ones(queries, keys, dtype=torch.bool).tril(), float("-inf"))
    to = scores.softmax(-1) @ tv
    np.testing.assert_allclose(ko.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-5)
    weights = rng.standard_normal(to.shape).astype(np.float32)
    (ko * kael.tensor(weights)).sum().backward()
    (to * torch.from_numpy(weights)).sum().backward()
    for k, t in [(kq, tq), (kk, tk), (kv, tv)]:
        np.testing.assert_allclose(k.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_the_gpt_trains_and_samples_from_python():
    kael.manual_seed(0)
    model = kael.nn.GPT(vocab_size=9, block_size=8, n_layer=1, n_head=2, n_embd=16)
    optimizer = kael.optim.AdamW(model.parameters(), lr=1e-2)
    data = kael.arange(9, dtype=kael.int64).view(1, 9)
    x, y = data[:, :8], data[:, 1:]
    losses = []
    for _ in range(40):
        loss = kael.nn.functional.cross_entropy(model(x).view(8, 9), y.reshape(8))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0]
    model.eval()
    with kael.no_grad():
        next_token = kael.sample_next(model(x[:, :3])[0, -1], temperature=0)
    assert next_token.item() == 3  # it learned to count
    assert "h.0.attn.c_attn.weight" in model.state_dict()
