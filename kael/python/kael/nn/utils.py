"""kael.nn.utils: the gradient and parameter helpers of torch.nn.utils."""
from .. import _kael


def _as_list(parameters):
    return [parameters] if isinstance(parameters, _kael.Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their total norm is at most max_norm; returns
    the norm before clipping. `foreach` is accepted: kael's clipping is one pass already."""
    norm_type = float(norm_type)  # "inf" as PyTorch allows it
    return _kael.optim.clip_grad_norm_(_as_list(parameters), float(max_norm), norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    for parameter in _as_list(parameters):
        if parameter.grad is not None:
            parameter.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """The parameters flattened and joined into one vector (a copy)."""
    return _kael.cat([parameter.reshape(-1) for parameter in _as_list(parameters)])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of `vec` into the parameters, in order."""
    if not isinstance(vec, _kael.Tensor):
        raise TypeError(f"expected kael.Tensor, but got: {type(vec).__name__}")
    from .. import no_grad

    offset = 0
    with no_grad():
        for parameter in _as_list(parameters):
            count = parameter.numel()
            parameter.copy_(vec[offset:offset + count].reshape(*parameter.shape))
            offset += count
