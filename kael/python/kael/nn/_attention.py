"""F.scaled_dot_product_attention with PyTorch's whole signature (chapter 11).

Without a mask or dropout it is kael's fused operation (one pass over each row of scores,
no mask tensor). An `attn_mask` or a `dropout_p` above 0 takes the composition PyTorch's
math path computes: scores = q k^T * scale, plus the mask (a float mask is added, a bool
mask keeps the positions that are True), softmax, dropout, times v. Both are
differentiable."""
import math

from .. import _kael


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    if attn_mask is not None and is_causal:
        raise ValueError("scaled_dot_product_attention: an explicit attn_mask cannot be combined with is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if attn_mask is None and dropout_p == 0.0:
        return _kael.scaled_dot_product_attention(query, key, value, is_causal=is_causal, scale=scale)
    scale = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        queries, keys = query.size(-2), key.size(-2)
        attn_mask = _kael.ones(queries, keys, dtype=_kael.bool, device=query.device).tril()
    if attn_mask is not None:
        if attn_mask.dtype == _kael.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = _kael.nn.functional.dropout(weights, dropout_p, True)
    return weights.matmul(value)
