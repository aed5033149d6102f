"""kael.cuda.amp: GradScaler as a CPU-only PyTorch has it. Loss scaling exists for float16
training; kael has no float16 before stage 15, so an enabled scaler does what PyTorch's
does without CUDA: it warns once and disables itself, and every call passes through."""
import warnings


class GradScaler:
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        if enabled:
            warnings.warn("kael.cuda.amp.GradScaler is enabled, but kael has no float16 training yet "
                          "(stage 15). Disabling.")
        self._enabled = False
        self._init_scale = init_scale

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer):
        pass

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        pass

    def get_scale(self):
        return 1.0

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        pass


def autocast(enabled=True, dtype=None, cache_enabled=True):
    from ..amp import autocast as _autocast

    return _autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


__all__ = ["GradScaler", "autocast"]
