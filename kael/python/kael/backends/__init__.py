"""kael.backends: the switches programs set for PyTorch's backends (TF32 on matmul and
cuDNN, cuDNN's benchmark mode). They are recorded and read back; kael's float32 products
never use TF32 and it has no cuDNN, so none of them changes a result."""
from types import SimpleNamespace

cuda = SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True),
                       is_built=lambda: _cuda_built())
cudnn = SimpleNamespace(allow_tf32=True, benchmark=False, deterministic=False, enabled=True,
                        is_available=lambda: False)
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)


def _cuda_built():
    from .. import _kael

    return _kael.cuda_is_built()
