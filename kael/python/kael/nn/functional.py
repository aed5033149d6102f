"""kael.nn.functional: the operations of the nn layer as functions, PyTorch's names and
keywords. An option kael does not have raises an error that names it, never a silent
difference."""
from .. import _kael
from .._kael.nn.functional import dropout as _dropout, embedding as _embedding, layer_norm as _layer_norm
from .._kael.nn.functional import cross_entropy as _cross_entropy, mse_loss, nll_loss  # noqa: F401
#> stage 12
from ._attention import scaled_dot_product_attention  # noqa: F401
#< stage 12


def _unsupported(function, **options):
    """NotImplementedError for the first option given a value kael cannot honour."""
    for name, (value, default) in options.items():
        if not (value is default or (not isinstance(value, _kael.Tensor) and value == default)):
            raise NotImplementedError(f"{function}: kael does not support {name}={value!r} "
                                      f"(only the default, {default!r})")


def linear(input, weight, bias=None):
    """input @ weight^T + bias, as nn::Linear computes it in C++."""
    product = input.matmul(weight.mT)
    return product if bias is None else product + bias


def relu(input, inplace=False):
    return input.relu()


def gelu(input, approximate="none"):
    return input.gelu(approximate)


def silu(input, inplace=False):
    return input.silu()


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def _with_dtype(input, dtype):
    return input if dtype is None else input.to(dtype)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        raise TypeError("softmax(): kael needs dim (PyTorch's implicit choice of dim is deprecated)")
    return _with_dtype(input, dtype).softmax(dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        raise TypeError("log_softmax(): kael needs dim (PyTorch's implicit choice of dim is deprecated)")
    return _with_dtype(input, dtype).log_softmax(dim)


def dropout(input, p=0.5, training=True, inplace=False):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    _unsupported("dropout", inplace=(inplace, False))
    return _dropout(input, p, training)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    _unsupported("embedding", padding_idx=(padding_idx, None), max_norm=(max_norm, None),
                 scale_grad_by_freq=(scale_grad_by_freq, False), sparse=(sparse, False))
    return _embedding(input, weight)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return _layer_norm(input, shape, weight, bias, eps)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    _unsupported("cross_entropy", weight=(weight, None), size_average=(size_average, None), reduce=(reduce, None),
                 label_smoothing=(label_smoothing, 0.0))
    return _cross_entropy(input, target, reduction=reduction, ignore_index=ignore_index)


def one_hot(input, num_classes=-1):
    return _kael.one_hot(input, num_classes)
