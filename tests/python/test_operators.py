"""Operators with tensors and Python numbers on either side, and their promotion rules."""
import pytest

import kael


def test_numbers_on_either_side():
    t = kael.tensor([1.0, 2.0, 4.0])
    assert (t + 1).tolist() == [2.0, 3.0, 5.0] and (1 + t).tolist() == [2.0, 3.0, 5.0]
    assert (t - 1).tolist() == [0.0, 1.0, 3.0] and (1 - t).tolist() == [0.0, -1.0, -3.0]
    assert (t * 2).tolist() == [2.0, 4.0, 8.0] and (2 * t).tolist() == [2.0, 4.0, 8.0]
    assert (t / 2).tolist() == [0.5, 1.0, 2.0] and (4 / t).tolist() == [4.0, 2.0, 1.0]
    assert (t ** 2).tolist() == [1.0, 4.0, 16.0] and (2 ** t).tolist() == [2.0, 4.0, 16.0]
    assert (-t).tolist() == [-1.0, -2.0, -4.0] and abs(-t).tolist() == [1.0, 2.0, 4.0]
    assert (t @ t).item() == 21.0


def test_python_numbers_promote_as_scalars_of_their_kind():
    n = kael.tensor([1, 2, 3])
    assert (n + 1).dtype == kael.int64          # int with int stays int64
    assert (n + 1.5).dtype == kael.float32      # a float makes float32, not float64
    assert (n + True).dtype == kael.int64       # a bool never widens an integer
    assert (n / 2).dtype == kael.float32        # true division is floating
    assert (n // 2).tolist() == [0, 1, 1] and (n % 2).tolist() == [1, 0, 1]
    assert (-7 // kael.tensor([2])).tolist() == [-4]   # Python's floor, not C's truncation
    assert (kael.tensor([-7]) % 3).tolist() == [2]     # the sign of the divisor
    b = kael.tensor([True, False])
    assert (b + True).dtype == kael.bool
    assert (b + 1).dtype == kael.int64
    assert (kael.tensor([1.0], dtype=kael.float64) * 2.5).dtype == kael.float64


def test_comparisons_and_masks():
    t = kael.tensor([1, 2, 3])
    assert (t > 1).tolist() == [False, True, True] and (1 < t).tolist() == [False, True, True]
    assert (t == 2).tolist() == [False, True, False] and (t != 2).tolist() == [True, False, True]
    assert (t <= kael.tensor([3, 2, 1])).tolist() == [True, True, False]
    m = t > 1
    assert (~m).tolist() == [True, False, False]
    assert (m & (t < 3)).tolist() == [False, True, False] and (m | (t < 2)).tolist() == [True, True, True]
    with pytest.raises(TypeError, match="bool tensors only"):
        t & t
    assert hash(t) == hash(t)  # usable as a dict key although == is element-wise


def test_in_place_operators_write_the_same_tensor():
    t = kael.zeros(3)
    view = t[1:]
    t += 1
    t *= kael.tensor([1.0, 2.0, 3.0])
    assert t.tolist() == [1.0, 2.0, 3.0] and view.tolist() == [2.0, 3.0]
    n = kael.tensor([1, 2])
    with pytest.raises(TypeError):
        n /= 2  # a float result cannot be written into int64, as in PyTorch


def test_unknown_operands_give_python_type_errors():
    t = kael.ones(2)
    with pytest.raises(TypeError):
        t + "a"
    with pytest.raises(TypeError):
        t + [1, 2]
    assert (t == "a") is False  # NotImplemented on both sides: Python falls back to identity


def test_errors_map_to_python_classes():
    with pytest.raises(IndexError):
        kael.zeros(2)[3]
    with pytest.raises(ValueError):
        kael.zeros(2, 3).view(4)
    with pytest.raises(TypeError):
        kael.tensor([1, 2]).matmul(kael.ones(2))
    with pytest.raises(RuntimeError, match="integer division by zero"):
        kael.tensor([1]) // 0
    with pytest.raises(ValueError, match="int64"):
        kael.ones(1, dtype=kael.int64) + 2**70  # a Python int past int64
