"""kael.Tensor from Python: creation, properties, conversions and the printer."""
import math

import pytest

import kael


def test_tensor_infers_dtype_from_python_values_as_torch_tensor_does():
    assert kael.tensor([True, False]).dtype == kael.bool
    assert kael.tensor([1, 2, 3]).dtype == kael.int64
    assert kael.tensor([1, 2.5]).dtype == kael.float32
    assert kael.tensor([True, 2]).dtype == kael.int64  # bool < int < float, as values promote
    assert kael.tensor([]).dtype == kael.float32
    assert kael.tensor(3.5).shape == ()
    assert kael.tensor([[1, 2], [3, 4]], dtype=kael.float64).dtype == kael.float64


def test_ragged_and_non_numeric_data_are_refused():
    with pytest.raises(ValueError, match="length 2"):
        kael.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        kael.tensor(["a"])
    with pytest.raises(TypeError):
        kael.zeros(2, "3")


def test_properties_read_the_impl():
    t = kael.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.strides == (12, 4, 1) and t.stride(0) == 12
    assert t.ndim == 3 and t.dim() == 3 and t.numel() == 24
    assert t.dtype == kael.float32 and t.dtype.itemsize == 4 and t.dtype.is_floating_point
    assert t.device == kael.device("cpu") and t.device == "cpu" and str(t.device) == "cpu"
    assert t.is_contiguous() and not t.transpose(0, 2).is_contiguous()
    assert t.transpose(0, 2).strides == (1, 4, 12)
    assert repr(kael.int64) == "kael.int64" and repr(t.device) == "device(type='cpu')"


def test_item_tolist_and_python_conversions():
    t = kael.tensor([[1, 2], [3, 4]])
    assert t.tolist() == [[1, 2], [3, 4]]
    assert isinstance(t[0, 1].item(), int) and t[0, 1].item() == 2
    assert isinstance(kael.tensor(2.5).item(), float)
    assert kael.tensor(True).item() is True
    assert float(kael.tensor([1.5])) == 1.5 and int(kael.tensor(7)) == 7
    assert [1, 2, 3][kael.tensor(1)] == 2  # __index__
    assert bool(kael.tensor([1])) and not bool(kael.tensor(0.0))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(kael.ones(2))
    with pytest.raises(ValueError):
        kael.ones(2).item()


def test_len_and_iteration_walk_the_first_dimension():
    t = kael.arange(6).view(3, 2)
    assert len(t) == 3
    rows = list(t)
    assert [r.tolist() for r in rows] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    with pytest.raises(TypeError):
        len(kael.tensor(1.0))
    with pytest.raises(TypeError):
        iter(kael.tensor(1.0))


def test_repr_is_the_cpp_printer():
    assert repr(kael.tensor([0.0, 1.0])) == "tensor([0.0000, 1.0000], shape=[2], dtype=float32)"
    assert repr(kael.tensor([[1, 2]])) == "tensor([1, 2], shape=[1, 2], dtype=int64)"


def test_conversions_and_copies():
    t = kael.tensor([1.5, -2.5])
    assert t.to(kael.int64).tolist() == [1, -2]
    assert t.long().dtype == kael.int64 and t.double().dtype == kael.float64 and t.bool().tolist() == [True, True]
    assert t.to("cpu") is t  # already there: the same impl, so the same object
    c = t.clone()
    c[0] = 9
    assert t[0].item() == 1.5
    assert t.to(kael.zeros(1, dtype=kael.float64)).dtype == kael.float64
    with pytest.raises(ValueError):
        t.to("cuda:1")


def test_factories_take_sizes_as_arguments_or_one_sequence():
    assert kael.zeros(2, 3).shape == kael.zeros((2, 3)).shape == kael.zeros([2, 3]).shape == (2, 3)
    assert kael.ones(3, dtype=kael.int64).tolist() == [1, 1, 1]
    assert kael.full((2,), 7).dtype == kael.int64 and kael.full((2,), 0.5).dtype == kael.float32
    assert kael.full((1,), True).dtype == kael.bool
    assert kael.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert kael.arange(1, 2, 0.5).tolist() == [1.0, 1.5]
    assert kael.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert kael.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    assert kael.zeros(2, requires_grad=True).requires_grad
    with pytest.raises(ValueError):
        kael.zeros(-1)


def test_random_factories_follow_the_seed():
    kael.manual_seed(5)
    a = kael.randn(4)
    kael.manual_seed(5)
    assert kael.randn(4).tolist() == a.tolist()
    r = kael.randint(0, 10, (100,))
    assert r.dtype == kael.int64 and 0 <= r.min().item() and r.max().item() < 10
    assert sorted(kael.randperm(5).tolist()) == [0, 1, 2, 3, 4]
    u = kael.rand(1000)
    assert 0.0 <= u.min().item() and u.max().item() < 1.0 and math.isclose(u.mean().item(), 0.5, abs_tol=0.05)


def test_the_same_impl_comes_back_as_the_same_object():
    t = kael.ones(3, requires_grad=True)
    (t * 2).sum().backward()
    assert t.grad is t.grad  # read twice: one impl, one object
    u = kael.zeros(3)
    assert u.add_(1) is u and u.mul_(2) is u
    before = id(u)
    u += 1
    assert id(u) == before
    assert u.contiguous() is u  # already contiguous: the same impl
    assert u.view(3) is not u  # a view is a new impl


def test_int_of_a_large_int64_is_exact():
    big = 2**60 + 1
    assert int(kael.tensor([big])) == big and kael.tensor(big).item() == big
