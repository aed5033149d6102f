"""DLPack with NumPy and PyTorch: no copies, writes visible on both sides, lifetimes right
whichever side dies first, and a capsule consumed once."""
import gc

import numpy as np
import pytest

import kael


def test_numpy_reads_a_kael_tensor_without_a_copy():
    t = kael.arange(6.0).view(2, 3)
    a = np.from_dlpack(t)
    assert a.shape == (2, 3) and a.dtype == np.float32
    assert a.__array_interface__["data"][0] == t.data_ptr()
    t[1, 2] = -5
    assert a[1, 2] == -5  # a write on the kael side is visible in NumPy
    column = np.from_dlpack(t[:, 1])
    assert column.tolist() == [1.0, 4.0]  # element strides survive the trip
    del t
    gc.collect()
    assert a.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, -5.0]]  # the array keeps the storage alive


def test_kael_reads_a_numpy_array_without_a_copy():
    a = np.arange(8, dtype=np.int64).reshape(2, 4)
    t = kael.from_dlpack(a)
    assert t.dtype == kael.int64 and t.shape == (2, 4) and t.data_ptr() == a.__array_interface__["data"][0]
    t[0, 0] = 42
    assert a[0, 0] == 42
    view = t[1]
    del a, t
    gc.collect()
    assert view.tolist() == [4, 5, 6, 7]


def test_a_capsule_lends_its_memory_once():
    t = kael.ones(3)
    capsule = t.__dlpack__()
    first = kael.from_dlpack(capsule)
    assert first.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="already consumed"):
        kael.from_dlpack(capsule)
    unused = kael.zeros(2).__dlpack__()
    del unused  # never consumed: the capsule releases the tensor itself
    gc.collect()


def test_what_dlpack_cannot_carry_is_refused():
    with pytest.raises(TypeError, match="bool"):
        kael.tensor([True]).__dlpack__()
    with pytest.raises(RuntimeError, match="requires grad"):
        kael.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(TypeError):
        kael.from_dlpack(np.zeros(3, dtype=np.int32))
    with pytest.raises(TypeError):
        kael.from_dlpack([1, 2])
    assert kael.ones(1).__dlpack_device__() == (1, 0)


def test_pytorch_and_kael_share_memory_both_ways():
    torch = pytest.importorskip("torch")
    t = kael.zeros(2, 3)
    shared = torch.from_dlpack(t)
    shared[0, 1] = 7
    assert t[0, 1].item() == 7.0  # torch wrote into kael's storage
    x = torch.arange(6.0).view(2, 3).t()  # a transposed torch tensor
    k = kael.from_dlpack(x)
    assert k.strides == (1, 3) and k.tolist() == x.tolist()
    k[0, 0] = -1
    assert x[0, 0].item() == -1.0
    del x
    gc.collect()
    assert k[0, 0].item() == -1.0  # kael keeps torch's storage alive
    del shared, t
    gc.collect()


def test_round_trips_keep_memory_and_references_flat():
    a = np.zeros(100)
    for _ in range(10000):
        t = kael.from_dlpack(a)
        b = np.from_dlpack(t)
        del t, b
    gc.collect()
    import sys
    assert sys.getrefcount(a) == 2  # a itself and getrefcount's argument
