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

    def __init__(self, in_features, out_features, bias=True):
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

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)
    # end-book-region: linear

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Embedding(Module):
    """Rows of a [num_embeddings, embedding_dim] table, picked by int64 indices."""

    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.weight = Parameter(_kael.empty(num_embeddings, embedding_dim))
        init.normal_(self.weight)

    def forward(self, indices):
        return F.embedding(indices, self.weight)

    def extra_repr(self):
        return f"{self.num_embeddings}, {self.embedding_dim}"


class LayerNorm(Module):
    """Normalises the trailing dimensions to mean 0 and variance 1, then scales and shifts."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        if elementwise_affine:
            self.weight = Parameter(_kael.ones(self.normalized_shape))
            self.bias = Parameter(_kael.zeros(self.normalized_shape))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        return F.layer_norm(x, list(self.normalized_shape), self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"


class Dropout(Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, got {p}")
        self.p = p

    def forward(self, x):
        return F.dropout(x, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"


class ReLU(Module):
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


class ModuleList(Module):
    """A list of modules, registered as children "0", "1", ..."""

    def __init__(self, modules=()):
        super().__init__()
        for module in modules:
            self.append(module)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __len__(self):
        return len(self._modules)

    def __getitem__(self, index):
        return list(self._modules.values())[index]

    def __iter__(self):
        return iter(self._modules.values())


class Sequential(ModuleList):
    """Runs its modules in order, the output of each the input of the next."""

    def __init__(self, *modules):
        super().__init__(modules)

    def forward(self, x):
        for module in self:
            x = module(x)
        return x


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
