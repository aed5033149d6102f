"""CUDA tensors from Python, where the build has CUDA and the machine a GPU; elsewhere the
device requests fail with the C++ message as a RuntimeError."""
import numpy as np
import pytest

import kael

needs_gpu = pytest.mark.skipif(not kael.cuda_is_available(), reason="no CUDA device")


def test_without_a_gpu_device_requests_are_runtime_errors():
    if kael.cuda_is_available():
        pytest.skip("a CUDA device is present")
    expected = "no CUDA device is available" if kael.cuda_is_built() else "built without CUDA"
    with pytest.raises(RuntimeError, match=expected):
        kael.ones(2).cuda()
    with pytest.raises(RuntimeError, match=expected):
        kael.zeros(2, device="cuda")


@needs_gpu
def test_tensors_move_compute_and_come_back():
    x = kael.randn(64, 32)
    d = x.cuda()
    assert d.device == "cuda" and d.is_cuda
    assert kael.allclose((d @ d.T).cpu(), x @ x.T, rtol=1e-4, atol=1e-4)
    assert kael.allclose(d.softmax(1).cpu(), x.softmax(1), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="cpu"):
        d.numpy()
    with pytest.raises(RuntimeError, match="same device"):
        d + x


@needs_gpu
def test_a_model_trains_on_the_device():
    import kael.nn as nn

    kael.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = kael.optim.Adam(model.parameters(), lr=0.05)
    model.to("cuda")  # after the optimizer: the parameters move in place
    x = kael.randn(32, 8, device="cuda")
    y = kael.randint(0, 2, (32,), device="cuda")
    losses = []
    for _ in range(30):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert np.isfinite(losses).all()
