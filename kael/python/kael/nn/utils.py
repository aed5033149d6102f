"""kael.nn.utils: clip_grad_norm_, as torch.nn.utils has it."""
from .. import _kael


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients in place so that their total norm is at most max_norm; returns
    the norm before clipping."""
    if isinstance(parameters, _kael.Tensor):
        parameters = [parameters]
    return _kael.optim.clip_grad_norm_(list(parameters), max_norm, norm_type, error_if_nonfinite)
