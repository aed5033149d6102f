"""sort, argsort and topk against PyTorch (chapter 11): values, positions, gradients and
errors on random inputs and layouts, with ties and NaN."""
import numpy as np
import pytest

import kael

torch = pytest.importorskip("torch")

LAYOUTS = {
    "contiguous": ((5, 7), lambda x: x),
    "transposed": ((7, 5), lambda x: x.T),
    "strided": ((5, 14), lambda x: x[:, ::2]),
}


def pair(array, requires_grad=False):
    return kael.tensor(array, requires_grad=requires_grad), torch.tensor(array, requires_grad=requires_grad)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_torch_values_positions_and_gradient(layout, dim, descending):
    shape, view = LAYOUTS[layout]
    array = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    k, t = pair(array, requires_grad=True)
    k_values, k_indices = kael.sort(view(k), dim=dim, descending=descending)
    t_values, t_indices = torch.sort(view(t), dim=dim, descending=descending)
    np.testing.assert_array_equal(k_values.detach().numpy(), t_values.detach().numpy())
    np.testing.assert_array_equal(k_indices.numpy(), t_indices.numpy())
    weights = np.random.default_rng(8).standard_normal(t_values.shape).astype(np.float32)
    (k_values * kael.tensor(weights)).sum().backward()
    (t_values * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(k.grad.numpy(), t.grad.numpy(), rtol=1e-6)


def test_stable_sort_keeps_ties_in_order_as_torch_stable_does():
    array = np.random.default_rng(1).integers(0, 4, size=(3, 40))
    k, t = pair(array)
    for descending in (False, True):
        np.testing.assert_array_equal(kael.argsort(k, dim=1, descending=descending, stable=True).numpy(),
                                      torch.sort(t, dim=1, descending=descending, stable=True).indices.numpy())


def test_nan_sorts_above_infinity_as_in_torch():
    array = np.array([np.nan, 1.0, np.inf, -np.inf, 0.0], dtype=np.float64)
    k, t = pair(array)
    for descending in (False, True):
        np.testing.assert_array_equal(k.sort(descending=descending).indices.numpy(),
                                      t.sort(descending=descending).indices.numpy())


@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_torch(largest):
    array = np.random.default_rng(3).standard_normal((4, 50)).astype(np.float32)
    k, t = pair(array, requires_grad=True)
    k_result = kael.topk(k, 5, dim=1, largest=largest)
    t_result = torch.topk(t, 5, dim=1, largest=largest)
    np.testing.assert_array_equal(k_result.values.detach().numpy(), t_result.values.detach().numpy())
    np.testing.assert_array_equal(k_result.indices.numpy(), t_result.indices.numpy())
    k_result.values.sum().backward()
    t_result.values.sum().backward()
    np.testing.assert_array_equal(k.grad.numpy(), t.grad.numpy())


def test_results_are_named_pairs_and_methods_exist():
    x = kael.tensor([3.0, 1.0, 2.0])
    values, indices = x.topk(1)
    assert values.tolist() == [3.0] and indices.tolist() == [0]
    assert type(kael.sort(x)).__name__ == "sort" and x.argsort().tolist() == [1, 2, 0]


def test_bad_arguments_raise_torch_exception_types():
    k, t = pair(np.ones((2, 3), dtype=np.float32))
    for call in (lambda m, x: m.topk(x, 4), lambda m, x: m.topk(x, -1)):
        with pytest.raises(RuntimeError):
            call(torch, t)
        with pytest.raises(RuntimeError):
            call(kael, k)
    with pytest.raises(IndexError):
        torch.sort(t, dim=2)
    with pytest.raises(IndexError):
        kael.sort(k, dim=2)
    with pytest.raises(TypeError):
        kael.topk(k, 1, dims=1)
