"""kael from Python: tensors, autograd, and the operations of the C++ library.

The extension module ``kael._kael`` holds the bindings; this package re-exports them and
adds what reads better written in Python: grad modes as context managers and decorators,
kael.save and kael.load, and the packages a PyTorch program imports (nn, optim, utils.data,
cuda, backends, distributed) under PyTorch's names.
"""
from . import _kael
from ._kael import *  # noqa: F401,F403  (Tensor, dtype, device, autograd, the operations, ...)
from ._kael import __version__  # noqa: F401

# `bool` is both a dtype and a builtin: `from kael import *` must not shadow the builtin,
# so the dtype is reached as kael.bool only.
__all__ = [name for name in dir(_kael)
           if not name.startswith("_") and name not in ("bool", "float", "long", "nn", "optim")]


class _GradMode:
    """Sets the grad mode for a ``with`` block or a decorated function, then restores it."""

    def __init__(self, enabled):
        self._enabled = enabled
        self._previous = []

    def __enter__(self):
        self._previous.append(_kael.is_grad_enabled())
        _kael.set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _kael.set_grad_enabled(self._previous.pop())
        return False

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with _GradMode(self._enabled):
                return function(*args, **kwargs)

        return wrapper


def no_grad():
    """A context manager (and decorator) in which no operation is recorded for autograd."""
    return _GradMode(False)


def enable_grad():
    """A context manager (and decorator) that turns recording back on inside no_grad."""
    return _GradMode(True)


def inference_mode(mode=True):
    """PyTorch's inference_mode, as a context manager or decorator: kael has no separate
    inference tensors, so it is no_grad (mode=True) or nothing (mode=False)."""
    return _GradMode(not mode) if mode else _GradMode(_kael.is_grad_enabled())


def is_inference_mode_enabled():
    return False


class set_grad_enabled(_GradMode):
    """Sets the grad mode at once (a plain call) and, used with ``with``, restores the
    previous mode when the block ends, as torch.set_grad_enabled does."""

    def __init__(self, mode):
        super().__init__(mode)
        self._before = _kael.is_grad_enabled()
        _kael.set_grad_enabled(mode)

    def __enter__(self):
        self._previous.append(self._before)
        return self


class _MissingDtype:
    """A dtype name PyTorch has and kael does not yet (reduced precision is stage 15).
    Programs that only name it in a table load; passing it anywhere fails, naming it."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"kael.{self.name} (not available before stage 15, reduced precision)"


for _name in ("float16", "half", "bfloat16"):
    if not hasattr(_kael, _name):
        globals()[_name] = _MissingDtype(_name)
Size = tuple  # kael's shapes are tuples; torch.Size is a tuple subclass


def is_tensor(obj):
    return isinstance(obj, _kael.Tensor)


def numel(input):
    return input.numel()


def set_float32_matmul_precision(precision):
    """Accepted as a hint, as in PyTorch; kael's float32 products are always full precision."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}: use 'highest', 'high' or 'medium'")


# The Tensor methods written in Python (_tensor.py), once the bindings have a Tensor class.
if hasattr(_kael, "Tensor"):
    from . import _tensor  # noqa: E402

    _tensor.install()

# The Python packages over the C++ halves _kael.nn and _kael.optim (training.cpp). The star
# import above brought those halves in under the same names; `from . import` would return
# them instead of importing the packages, so they go first. Nothing above needs more of the
# module than it has: the package imports with whatever part of the bindings is built, as
# each step of chapter 10 builds one more.
if hasattr(_kael, "nn"):
    del nn, optim  # noqa: F821
    from . import nn, optim  # noqa: E402
    from . import amp, backends, cuda, distributed, utils  # noqa: E402,F401
    from .serialization import load, save  # noqa: E402,F401
