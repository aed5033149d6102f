"""The Python API against PyTorch on random inputs and layouts: the same expression,
written once, evaluated by both libraries, values and gradients compared. Skipped where
torch is not installed (it is in CI: python3-torch)."""
import numpy as np
import pytest

import kael

torch = pytest.importorskip("torch")


# Each layout: the shape of the leaf, and the view of it that the expression reads. The
# same view is taken in both libraries, so the gradient also flows back through it.
LAYOUTS = {
    "contiguous": ((4, 6), lambda x: x),
    "transposed": ((6, 4), lambda x: x.T),
    "strided": ((4, 12), lambda x: x[:, ::2]),
    "broadcast": ((1, 6), lambda x: x.expand(4, 6)),
}


def leaves(shape, seed):
    """The same random values as a kael leaf and a torch leaf, both requiring grad."""
    array = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return kael.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)


def close(k, t, tolerance=1e-5):
    expected = t.detach().numpy()
    got = k.detach().cpu().numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


UNARY = {
    "neg": lambda x: -x,
    "abs": lambda x: abs(x),
    "exp": lambda x: x.exp(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: x.relu(),
    "square": lambda x: x ** 2,
    "softmax": lambda x: x.softmax(1),
    "log_softmax": lambda x: x.log_softmax(0),
    "sum": lambda x: x.sum(),
    "sum dim": lambda x: x.sum(1, keepdim=True),
    "mean": lambda x: x.mean(0),
    "amax": lambda x: x.amax(1),
    "var": lambda x: x.var(1),
    "cumsum": lambda x: x.cumsum(1),
    "slice": lambda x: x[1:, ::2],
    "transpose": lambda x: x.T,
    "scale shift": lambda x: 2.5 * x - 1,
    "reciprocal": lambda x: 1 / (x.abs() + 1),
    "where": lambda x: (x > 0).float() * x,
    "matmul": lambda x: x @ x.T,
    "clamp": lambda x: x.clamp(-0.5, 0.5),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_and_gradients_match_torch(name, layout):
    shape, view = LAYOUTS[layout]
    k, t = leaves(shape, seed=sorted(UNARY).index(name))
    f = UNARY[name]
    ky, ty = f(view(k)), f(view(t))
    close(ky, ty)
    weights = np.random.default_rng(1).standard_normal(tuple(ty.shape)).astype(np.float32)
    (ky * kael.tensor(weights)).sum().backward()
    (ty * torch.from_numpy(weights)).sum().backward()
    close(k.grad, t.grad, 1e-4)


@pytest.mark.parametrize("seed", range(5))
def test_broadcast_binary_operations_match_torch(seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((3, 1, 5)).astype(np.float32)
    b = rng.standard_normal((4, 1)).astype(np.float32)
    ka, ta = kael.tensor(a), torch.from_numpy(a)
    kb, tb = kael.tensor(b), torch.from_numpy(b)
    for op in (lambda x, y: x + y, lambda x, y: x * y, lambda x, y: x - y, lambda x, y: x / (y.abs() + 1),
               lambda x, y: kael_or_torch(x).maximum(x, y), lambda x, y: (x > y).float()):
        close(op(ka, kb), op(ta, tb))


def kael_or_torch(x):
    return kael if isinstance(x, kael.Tensor) else torch


def test_integer_and_bool_promotion_matches_torch():
    ints = np.array([1, -2, 3], dtype=np.int64)
    k, t = kael.tensor(ints), torch.from_numpy(ints)
    for op in (lambda x: x + 1, lambda x: x * 2.5, lambda x: x / 2, lambda x: x // 2, lambda x: x % 2,
               lambda x: x + True, lambda x: -x, lambda x: x ** 2):
        ky, ty = op(k), op(t)
        assert str(ky.dtype).replace("kael.", "") == str(ty.dtype).replace("torch.", "")
        assert ky.tolist() == ty.tolist()


INDICES = [
    (1,), (-1,), (slice(None), 2), (slice(1, None, 2),), (Ellipsis, 1), (None, 0), (0, None, slice(None, None, 3)),
    (slice(None), slice(-3, None)), (1, slice(0, 0)), (slice(None), [0, 3, 3]), ([2, 0],),
    # Several index tensors: broadcast together, their dimensions where the indexed ones
    # were when those are next to each other, first when a slice or None is between them.
    ([0, 2], [1, 3]), ([0, 2], slice(None), [1, -3]), (slice(None), [[0], [4]], [1, 5]),
    (1, [0, 2], [3, -1]), ([-1, 0], None, [2, 2]), (Ellipsis, [1, 0], [5, 0]), ([3], slice(1, 3), [[0], [2]]),
]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_indexing_reads_what_torch_reads(index):
    array = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    k, t = kael.tensor(array), torch.from_numpy(array)
    close(k[index], t[index])


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_assignment_writes_what_torch_writes(index):
    k, t = kael.zeros(4, 5, 6), torch.zeros(4, 5, 6)
    k[index] = 7
    t[index] = 7
    close(k, t)


@pytest.mark.parametrize("index", [([0, 2], slice(None), [1, -3]), (slice(None), [[0], [4]], [1, 5]),
                                   (1, [0, 2], [3, -1]), ([-1, 0], None, [2, 2])], ids=repr)
def test_tensors_assigned_through_several_indices_land_where_torch_puts_them(index):
    k, t = kael.zeros(4, 5, 6), torch.zeros(4, 5, 6)
    shape = tuple(t[index].shape)
    values = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    k[index] = kael.tensor(values)
    t[index] = torch.from_numpy(values)
    close(k, t)


def test_gradients_flow_back_through_several_index_tensors_as_in_torch():
    k, t = leaves((4, 5, 6), seed=31)
    index = ([0, 2, 0], slice(None), [1, -3, 1])  # a repeated pick gets both gradients
    weights = np.random.default_rng(32).standard_normal(tuple(t[index].shape)).astype(np.float32)
    (k[index] * kael.tensor(weights)).sum().backward()
    (t[index] * torch.from_numpy(weights)).sum().backward()
    close(k.grad, t.grad)


def test_mask_indexing_matches_torch():
    array = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)
    k, t = kael.tensor(array), torch.from_numpy(array.copy())
    close(k[k > 0], t[t > 0])
    close(k[0][k[0] > 0], t[0][t[0] > 0])
    k[k < 0] = 0
    t[t < 0] = 0
    close(k, t)


@pytest.mark.parametrize("dims", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_over_dims_match_torch(dims, keepdim):
    array = np.random.default_rng(5).standard_normal((3, 4)).astype(np.float32)
    k, t = kael.tensor(array), torch.from_numpy(array)
    if dims is None:
        if keepdim:
            pytest.skip("torch's sum() without dim takes no keepdim")
        close(k.sum(), t.sum())
        close(k.mean(), t.mean())
        return
    close(k.sum(dims, keepdim=keepdim), t.sum(dims, keepdim=keepdim))
    close(k.mean(dims, keepdim=keepdim), t.mean(dims, keepdim=keepdim))
    close(k.amax(dims, keepdim=keepdim), t.amax(dims, keepdim=keepdim))
    close(k.var(dims, keepdim=keepdim), t.var(dims, keepdim=keepdim))
