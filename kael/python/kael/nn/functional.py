"""kael.nn.functional: the operations of the nn layer as functions, PyTorch's names."""
from .. import _kael
from .._kael.nn.functional import cross_entropy, dropout, embedding, layer_norm, mse_loss, nll_loss  # noqa: F401
#> stage 12
from .._kael import scaled_dot_product_attention  # noqa: F401
#< stage 12


def linear(input, weight, bias=None):
    """input @ weight^T + bias, as nn::Linear computes it in C++."""
    product = input.matmul(weight.mT)
    return product if bias is None else product + bias


def relu(input):
    return input.relu()


def gelu(input, approximate="none"):
    return input.gelu(approximate)


def silu(input):
    return input.silu()


def softmax(input, dim):
    return input.softmax(dim)


def log_softmax(input, dim):
    return input.log_softmax(dim)


def one_hot(input, num_classes=-1):
    return _kael.one_hot(input, num_classes)
