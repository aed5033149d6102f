"""kael.cuda: the part of torch.cuda that programs ask before they choose a device. With
no GPU (or a build without CUDA) every question has the answer a CPU-only PyTorch gives."""
from .. import _kael
from . import amp  # noqa: F401


def is_available():
    return _kael.cuda_is_available()


def device_count():
    return 1 if is_available() else 0


def is_bf16_supported():
    """False: kael has no bfloat16 dtype before stage 15, on any device."""
    return False


def synchronize(device=None):
    if is_available():
        _kael.cuda_synchronize()


def manual_seed(seed):
    """Seeds the generator: kael draws device random numbers on the host, from the one
    generator kael.manual_seed seeds, so this seeds that one (as PyTorch's lazy CUDA
    seeding does nothing visible without a GPU)."""
    if is_available():
        _kael.manual_seed(seed)


manual_seed_all = manual_seed


def set_device(device):
    if not is_available():
        raise RuntimeError("kael.cuda.set_device: no CUDA device is available")


def current_device():
    if not is_available():
        raise RuntimeError("kael.cuda.current_device: no CUDA device is available")
    return 0


def empty_cache():
    """Nothing to do from Python: kael's caching allocator returns blocks on its own limit."""
