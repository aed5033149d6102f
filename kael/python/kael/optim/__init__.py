"""kael.optim: SGD, Adam and AdamW with PyTorch's signatures and parameter groups, their
arithmetic done by the C++ optimizers (one per group); lr_scheduler over any of them."""
from .. import _kael
from .optimizer import Optimizer, _Engine, required


def _check_common(name, group):
    if not 0.0 <= group["lr"]:
        raise ValueError(f"Invalid learning rate: {group['lr']}")
    if not 0.0 <= group["weight_decay"]:
        raise ValueError(f"Invalid weight_decay value: {group['weight_decay']}")


def _reject(name, **options):
    for option, (value, allowed) in options.items():
        if value not in allowed:
            raise NotImplementedError(f"{name}: kael does not support {option}={value!r}")


class SGD(_Engine):
    _engine_class = _kael.optim.SGD
    _engine_options = ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize")

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False):
        _reject("SGD", differentiable=(differentiable, (False,)))
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _check_options(self, group):
        _check_common("SGD", group)
        if group["momentum"] < 0.0:
            raise ValueError(f"Invalid momentum value: {group['momentum']}")


class Adam(_Engine):
    _engine_class = _kael.optim.Adam
    _engine_options = ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False, fused=None):
        # kael's update is already one fused pass per parameter, so `fused` and `foreach`
        # change nothing; capturable (CUDA graphs) and differentiable steps it has not.
        _reject(type(self).__name__, capturable=(capturable, (False,)), differentiable=(differentiable, (False,)))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def _check_options(self, group):
        _check_common(type(self).__name__, group)
        if not 0.0 <= group["eps"]:
            raise ValueError(f"Invalid epsilon value: {group['eps']}")
        for index, beta in enumerate(group["betas"]):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


class AdamW(Adam):
    _engine_class = _kael.optim.AdamW

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused)


from . import lr_scheduler  # noqa: E402  (after the optimizers, which it does not need)

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler", "required"]
