"""NumPy without copies, both ways: writes visible on the other side, lifetimes right
whichever side dies first, refusals with reasons, and no leaked references."""
import gc
import sys

import numpy as np
import pytest

import kael


def test_numpy_shares_the_tensors_memory():
    t = kael.zeros(2, 3)
    a = t.numpy()
    assert a.dtype == np.float32 and a.shape == (2, 3) and a.strides == (12, 4)
    a[1, 2] = 5
    assert t[1, 2].item() == 5.0
    t[0, 0] = 7
    assert a[0, 0] == 7
    transposed = t.T.numpy()
    assert transposed.strides == (4, 12) and transposed[2, 1] == 5  # element strides become bytes
    assert np.asarray(t).__array_interface__["data"][0] == t.data_ptr()


def test_from_numpy_shares_the_arrays_memory():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    t = kael.from_numpy(a)
    assert t.dtype == kael.float64 and t.shape == (3, 4) and t.strides == (4, 1)
    t[0, 1] = -1
    assert a[0, 1] == -1
    a[2, 3] = 100
    assert t[2, 3].item() == 100.0
    column = kael.from_numpy(a[:, 1])  # a strided view: byte strides become element strides
    assert column.strides == (4,) and column.tolist() == [-1.0, 5.0, 9.0]
    for dtype, expected in [(np.float32, kael.float32), (np.int64, kael.int64), (np.bool_, kael.bool)]:
        assert kael.from_numpy(np.zeros(2, dtype=dtype)).dtype == expected


def test_the_source_may_die_first_on_either_side():
    a = np.arange(4.0)
    t = kael.from_numpy(a)
    view = t[1:]
    del a, t
    gc.collect()
    assert view.tolist() == [1.0, 2.0, 3.0]  # the array lives while a tensor over it does
    u = kael.arange(3)
    b = u.numpy()
    del u
    gc.collect()
    assert b.tolist() == [0.0, 1.0, 2.0]  # the tensor lives while the array does


def test_arrays_kael_cannot_describe_are_refused_with_the_reason():
    with pytest.raises(TypeError, match="int32"):
        kael.from_numpy(np.zeros(3, dtype=np.int32))
    with pytest.raises(TypeError, match="float16"):
        kael.from_numpy(np.zeros(3, dtype=np.float16))
    with pytest.raises(ValueError, match="negative"):
        kael.from_numpy(np.arange(3.0)[::-1])
    read_only = np.arange(3.0)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        kael.from_numpy(read_only)
    raw = np.zeros(17, dtype=np.uint8)
    misaligned = raw[1:].view(np.float64)
    with pytest.raises(ValueError, match="aligned"):
        kael.from_numpy(misaligned)
    with pytest.raises(TypeError, match="np.ndarray"):
        kael.from_numpy([1.0, 2.0])
    with pytest.raises(RuntimeError, match="requires grad"):
        kael.ones(2, requires_grad=True).numpy()


def test_kael_tensor_copies_what_from_numpy_refuses():
    reversed_ints = np.arange(3, dtype=np.int32)[::-1]
    t = kael.tensor(reversed_ints)
    assert t.dtype == kael.int64 and t.tolist() == [2, 1, 0]
    half = kael.tensor(np.ones(2, dtype=np.float16))
    assert half.dtype == kael.float32
    a = np.ones(2)
    copy = kael.tensor(a)
    copy[0] = 5
    assert a[0] == 1.0


def test_conversions_do_not_leak_references():
    a = np.zeros(1000, dtype=np.float32)
    before = sys.getrefcount(a)
    for _ in range(10000):
        t = kael.from_numpy(a)
        b = t.numpy()
        del t, b
    gc.collect()
    assert sys.getrefcount(a) == before


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def test_ten_thousand_conversions_keep_memory_flat():
    # Each round trip lends a 1 MB buffer both ways; were one reference or one storage
    # leaked per conversion, 10000 of them would hold 10 GB.
    a = np.zeros(250_000, dtype=np.float32)
    for _ in range(100):  # warm the allocators first
        kael.from_numpy(a).numpy()
    before = resident_bytes()
    for _ in range(10000):
        t = kael.from_numpy(a)
        u = kael.from_numpy(t.numpy())
        del t, u
    gc.collect()
    assert resident_bytes() - before < 20 * 1024 * 1024
