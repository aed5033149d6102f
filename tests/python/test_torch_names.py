"""The names and keywords PyTorch programs use outside nn and optim, against torch on the
same calls: grad modes as decorators and context managers, factories with dtype= and
device=, Tensor.to's keywords, formatting, nn.init and nn.utils, and the CUDA, backends and
distributed questions a CPU-only program asks."""
import math
import warnings

import numpy as np
import pytest

import kael

torch = pytest.importorskip("torch")


def test_grad_modes_work_as_decorators_and_context_managers():
    for lib in (kael, torch):
        x = lib.ones(2, requires_grad=True)

        @lib.no_grad()
        def doubled(t):
            return t * 2

        assert not doubled(x).requires_grad
        with lib.inference_mode():
            assert not (x * 2).requires_grad
        with lib.inference_mode(False):
            assert (x * 2).requires_grad
        with lib.no_grad():
            with lib.enable_grad():
                assert (x * 2).requires_grad
        with lib.set_grad_enabled(False):
            assert not lib.is_grad_enabled()
        assert lib.is_grad_enabled()
        lib.set_grad_enabled(False)
        assert not lib.is_grad_enabled()
        lib.set_grad_enabled(True)


@pytest.mark.parametrize("call", [
    lambda lib: lib.arange(5), lambda lib: lib.arange(1, 7, 2), lambda lib: lib.arange(5.0),
    lambda lib: lib.arange(0, 1, 0.25), lambda lib: lib.arange(3, dtype=lib.float64),
    lambda lib: lib.zeros_like(lib.ones(2, 3), dtype=lib.int64), lambda lib: lib.ones_like(lib.arange(3)),
    lambda lib: lib.full_like(lib.ones(2), 7, dtype=lib.float64), lambda lib: lib.empty_like(lib.ones(4)).shape,
    lambda lib: lib.zeros(2, dtype=lib.int64, device="cpu"), lambda lib: lib.full((2,), 3),
    lambda lib: lib.ones(2).new_zeros(3), lambda lib: lib.ones(2, dtype=lib.int64).new_ones((2, 2)),
    lambda lib: lib.tensor([1, 2], dtype=lib.long, device="cpu")[None, ...].shape,
])
def test_factories_give_torchs_dtype_and_values(call):
    k, t = call(kael), call(torch)
    if isinstance(t, torch.Size):
        assert tuple(k) == tuple(t)
        return
    assert str(k.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(k.shape) == tuple(t.shape)
    np.testing.assert_array_equal(k.numpy(), t.numpy())


def test_a_python_float_keeps_its_double_precision_in_a_float64_tensor():
    for lib in (kael, torch):
        assert lib.tensor(0.8, dtype=lib.float64).item() == 0.8
        assert lib.tensor([0.1, 1e-8], dtype=lib.float64).tolist() == [0.1, 1e-8]
        assert lib.tensor([1, 2], dtype=lib.float64).tolist() == [1.0, 2.0]


def test_random_factories_take_torchs_forms():
    for lib in (kael, torch):
        lib.manual_seed(0)
        low_high = lib.randint(3, 9, (100,))
        high_only = lib.randint(4, (2, 50))
        assert low_high.dtype == lib.int64 and high_only.shape == (2, 50)
        assert 3 <= low_high.min().item() and low_high.max().item() < 9 and high_only.max().item() < 4
        assert sorted(lib.randperm(7).tolist()) == list(range(7))
        assert lib.randperm(4, dtype=lib.float64).dtype == lib.float64
        assert lib.randn(2, 3, dtype=lib.float64, requires_grad=True).requires_grad


def test_tensor_to_takes_non_blocking_and_copy_and_pin_memory_is_a_no_op_on_the_cpu():
    x = kael.ones(3)
    assert x.to("cpu", non_blocking=True) is x or x.to("cpu", non_blocking=True).tolist() == [1.0] * 3
    assert x.to(kael.float64, True).dtype == kael.float64
    copy = x.to("cpu", copy=True)
    copy[0] = 5
    assert x[0].item() == 1.0
    assert x.pin_memory() is x and not x.is_pinned()
    with pytest.raises(TypeError):
        x.to("cpu", blocking=True)


def test_max_and_min_along_a_dim_return_named_pairs():
    for lib in (kael, torch):
        x = lib.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
        values, indices = x.max(1)
        assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
        assert lib.min(x, dim=0).values.tolist() == [1.0, 0.0, 2.0] and x.min(0).indices.tolist() == [0, 1, 0]


def test_a_zero_dimensional_tensor_formats_as_its_number_and_indexes_numpy():
    for lib in (kael, torch):
        loss = lib.tensor(2.718281)
        assert f"{loss:.3f}" == "2.718" and f"{lib.tensor(7):4d}" == "   7"
        assert np.arange(10)[lib.tensor(3)] == 3
        assert (loss < 3.0) and not (loss > 3.0)


def test_init_functions_take_torchs_keywords():
    for name, args in (("normal_", dict(mean=1.0, std=0.02)), ("uniform_", dict(a=-0.1, b=0.1)),
                       ("constant_", dict(val=0.3)), ("xavier_uniform_", dict(gain=2.0)),
                       ("kaiming_normal_", dict(a=0.1, mode="fan_out", nonlinearity="relu")),
                       ("trunc_normal_", dict(mean=0.0, std=1.0, a=-0.5, b=0.5)), ("zeros_", {}), ("eye_", {})):
        k = kael.nn.Parameter(kael.empty(40, 50))
        t = torch.nn.Parameter(torch.empty(40, 50))
        getattr(kael.nn.init, name)(k, **args)
        getattr(torch.nn.init, name)(t, **args)
        kv, tv = k.detach().numpy(), t.detach().numpy()
        assert kv.min() >= tv.min() - 0.15 * abs(tv.min()) - 1e-6 and kv.max() <= tv.max() + 0.15 * abs(tv.max()) + 1e-6
        assert abs(kv.mean() - tv.mean()) < 0.05 + 0.05 * abs(tv.mean()) and abs(kv.std() - tv.std()) < 0.1 * tv.std() + 1e-6
    assert k.requires_grad
    for nonlinearity, param in (("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("tanh", None),
                                ("conv2d", None), ("selu", None), ("sigmoid", None)):
        assert kael.nn.init.calculate_gain(nonlinearity, param) == pytest.approx(
            torch.nn.init.calculate_gain(nonlinearity, param))
    with pytest.raises(ValueError):
        kael.nn.init.calculate_gain("softsign")
    with pytest.raises(NotImplementedError, match="QR"):
        kael.nn.init.orthogonal_(kael.empty(3, 3))


def test_clip_grad_norm_matches_torch_and_skips_missing_gradients():
    rng = np.random.default_rng(4)
    grads = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    norms = []
    for lib in (kael, torch):
        params = [lib.zeros(3, 4, requires_grad=True), lib.zeros(5, requires_grad=True), lib.zeros(2, requires_grad=True)]
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g)
        norms.append((lib.nn.utils.clip_grad_norm_(params, 1.0).item(), params[0].grad.numpy().copy()))
        lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type="inf")
    assert norms[0][0] == pytest.approx(norms[1][0], rel=1e-6)
    np.testing.assert_allclose(norms[0][1], norms[1][1], rtol=1e-6)


def test_functional_keywords_and_unsupported_options():
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    target = np.array([0, 2, -1, 4])
    for reduction in ("mean", "sum"):
        k = kael.nn.functional.cross_entropy(kael.tensor(x), kael.tensor(target), ignore_index=-1, reduction=reduction)
        t = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(target), ignore_index=-1, reduction=reduction)
        assert k.item() == pytest.approx(t.item(), rel=1e-6)
    k = kael.nn.functional.softmax(kael.tensor(x), dim=-1, dtype=kael.float64)
    assert k.dtype == kael.float64
    np.testing.assert_allclose(kael.nn.functional.layer_norm(kael.tensor(x), (5,)).numpy(),
                               torch.nn.functional.layer_norm(torch.tensor(x), (5,)).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match="label_smoothing"):
        kael.nn.functional.cross_entropy(kael.tensor(x), kael.tensor(target), label_smoothing=0.1)
    with pytest.raises(NotImplementedError, match="padding_idx"):
        kael.nn.Embedding(4, 2, padding_idx=0)


def test_layers_take_device_and_dtype():
    layer = kael.nn.Linear(3, 2, device="cpu", dtype=kael.float64)
    assert layer.weight.dtype == kael.float64 and layer.bias.dtype == kael.float64
    assert kael.nn.LayerNorm(4, dtype=kael.float64).weight.dtype == kael.float64
    model = kael.nn.Sequential(kael.nn.Linear(2, 2)).to("cpu", non_blocking=True).double()
    assert model[0].weight.dtype == kael.float64


def test_what_a_cpu_only_program_asks_about_cuda_and_the_backends():
    if not kael.cuda.is_available():
        assert kael.cuda.device_count() == 0 and not kael.cuda.is_bf16_supported()
        kael.cuda.manual_seed(3)  # silently nothing without a GPU, as in torch
    kael.backends.cuda.matmul.allow_tf32 = True
    kael.backends.cudnn.allow_tf32 = True
    assert kael.backends.cuda.matmul.allow_tf32 and not kael.backends.mps.is_available()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        scaler = kael.cuda.amp.GradScaler(enabled=True)
    assert not scaler.is_enabled()
    loss = kael.tensor(2.0, requires_grad=True)
    assert scaler.scale(loss) is loss
    with kael.amp.autocast(device_type="cpu", enabled=False):
        pass
    with pytest.raises(NotImplementedError, match="stage 15"):
        kael.amp.autocast(device_type="cpu", dtype=kael.bfloat16)
    assert "stage 15" in repr(kael.bfloat16) and "stage 15" in repr(kael.float16)
    with pytest.raises(TypeError):
        kael.zeros(2, dtype=kael.float16)


def test_distributed_names_import_and_say_what_is_missing():
    from kael.distributed import destroy_process_group, init_process_group  # noqa: F401
    from kael.nn.parallel import DistributedDataParallel

    assert not kael.distributed.is_available()
    with pytest.raises(RuntimeError, match="stage 16"):
        init_process_group(backend="gloo")
    with pytest.raises(RuntimeError, match="stage 16"):
        DistributedDataParallel(kael.nn.Linear(2, 2))


def test_module_float_and_double_convert_and_half_names_the_missing_type():
    layer = kael.nn.Linear(2, 2).double()
    assert layer.weight.dtype == kael.float64 and layer.float().weight.dtype == kael.float32
    with pytest.raises(NotImplementedError, match="float16"):
        layer.half()
    assert math.isclose(kael.tensor(1.5).item(), 1.5)
