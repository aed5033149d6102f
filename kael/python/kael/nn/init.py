"""kael.nn.init: PyTorch's initialisers, in place, with PyTorch's keywords. Most are the
C++ kael::nn::init (so Python and C++ modules draw the same numbers); the rest are written
here over kael's operations."""
import math

from .. import _kael
from .._kael.nn.init import (constant_, kaiming_normal_, kaiming_uniform_, normal_,  # noqa: F401
                             ones_, uniform_, xavier_normal_, xavier_uniform_, zeros_)

# The gains PyTorch gives the nonlinearities the C++ side does not name: every linear map
# (the convolutions among them) has gain 1, and SELU PyTorch's 3/4.
_UNIT_GAIN = {"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"}


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for `nonlinearity` (PyTorch's table); `param` is leaky_relu's slope."""
    if nonlinearity in _UNIT_GAIN:
        return 1.0
    if nonlinearity == "selu":
        return 3.0 / 4
    if param is not None and (isinstance(param, bool) or not isinstance(param, (int, float))):
        raise ValueError(f"negative_slope {param} not a valid number")
    return _kael.nn.init.calculate_gain(nonlinearity, 0.01 if param is None else param)


def _no_grad():
    from .. import no_grad

    return no_grad()


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """Normal(mean, std) values redrawn until they fall in [a, b]: the truncated normal."""
    if not a < b:
        raise ValueError(f"trunc_normal_ needs a < b, got a={a}, b={b}")
    with _no_grad():
        normal_(tensor, mean, std)
        outside = (tensor < a).logical_or(tensor > b)
        while outside.any().item():
            fresh = _kael.empty(*tensor.shape, dtype=tensor.dtype, device=tensor.device)
            normal_(fresh, mean, std)
            tensor.copy_(_kael.where(outside, fresh, tensor))
            outside = (tensor < a).logical_or(tensor > b)
    return tensor


def eye_(tensor):
    """The identity matrix in a 2-D tensor (ones on the diagonal of a non-square one too)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    with _no_grad():
        tensor.zero_()
        size = max(rows, cols)
        tensor.copy_(_kael.eye(size, dtype=tensor.dtype, device=tensor.device)[:rows, :cols])
    return tensor


def orthogonal_(tensor, gain=1):
    raise NotImplementedError("nn.init.orthogonal_: kael has no QR decomposition yet")


def sparse_(tensor, sparsity, std=0.01):
    raise NotImplementedError("nn.init.sparse_: kael has no sparse initialiser")


def dirac_(tensor, groups=1):
    raise NotImplementedError("nn.init.dirac_: kael has no convolutions, for which dirac_ is made")


def _fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive
