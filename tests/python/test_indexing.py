"""t[...] and t[...] = value as PyTorch reads them."""
import pytest

import kael


def grid():
    return kael.arange(24).view(2, 3, 4)


def test_basic_indexing_returns_views_that_share_storage():
    t = grid()
    assert t[1].shape == (3, 4) and t[-1, -1, -1].item() == 23.0
    assert t[:, 1].shape == (2, 4) and t[..., 2].shape == (2, 3)
    assert t[None].shape == (1, 2, 3, 4) and t[:, None, 1].shape == (2, 1, 4)
    assert t[0, :, ::2].tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    assert t[0, 1:10].shape == (2, 4)  # out-of-range slice ends are clamped
    assert t[0, -2:].tolist() == t[0, 1:].tolist()
    view = t[1, 2]
    view[0] = -1
    assert t[1, 2, 0].item() == -1.0  # written through the view


def test_bad_indices_are_index_errors():
    t = grid()
    with pytest.raises(IndexError):
        t[2]
    with pytest.raises(IndexError):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError):
        t[..., ...]
    with pytest.raises(IndexError):
        t["a"]
    with pytest.raises(ValueError):
        t[::-1]  # negative steps are not views kael can make, as in PyTorch


def test_index_tensors_and_masks_select_copies():
    t = grid()
    assert t[kael.tensor([1, 0])].shape == (2, 3, 4)
    assert t[0, kael.tensor([2, -1])].tolist() == [[8.0, 9.0, 10.0, 11.0], [8.0, 9.0, 10.0, 11.0]]
    assert t[:, :, kael.tensor([[0, 3]])].shape == (2, 3, 1, 2)
    assert t[0, 0, [1, 2]].tolist() == [1.0, 2.0]  # a list is an index tensor too
    mask = t > 20
    assert t[mask].tolist() == [21.0, 22.0, 23.0]
    assert t[0][kael.tensor([True, False, True])].shape == (2, 4)
    picked = t[kael.tensor([0])]
    picked[0, 0, 0] = 100
    assert t[0, 0, 0].item() == 0.0  # advanced indexing copies
    with pytest.raises(IndexError):
        t[kael.tensor([5])]
    with pytest.raises(IndexError):
        t[kael.tensor([True, False, True])]  # a mask of the wrong size


def test_several_index_tensors_pick_elements_together():
    t = grid()
    assert t[[0, 1], [2, 0]].tolist() == [[8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]
    assert t[[0, 1], :, [1, 2]].tolist() == [[1.0, 5.0, 9.0], [14.0, 18.0, 22.0]]  # B first
    assert t[:, [0, 2], [1, 3]].shape == (2, 2)  # B where the indexed dimensions were
    assert t[[[0], [1]], [0, 2]].shape == (2, 2, 4)  # [2, 1] and [2] broadcast to [2, 2]
    mask = kael.tensor([[True, False, True], [False, True, False]])
    assert t[mask, [1, 2, 3]].tolist() == [1.0, 10.0, 19.0]  # a mask stands for its positions
    assert t[True].shape == (1, 2, 3, 4) and t[False].shape == (0, 2, 3, 4)


def test_several_index_tensors_that_do_not_fit_are_index_errors():
    t = grid()
    with pytest.raises(IndexError, match="could not be broadcast together with shapes \\[2\\], \\[3\\]"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        t[[0], [3]]
    with pytest.raises(IndexError, match="index -3 is out of bounds for dimension 0 with size 2"):
        t[[-3], [0]] = 1


def test_assignment_broadcasts_numbers_and_tensors():
    t = kael.zeros(2, 3)
    t[0] = 1
    t[:, 2] = kael.tensor([5.0, 6.0])
    t[1, :2] = kael.tensor([7.0])
    assert t.tolist() == [[1.0, 1.0, 5.0], [7.0, 7.0, 6.0]]
    t[t > 5] = 0
    assert t.tolist() == [[1.0, 1.0, 5.0], [0.0, 0.0, 0.0]]
    t[kael.tensor([1])] = kael.tensor([[2.0, 3.0, 4.0]])
    assert t[1].tolist() == [2.0, 3.0, 4.0]
    t[[0, 1], [1, 0]] = kael.tensor([8.0, 9.0])  # several index tensors: element by element
    assert t.tolist() == [[1.0, 8.0, 5.0], [9.0, 3.0, 4.0]]
    t[t > 8] = kael.tensor([-8.0])  # a tensor through a mask broadcasts to the picked elements
    assert t.tolist() == [[1.0, 8.0, 5.0], [-8.0, 3.0, 4.0]]
    t[..., 0] = -1
    assert t[:, 0].tolist() == [-1.0, -1.0]
    with pytest.raises(TypeError):
        t[0] = "x"
    with pytest.raises(ValueError):
        t[0] = kael.ones(4)  # does not broadcast to [3]
