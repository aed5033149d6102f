"""kael from Python: tensors, autograd, and the operations of the C++ library.

The extension module ``kael._kael`` holds the bindings; this package re-exports them and
adds what reads better written in Python, such as ``no_grad`` as a context manager.
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


# The Python packages over the C++ halves _kael.nn and _kael.optim (training.cpp). The star
# import above brought those halves in under the same names; `from . import` would return
# them instead of importing the packages, so they go first. Nothing above needs more of the
# module than it has: the package imports with whatever part of the bindings is built, as
# each step of chapter 10 builds one more.
if hasattr(_kael, "nn"):
    del nn, optim  # noqa: F821
    from . import nn, optim  # noqa: E402
