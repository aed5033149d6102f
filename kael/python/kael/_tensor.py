"""Tensor methods that PyTorch programs call and that read best in Python: formatting a
0-d tensor as its number, the new_* factories, pin_memory (a no-op on the CPU). They are
added to kael.Tensor when the package is imported."""
from . import _kael
from ._kael import Tensor


def _format(self, spec):
    # f"{loss:.4f}": a 0-d tensor formats as its number, as in PyTorch.
    if self.dim() == 0:
        return format(self.item(), spec)
    return format(repr(self), spec)


def _pin_memory(self, device=None):
    """The tensor itself: kael's host-to-device copies do not need page-locked memory."""
    return self


def _is_pinned(self, device=None):
    return False


def _factory(name):
    def make(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        sizes = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        return getattr(_kael, name)(*sizes, dtype=dtype or self.dtype, device=device or self.device,
                                    requires_grad=requires_grad)

    make.__name__ = f"new_{name}"
    make.__doc__ = f"kael.{name} of the given size, with this tensor's dtype and device unless given."
    return make


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return _kael.full(list(size), fill_value, dtype=dtype or self.dtype, device=device or self.device,
                      requires_grad=requires_grad)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    return _kael.tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def _type_as(self, other):
    return self.to(other.dtype)


def install():
    Tensor.__format__ = _format
    Tensor.pin_memory = _pin_memory
    Tensor.is_pinned = _is_pinned
    for name in ("zeros", "ones", "empty"):
        setattr(Tensor, f"new_{name}", _factory(name))
    Tensor.new_full = _new_full
    Tensor.new_tensor = _new_tensor
    Tensor.type_as = _type_as
