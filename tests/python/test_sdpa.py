"""F.scaled_dot_product_attention with PyTorch's whole signature (chapter 11) against the
math PyTorch's own implementation computes (torch 1.13 has no such function, so the
reference is written out): attn_mask as bool and as float, is_causal, scale, dropout_p,
values and gradients."""
import math

import numpy as np
import pytest

import kael
import kael.nn.functional as F

torch = pytest.importorskip("torch")


def reference(q, k, v, attn_mask=None, is_causal=False, scale=None):
    scale = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    scores = q @ k.transpose(-2, -1) * scale
    if is_causal:
        attn_mask = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else scores + attn_mask
    return scores.softmax(-1) @ v


def operands(seed, t=5, s=5):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in ((2, 3, t, 4), (2, 3, s, 4), (2, 3, s, 6))]
    return ([kael.tensor(a, requires_grad=True) for a in arrays], [torch.tensor(a, requires_grad=True) for a in arrays])


MASKS = {
    "none": lambda lib, t, s: None,
    "bool": lambda lib, t, s: lib.tensor(np.random.default_rng(2).random((t, s)) > 0.3) + lib.eye(t, dtype=lib.bool)
    if t == s else None,
    "float": lambda lib, t, s: lib.tensor(np.random.default_rng(3).standard_normal((1, 3, t, s)).astype(np.float32)),
}


# An explicit mask and is_causal are refused together (tested below), so each mask runs alone.
@pytest.mark.parametrize("mask,is_causal", [("none", False), ("none", True), ("bool", False), ("float", False)])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_matches_the_math_with_masks_causal_and_scale(mask, is_causal, scale):
    (kq, kk, kv), (tq, tk, tv) = operands(1)
    k_mask, t_mask = MASKS[mask](kael, 5, 5), MASKS[mask](torch, 5, 5)
    k_out = F.scaled_dot_product_attention(kq, kk, kv, attn_mask=k_mask, dropout_p=0.0, is_causal=is_causal,
                                           scale=scale)
    t_out = reference(tq, tk, tv, t_mask, is_causal, scale)
    np.testing.assert_allclose(k_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    weights = np.random.default_rng(9).standard_normal(t_out.shape).astype(np.float32)
    (k_out * kael.tensor(weights)).sum().backward()
    (t_out * torch.tensor(weights)).sum().backward()
    for k, t in ((kq, tq), (kk, tk), (kv, tv)):
        np.testing.assert_allclose(k.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_dropout_keeps_the_expected_mean_and_zeroes_some_weights():
    kael.manual_seed(0)
    q = kael.zeros(1, 1, 400, 8)
    v = kael.ones(1, 1, 400, 8)
    out = F.scaled_dot_product_attention(q, q, v, dropout_p=0.5)
    # Uniform weights of 1/400, half dropped and the rest doubled: each output averages 1.
    assert abs(out.mean().item() - 1.0) < 0.05 and out.std().item() > 0.01
    assert F.scaled_dot_product_attention(q, q, v, dropout_p=0.0).std().item() < 1e-6


def test_bad_arguments_are_refused():
    (q, k, v), _ = operands(1)
    with pytest.raises(ValueError, match="is_causal"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=kael.ones(5, 5, dtype=kael.bool), is_causal=True)
    with pytest.raises(ValueError, match="dropout"):
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
    with pytest.raises(TypeError):
        F.scaled_dot_product_attention(q, k, v, causal=True)
