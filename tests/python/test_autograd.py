"""Autograd from Python: backward, grad, grad_fn, no_grad."""
import pytest

import kael


def test_backward_fills_grad_of_leaves():
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    assert y.grad_fn.name() == "SumBackward" and not y.is_leaf and x.is_leaf
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    x.grad = None
    assert x.grad is None


def test_autograd_grad_returns_gradients_without_touching_grad():
    x = kael.tensor([3.0], requires_grad=True)
    (g,) = kael.autograd.grad([x * x], [x], create_graph=True)
    assert g.tolist() == [6.0] and x.grad is None
    (gg,) = kael.autograd.grad([g], [x])
    assert gg.tolist() == [2.0]


def test_no_grad_is_a_context_manager_and_a_decorator():
    x = kael.ones(2, requires_grad=True)
    with kael.no_grad():
        assert not (x * 2).requires_grad
        with kael.enable_grad():
            assert (x * 2).requires_grad
    assert (x * 2).requires_grad

    @kael.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad and kael.is_grad_enabled()


def test_backward_errors_are_python_exceptions():
    x = kael.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        (x * 2).backward()  # a two-element output needs a gradient
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError):
        y.backward()  # the graph was freed
