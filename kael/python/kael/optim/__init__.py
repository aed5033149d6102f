"""kael.optim: the C++ optimizers, taking parameters as PyTorch does (any iterable)."""
from .. import _kael
from .._kael.optim import Optimizer  # noqa: F401


class SGD(_kael.optim.SGD):
    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 maximize=False):
        super().__init__(list(params), lr, momentum, dampening, weight_decay, nesterov, maximize)


class Adam(_kael.optim.Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
                 maximize=False):
        super().__init__(list(params), lr, tuple(betas), eps, weight_decay, amsgrad, maximize)


class AdamW(_kael.optim.AdamW):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
                 maximize=False):
        super().__init__(list(params), lr, tuple(betas), eps, weight_decay, amsgrad, maximize)


__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
