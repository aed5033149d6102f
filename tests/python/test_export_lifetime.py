"""An exported array owns the memory it points at, whatever later happens to the tensor.

t.numpy(), np.asarray(t) and every DLPack consumer (NumPy, PyTorch, kael itself) get a
pointer into t's storage. move_to_, set_ and Module.to give a tensor a new storage in place,
and dropping the last handle frees it; each export must keep the old storage alive, so that
it still reads what it read before, never memory the allocator has handed to another tensor.
Each case below exports, swaps or frees, then fills fresh tensors of the same size (which
the caching allocator would place in a freed block) and reads the export again, through
NumPy and through kael's own kernels, which AddressSanitizer watches in the sanitizer build.
"""
import ctypes
import gc

import numpy as np
import pytest

import kael

try:
    import torch
except ImportError:  # PyTorch is optional: its consumer is skipped without it
    torch = None

N = 1000


def original():
    return kael.arange(N, dtype=kael.float32)


def expected():
    return np.arange(N, dtype=np.float32)


def export_numpy(t):
    return t.numpy()


def export_array_protocol(t):
    return np.asarray(t)


def export_numpy_dlpack(t):
    return np.from_dlpack(t)


def export_kael_dlpack(t):
    return kael.from_dlpack(t)


def export_torch_dlpack(t):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    return torch.from_dlpack(t)


EXPORTS = [export_numpy, export_array_protocol, export_numpy_dlpack, export_kael_dlpack, export_torch_dlpack]


def read_back(exported):
    """The exported values, read once by NumPy and once by a kael kernel over the same bytes."""
    if isinstance(exported, kael.Tensor):
        through_kael = exported
        values = exported.tolist()
    else:
        array = exported.numpy() if torch is not None and isinstance(exported, torch.Tensor) else exported
        values = array.tolist()
        # kael's own loops over the exporter's memory. np.from_dlpack gives a read-only
        # array, which kael does not share, so a writable NumPy view of the same address
        # stands in for it (the exported array stays alive meanwhile).
        address = array.__array_interface__["data"][0]
        writable = np.ctypeslib.as_array((ctypes.c_float * array.size).from_address(address))
        through_kael = kael.from_numpy(writable)
    return values, through_kael.sum().item(), through_kael.clone().tolist()


def churn(address):
    """Fresh tensors of the exported size until one lands at `address`, where the export
    points, or 4096 of them: a block that the swap freed is handed out again (the cache
    holds the blocks earlier tests freed too, so one fresh tensor is not enough)."""
    gc.collect()
    kept = []
    while len(kept) < 4096:
        kept.append(kael.full([N], 7.0))
        if kept[-1].data_ptr() == address:
            break
    return kept


def swap_dtype(t):
    t.move_to_(kael.float64)


def drop(t):
    del t  # the caller's handle goes too: the export is the last owner


SWAPS = [swap_dtype, drop]
#> stage 13


def swap_set(t):
    t.set_(kael.zeros(N))


SWAPS.insert(1, swap_set)
#< stage 13


@pytest.mark.parametrize("swap", SWAPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("export", EXPORTS, ids=lambda f: f.__name__)
def test_an_export_keeps_reading_its_memory_after_the_tensor_changes_storage(export, swap):
    t = original()
    address = t.data_ptr()
    exported = export(t)
    swap(t)
    if swap is drop:
        del t
    kept = churn(address)
    values, total, copied = read_back(exported)
    assert values == expected().tolist()
    assert total == float(expected().sum())
    assert copied == expected().tolist()
    assert all(k.data_ptr() != address for k in kept)  # the exported block was never freed


@pytest.mark.parametrize("export", EXPORTS, ids=lambda f: f.__name__)
def test_module_to_moves_a_buffer_while_an_export_reads_the_old_one(export):
    module = kael.nn.Module()
    module.register_buffer("table", original())
    address = module.table.data_ptr()
    exported = export(module.table)
    module.to(kael.float64)
    assert module.table.dtype == kael.float64
    kept = churn(address)
    values, total, _ = read_back(exported)
    assert values == expected().tolist() and total == float(expected().sum())
    assert all(k.data_ptr() != address for k in kept)


def test_after_a_swap_the_tensor_and_the_export_no_longer_share():
    t = original()
    a = t.numpy()
    t.move_to_(kael.float64)
    a[0] = -5.0  # writes the old storage, which only the array holds now
    assert t[0].item() == 0.0 and a[0] == -5.0
    t[1] = 9.0
    assert a[1] == 1.0


def test_exports_of_a_view_keep_the_whole_storage():
    t = original()
    address = t.data_ptr()
    tail = t[N // 2:].numpy()
    t.move_to_(kael.float64)
    churn(address)
    assert tail.tolist() == expected()[N // 2:].tolist()


def test_bool_arrays_with_other_bytes_are_refused_and_copied_as_truth_values():
    raw = np.array([0, 1, 2, 255], dtype=np.uint8)
    odd = raw.view(np.bool_)
    with pytest.raises(ValueError, match="bytes other than 0 and 1"):
        kael.from_numpy(odd)
    copied = kael.tensor(odd)
    assert copied.dtype == kael.bool and copied.tolist() == [False, True, True, True]
    assert copied.to(kael.int64).tolist() == [0, 1, 1, 1]  # each element is the byte 0 or 1
    strided = np.array([[2, 0], [0, 3]], dtype=np.uint8).view(np.bool_).T
    assert kael.tensor(strided).tolist() == [[True, False], [False, True]]
    for zero_d in (np.array(True), np.array(2, dtype=np.uint8).view(np.bool_)):
        scalar = kael.tensor(zero_d)  # a 0-d array stays 0-d, as in torch.tensor
        assert scalar.shape == () and scalar.item() is True
    clean = np.array([True, False])
    shared = kael.from_numpy(clean)
    clean[1] = True
    assert shared.tolist() == [True, True]  # 0 and 1 only: shared without a copy
