"""The layers of kael.nn, each initialised as its C++ counterpart (kael/src/nn/) and so
as PyTorch: the same initialisers, drawing from the same generator in the same order."""
import math

from .. import _kael
from . import functional as F
from . import init
from .module import Module, Parameter


# book-region: linear
class Linear(Module):
    """y = x W^T + b, with W of shape [out_features, in_features]."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        if in_features < 0 or out_features < 0:
            raise ValueError(f"Linear needs non-negative feature counts, got in_features={in_features}, "
                             f"out_features={out_features}")
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(_kael.empty(out_features, in_features))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if bias:
            self.bias = Parameter(_kael.empty(out_features))
            bound = 1 / math.sqrt(in_features) if in_features > 0 else 0.0
            init.uniform_(self.bias, -bound, bound)
        else:
            self.register_parameter("bias", None)
        _place(self, device, dtype)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)
    # end-book-region: linear

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Embedding(Module):
    """Rows of a [num_embeddings, embedding_dim] table, picked by int64 indices."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        super().__init__()
        F._unsupported("Embedding", padding_idx=(padding_idx, None), max_norm=(max_norm, None),
                       scale_grad_by_freq=(scale_grad_by_freq, False), sparse=(sparse, False))
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if _weight is None:
            self.weight = Parameter(_kael.empty(num_embeddings, embedding_dim))
            init.normal_(self.weight)
        else:
            self.weight = Parameter(_weight)
        _place(self, device, dtype)

    def forward(self, indices):
        return F.embedding(indices, self.weight)

    def extra_repr(self):
        return f"{self.num_embeddings}, {self.embedding_dim}"


class LayerNorm(Module):
    """Normalises the trailing dimensions to mean 0 and variance 1, then scales and shifts."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        if elementwise_affine:
            self.weight = Parameter(_kael.ones(self.normalized_shape))
            self.bias = Parameter(_kael.zeros(self.normalized_shape))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        _place(self, device, dtype)

    def forward(self, x):
        return F.layer_norm(x, list(self.normalized_shape), self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        F._unsupported("Dropout", inplace=(inplace, False))
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, got {p}")
        self.p = p

    def forward(self, x):
        return F.dropout(x, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"


def _place(module, device, dtype):
    """The device= and dtype= every layer takes: its tensors made there, as PyTorch's are."""
    if device is not None or dtype is not None:
        module.to(device=device, dtype=dtype)


class Identity(Module):
    """Returns its input; takes (and ignores) any arguments, as torch.nn.Identity does."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()

    def forward(self, x):
        return F.relu(x)


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate='{self.approximate}'"


class SiLU(Module):
    def forward(self, x):
        return F.silu(x)


class Tanh(Module):
    def forward(self, x):
        return x.tanh()


class Sigmoid(Module):
    def forward(self, x):
        return x.sigmoid()


class CrossEntropyLoss(Module):
    def __init__(self, reduction="mean", ignore_index=-100):
        super().__init__()
        self.reduction, self.ignore_index = reduction, ignore_index

    def forward(self, input, target):
        return F.cross_entropy(input, target, reduction=self.reduction, ignore_index=self.ignore_index)


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)
