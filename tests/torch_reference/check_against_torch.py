#!/usr/bin/python3
"""Compares kael with PyTorch on random inputs: every operation of chapter 05, several
shapes, dtypes and layouts, and the cases where both must refuse.

    /usr/bin/python3 tests/torch_reference/check_against_torch.py BUILD_DIR

Needs Debian's python3-torch and python3-numpy; prints one line per mismatch and a
summary, and exits 1 on any mismatch. BUILD_DIR holds tests/torch_reference_driver.
"""
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(2024)
DTYPES = {"float32": (np.float32, torch.float32), "float64": (np.float64, torch.float64),
          "int64": (np.int64, torch.int64), "bool": (np.bool_, torch.bool)}
TORCH_NAMES = {v[1]: k for k, v in DTYPES.items()}


class Case:
    def __init__(self, op, inputs, params=None, reference=None):
        self.op, self.inputs, self.params, self.reference = op, inputs, params or {}, reference


#> stage 7
class GradCase(Case):
    """A case whose gradients are compared too: every floating point input is a leaf (after
    its view recipe, if any) and both sides differentiate sum(result * weights)."""

    def __init__(self, op, inputs, params, reference, views):
        super().__init__(op, inputs, {**params, "grad": "1"}, reference)
        self.views = views
#< stage 7


def tensor(shape, dtype="float32", low=-3.0, high=3.0):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int64":
        return rng.integers(int(low), int(high) + 1, size=shape, dtype=np.int64)
    return rng.uniform(low, high, size=shape).astype(DTYPES[dtype][0])


def t(array):
    return torch.from_numpy(np.ascontiguousarray(array))


def cases():
    out = []
    shapes = [((5,), (5,)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((0, 3), (3,))]
    for a_shape, b_shape in shapes:
        for dtype in ("float32", "float64", "int64"):
            a, b = tensor(a_shape, dtype), tensor(b_shape, dtype)
            for alpha in ("1", "2"):
                out.append(Case("add", [a, b], {"alpha": alpha}, lambda x, y, alpha=alpha: torch.add(x, y, alpha=int(alpha))))
                out.append(Case("sub", [a, b], {"alpha": alpha}, lambda x, y, alpha=alpha: torch.sub(x, y, alpha=int(alpha))))
            out.append(Case("mul", [a, b], {}, torch.mul))
            out.append(Case("div", [a, b], {}, torch.div))
            out.append(Case("maximum", [a, b], {}, torch.maximum))
            out.append(Case("minimum", [a, b], {}, torch.minimum))
            out.append(Case("atan2", [a, b], {}, torch.atan2))
            for name in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"):
                out.append(Case(name, [a, b], {}, getattr(torch, name)))
            divisor = np.where(b == 0, 1, b).astype(b.dtype) if dtype == "int64" else b
            out.append(Case("floor_divide", [a, divisor], {}, torch.floor_divide))
            out.append(Case("remainder", [a, divisor], {}, torch.remainder))
    # Mixed dtypes promote.
    for da, db in (("int64", "float32"), ("float32", "float64"), ("bool", "int64"), ("bool", "bool"), ("int64", "float64")):
        a, b = tensor((3, 4), da), tensor((4,), db)
        out.append(Case("add", [a, b], {"alpha": "1"}, torch.add))
        out.append(Case("mul", [a, b], {}, torch.mul))
        out.append(Case("div", [a, b], {}, torch.div))
        out.append(Case("lt", [a, b], {}, torch.lt))
    out.append(Case("sub", [tensor((3,), "bool"), tensor((3,), "bool")], {"alpha": "1"}, torch.sub))
    out.append(Case("sub", [tensor((3,), "bool"), tensor((3,), "int64")], {"alpha": "1"}, torch.sub))
    # Zero-dimensional tensors take part in promotion only by category.
    out.append(Case("add", [tensor((3,), "int64"), tensor((), "float64")], {"alpha": "1"}, torch.add))
    out.append(Case("add", [tensor((3,), "float32"), tensor((), "float64")], {"alpha": "1"}, torch.add))
    # pow: floats with any exponent; integers with non-negative exponents.
    out.append(Case("pow", [tensor((4, 3), "float64", 0.1, 3), tensor((3,), "float64")], {}, torch.pow))
    out.append(Case("pow", [tensor((6,), "int64", -4, 4), tensor((6,), "int64", 0, 5)], {}, torch.pow))
    out.append(Case("pow", [tensor((6,), "int64", -4, 4), tensor((6,), "int64", -3, 0)], {}, torch.pow))
    # Scalars.
    for dtype in ("float32", "float64", "int64", "bool"):
        x = tensor((3, 5), dtype)
        for value in ("2", "2.5", "-1"):
            v = float(value) if "." in value else int(value)
            out.append(Case("add_scalar", [x], {"value": value}, lambda a, v=v: a + v))
            out.append(Case("mul_scalar", [x], {"value": value}, lambda a, v=v: a * v))
            out.append(Case("div_scalar", [x], {"value": value}, lambda a, v=v: a / v))
            out.append(Case("rsub_scalar", [x], {"value": value}, lambda a, v=v: v - a))
            # Python's reflected 3 // t and 3 % t (integer zeros replaced: they raise in both).
            divisor = np.where(x == 0, 1, x).astype(x.dtype) if dtype == "int64" else x
            out.append(Case("rfloor_divide_scalar", [divisor], {"value": value}, lambda a, v=v: v // a))
            out.append(Case("rremainder_scalar", [divisor], {"value": value}, lambda a, v=v: v % a))
        for value in ("2", "3", "0.5", "-1", "-2", "1.7"):
            v = float(value) if "." in value else int(value)
            base = np.abs(x) + 0.5 if dtype.startswith("float") else x
            out.append(Case("pow_scalar", [base], {"value": value}, lambda a, v=v: torch.pow(a, v)))
    # Unary functions on floats, integers, bools, with a transposed layout too.
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.5, 2.5, -2.5, 1e-8], dtype=np.float64)
    for dtype in ("float32", "float64", "int64", "bool"):
        for x in (tensor((4, 6), dtype), special.astype(DTYPES[dtype][0]) if dtype.startswith("float") else tensor((3,), dtype)):
            for name in ("neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh",
                         "sigmoid", "relu", "sign", "floor", "ceil", "round", "isnan", "isfinite", "logical_not"):
                fn = getattr(torch, name)
                out.append(Case(name, [x], {}, fn))
                if x.ndim == 2:
                    out.append(Case(name, [x], {"transposed": "1"}, fn))
            out.append(Case("silu", [x], {}, F.silu))
            out.append(Case("gelu", [x], {}, F.gelu))
            out.append(Case("gelu", [x], {"approximate": "tanh"}, lambda a: F.gelu(a, approximate="tanh")))
            out.append(Case("clamp", [x], {"min": "-1", "max": "1"}, lambda a: torch.clamp(a, -1, 1)))
            out.append(Case("clamp", [x], {"min": "0.5"}, lambda a: torch.clamp(a, min=0.5)))
            out.append(Case("clamp", [x], {"min": "2", "max": "1"}, lambda a: torch.clamp(a, 2, 1)))
    # where and isclose.
    out.append(Case("where", [tensor((3, 4), "bool"), tensor((4,), "int64"), tensor((3, 1), "float32")], {}, torch.where))
    a = tensor((5,), "float64")
    b = a + rng.uniform(-1e-5, 1e-5, size=5)
    out.append(Case("isclose", [a, b], {}, torch.isclose))
    nan = np.array([np.nan, 1.0, np.inf, -np.inf])
    out.append(Case("isclose", [nan, nan], {"equal_nan": "1"}, lambda x, y: torch.isclose(x, y, equal_nan=True)))
    # Reductions over every combination of dims, with and without keepdim.
    for dtype in ("float32", "float64", "int64", "bool"):
        x = tensor((3, 4, 5), dtype)
        for dims in ("", "0", "1", "2", "0,2", "-1", "0,1,2"):
            d = [int(v) for v in dims.split(",")] if dims else None
            for keepdim in ("0", "1"):
                k = keepdim == "1"
                p = {"dims": dims, "keepdim": keepdim}
                every = list(range(x.ndim))
                whole = lambda r, k=k, n=x.ndim: r.reshape([1] * n) if k else r  # noqa: E731
                out.append(Case("sum", [x], p, lambda a, d=d, k=k: torch.sum(a, d if d else every, k)))
                out.append(Case("prod", [x], p, lambda a, d=d, k=k, w=whole: torch.prod(a, d[0], k) if d and len(d) == 1 else w(torch.prod(a)) if not d else None))
                out.append(Case("amax", [x], p, lambda a, d=d, k=k: torch.amax(a, d if d else list(range(a.dim())), k)))
                out.append(Case("amin", [x], p, lambda a, d=d, k=k: torch.amin(a, d if d else list(range(a.dim())), k)))
                out.append(Case("any", [x], p, lambda a, d=d, k=k, w=whole: torch.any(a, d[0], k) if d and len(d) == 1 else w(torch.any(a)) if not d else None))
                if dtype.startswith("float"):
                    out.append(Case("mean", [x], p, lambda a, d=d, k=k: torch.mean(a, d if d else every, k)))
                    out.append(Case("var", [x], p, lambda a, d=d, k=k: torch.var(a, d if d else every, keepdim=k)))
                    out.append(Case("std", [x], {**p, "correction": "0"}, lambda a, d=d, k=k: torch.std(a, d if d else every, unbiased=False, keepdim=k)))
                    out.append(Case("logsumexp", [x], p, lambda a, d=d, k=k: torch.logsumexp(a, d if d else list(range(a.dim())), k)))
        for dim in ("0", "1", "-1"):
            out.append(Case("max_values", [x], {"dim": dim}, lambda a, dim=dim: torch.max(a, int(dim)).values))
            if dtype != "bool":
                out.append(Case("argmax", [x], {"dim": dim}, lambda a, dim=dim: torch.argmax(a, int(dim))))
                out.append(Case("argmin", [x], {"dim": dim}, lambda a, dim=dim: torch.argmin(a, int(dim))))
            out.append(Case("cumsum", [x], {"dim": dim}, lambda a, dim=dim: torch.cumsum(a, int(dim))))
        if dtype != "bool":
            out.append(Case("argmax", [x], {}, torch.argmax))
    ties = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, 1.0, 0.0]])
    out.append(Case("max_indices", [ties], {"dim": "1"}, lambda a: torch.max(a, 1).indices))
    out.append(Case("min_indices", [ties], {"dim": "1"}, lambda a: torch.min(a, 1).indices))
    out.append(Case("argmax", [ties], {}, torch.argmax))
    # Matrix products of every rank combination.
    for dtype in ("float32", "float64", "int64"):
        for a_shape, b_shape in (((7,), (7,)), ((3, 7), (7,)), ((7,), (7, 4)), ((5, 7), (7, 9)), ((2, 5, 7), (7, 3)),
                                 ((2, 1, 5, 7), (3, 7, 4)), ((4, 7), (2, 7, 3)), ((33, 129), (129, 65))):
            out.append(Case("matmul", [tensor(a_shape, dtype), tensor(b_shape, dtype)], {}, torch.matmul))
        out.append(Case("matmul", [tensor((6, 5), dtype), tensor((5, 6), dtype)], {"transposed": "1"}, torch.matmul))
    out.append(Case("matmul", [tensor((2, 3)), tensor((4, 2))], {}, torch.matmul))
    # Neural network functions.
    for dtype in ("float32", "float64"):
        x = tensor((4, 7), dtype, -10, 10)
        for dim in ("0", "1", "-1"):
            out.append(Case("softmax", [x], {"dim": dim}, lambda a, dim=dim: torch.softmax(a, int(dim))))
            out.append(Case("log_softmax", [x], {"dim": dim}, lambda a, dim=dim: torch.log_softmax(a, int(dim))))
        target = rng.integers(0, 7, size=4)
        target[1] = -100
        for reduction in ("mean", "sum", "none"):
            out.append(Case("cross_entropy", [x, target], {"reduction": reduction},
                            lambda a, b, r=reduction: F.cross_entropy(a, b, reduction=r)))
            out.append(Case("nll_loss", [x, target], {"reduction": reduction},
                            lambda a, b, r=reduction: F.nll_loss(a, b, reduction=r)))
            out.append(Case("mse_loss", [x, tensor((7,), dtype)], {"reduction": reduction},
                            lambda a, b, r=reduction: F.mse_loss(a, b.expand_as(a), reduction=r)))
        spatial = tensor((2, 5, 3), dtype)
        out.append(Case("cross_entropy", [spatial, rng.integers(0, 5, size=(2, 3))], {}, F.cross_entropy))
        out.append(Case("cross_entropy", [x, np.array([9, 0, 1, 2])], {}, F.cross_entropy))
        y = tensor((3, 4, 6), dtype)
        out.append(Case("layer_norm", [y], {"trailing": "1"}, lambda a: F.layer_norm(a, a.shape[-1:])))
        out.append(Case("layer_norm", [y, tensor((4, 6), dtype), tensor((4, 6), dtype)], {"trailing": "2"},
                        lambda a, w, b: F.layer_norm(a, a.shape[-2:], w, b)))
        weights = tensor((10, 3), dtype)
        out.append(Case("embedding", [weights, rng.integers(0, 10, size=(2, 4))], {}, lambda w, i: F.embedding(i, w)))
    # Indexing and joining.
    m = tensor((4, 5), "float32")
    out.append(Case("index_select", [m, np.array([3, 0, 3])], {"dim": "0"}, lambda a, i: torch.index_select(a, 0, i)))
    out.append(Case("index_select", [m, np.array([4, 1])], {"dim": "1"}, lambda a, i: torch.index_select(a, 1, i)))
    out.append(Case("index_select", [m, np.array([5])], {"dim": "0"}, lambda a, i: torch.index_select(a, 0, i)))
    gather_index = rng.integers(0, 5, size=(4, 3))
    out.append(Case("gather", [m, gather_index], {"dim": "1"}, lambda a, i: torch.gather(a, 1, i)))
    out.append(Case("scatter_add", [m, gather_index, tensor((4, 3))], {"dim": "1"}, lambda a, i, s: torch.scatter_add(a, 1, i, s)))
    out.append(Case("masked_fill", [m, tensor((5,), "bool")], {"value": "-7.5"}, lambda a, k: a.masked_fill(k, -7.5)))
    for diagonal in ("-1", "0", "2"):
        out.append(Case("tril", [tensor((3, 4, 5))], {"diagonal": diagonal}, lambda a, d=diagonal: torch.tril(a, int(d))))
        out.append(Case("triu", [tensor((4, 5))], {"diagonal": diagonal}, lambda a, d=diagonal: torch.triu(a, int(d))))
    out.append(Case("one_hot", [np.array([[0, 3], [2, 1]])], {}, F.one_hot))
    out.append(Case("one_hot", [np.array([0, 3])], {"num_classes": "6"}, lambda a: F.one_hot(a, 6)))
    out.append(Case("cat", [tensor((2, 3), "int64"), tensor((1, 3), "float32")], {"dim": "0"}, lambda *a: torch.cat(a, 0)))
    out.append(Case("cat", [tensor((2, 3)), tensor((2, 2))], {"dim": "1"}, lambda *a: torch.cat(a, 1)))
    out.append(Case("stack", [tensor((2, 3)), tensor((2, 3))], {"dim": "2"}, lambda *a: torch.stack(a, 2)))
    out.append(Case("transpose_contiguous", [tensor((2, 3, 4))], {"a": "0", "b": "2"}, lambda a: a.transpose(0, 2).contiguous()))
    for start, end, step in ((1, 4, 2), (-3, 100, 1), (3, 1, 1), (0, 5, 3)):
        out.append(Case("slice", [tensor((5, 2))], {"dim": "0", "start": str(start), "end": str(end), "step": str(step)},
                        lambda a, s=start, e=end, st=step: a[s:e:st].contiguous()))
    for target in ("int64", "bool", "float32"):
        out.append(Case("to", [np.array([1.9, -2.9, 0.0, 0.5, -0.5])], {"dtype": target},
                        lambda a, d=target: a.to(DTYPES[d][1])))
    # Edge cases: empty inputs, division by zero, special values, degenerate shapes.
    out.extend(edge_cases())
    return out


def edge_cases():
    out = []
    inf, nan = np.inf, np.nan
    empty = tensor((0, 3), "float32")
    for dims in ("", "0", "1"):
        d = [int(v) for v in dims.split(",")] if dims else None
        p = {"dims": dims, "keepdim": "0"}
        for name in ("sum", "mean", "prod", "amax", "amin", "logsumexp", "var", "any", "all"):
            def ref(a, name=name, d=d):
                fn = getattr(torch, name)
                if name in ("prod", "any", "all"):
                    return fn(a, d[0]) if d else fn(a)
                if name == "logsumexp":
                    return fn(a, d if d else [0, 1])
                return fn(a, d) if d else fn(a)
            out.append(Case(name, [empty], p, ref))
    for dim in ("0", "1"):
        out.append(Case("max_values", [empty], {"dim": dim}, lambda a, dim=dim: torch.max(a, int(dim)).values))
        out.append(Case("argmax", [empty], {"dim": dim}, lambda a, dim=dim: torch.argmax(a, int(dim))))
        out.append(Case("cumsum", [empty], {"dim": dim}, lambda a, dim=dim: torch.cumsum(a, int(dim))))
        out.append(Case("softmax", [empty], {"dim": dim}, lambda a, dim=dim: torch.softmax(a, int(dim))))
        out.append(Case("log_softmax", [empty], {"dim": dim}, lambda a, dim=dim: torch.log_softmax(a, int(dim))))
    out.append(Case("argmax", [empty], {}, torch.argmax))
    out.append(Case("sum", [np.zeros((0,), np.int64)], {"dims": "", "keepdim": "1"}, lambda a: torch.sum(a, [0], True)))
    # Integer division by zero is refused; float division by zero gives inf and nan.
    ints = np.array([7, -7, 0, 3], np.int64)
    zeros = np.zeros(4, np.int64)
    out.append(Case("floor_divide", [ints, zeros], {}, torch.floor_divide))
    out.append(Case("remainder", [ints, zeros], {}, torch.remainder))
    out.append(Case("div", [ints, zeros], {}, torch.div))
    floats = np.array([7.0, -7.0, 0.0, inf, -inf, nan, 5.5, -5.5])
    fz = np.array([0.0, 0.0, 0.0, 2.0, 3.0, 1.0, -inf, inf])
    for name in ("div", "floor_divide", "remainder", "atan2", "pow", "maximum", "minimum"):
        out.append(Case(name, [floats, fz], {}, getattr(torch, name)))
        out.append(Case(name, [fz, floats], {}, getattr(torch, name)))
    # Signs of floor division and remainder follow the divisor, as in Python.
    a = np.array([7, -7, 7, -7, 0], np.int64)
    b = np.array([2, 2, -2, -2, -3], np.int64)
    out.append(Case("floor_divide", [a, b], {}, torch.floor_divide))
    out.append(Case("remainder", [a, b], {}, torch.remainder))
    out.append(Case("floor_divide", [a.astype(np.float64), b.astype(np.float64)], {}, torch.floor_divide))
    out.append(Case("remainder", [a.astype(np.float64), b.astype(np.float64)], {}, torch.remainder))
    # pow: negative base with a fractional exponent, 0 to a negative power, integer 0^0.
    out.append(Case("pow", [np.array([-2.0, 0.0, 0.0, 1.0, nan]), np.array([0.5, -1.0, 0.0, nan, 0.0])], {}, torch.pow))
    out.append(Case("pow", [np.array([0, 2, -1, -1], np.int64), np.array([0, 62, 3, 4], np.int64)], {}, torch.pow))
    # Softmax and friends with infinities; a row of all -inf gives nan, as in PyTorch.
    rows = np.array([[0.0, -inf, 1.0], [-inf, -inf, -inf], [inf, 0.0, 1.0], [nan, 0.0, 1.0]])
    for name in ("softmax", "log_softmax"):
        out.append(Case(name, [rows], {"dim": "1"}, lambda a, name=name: getattr(torch, name)(a, 1)))
    out.append(Case("logsumexp", [rows], {"dims": "1", "keepdim": "0"}, lambda a: torch.logsumexp(a, 1)))
    # NaN through reductions and comparisons.
    with_nan = np.array([[1.0, nan, 3.0], [2.0, 5.0, -1.0]])
    for name in ("amax", "amin", "sum", "mean", "prod"):
        out.append(Case(name, [with_nan], {"dims": "1", "keepdim": "0"},
                        lambda a, name=name: getattr(torch, name)(a, 1)))
    out.append(Case("clamp", [with_nan], {"min": "0", "max": "2"}, lambda a: torch.clamp(a, 0, 2)))
    out.append(Case("cumsum", [with_nan], {"dim": "1"}, lambda a: torch.cumsum(a, 1)))
    # Variance with too few elements for the correction.
    single = np.array([[3.0], [4.0]])
    for c in ("0", "1", "2"):
        out.append(Case("var", [single], {"dims": "1", "keepdim": "0", "correction": c},
                        lambda a, c=c: torch.var(a, 1, correction=int(c))))
    # Rounding halves to even, for floats of every size.
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 4503599627370495.5, 1e300, -0.0])
    out.append(Case("round", [halves], {}, torch.round))
    out.append(Case("round", [np.array([0.5, 2.5, -3.5, 8388607.5, 3e38], np.float32)], {}, torch.round))
    # Integer sums wrap around like int64 arithmetic.
    big = np.array([2**62, 2**62, 2**62], np.int64)
    out.append(Case("sum", [big], {"dims": "", "keepdim": "0"}, torch.sum))
    out.append(Case("cumsum", [big], {"dim": "0"}, lambda a: torch.cumsum(a, 0)))
    out.append(Case("mul", [big, np.array([4, 4, 4], np.int64)], {}, torch.mul))
    # Matrix products with an empty dimension.
    for a_shape, b_shape in (((0, 4), (4, 3)), ((3, 0), (0, 5)), ((2, 3, 0), (0, 4)), ((0,), (0,))):
        out.append(Case("matmul", [tensor(a_shape), tensor(b_shape)], {}, torch.matmul))
    # Cross entropy where every target is ignored: the mean divides 0 by 0.
    logits = tensor((3, 4), "float32")
    ignored = np.array([-100, -100, -100])
    for reduction in ("mean", "sum", "none"):
        out.append(Case("cross_entropy", [logits, ignored], {"reduction": reduction},
                        lambda a, b, r=reduction: F.cross_entropy(a, b, reduction=r)))
    out.append(Case("cross_entropy", [logits, np.array([0, -1, 2])], {}, F.cross_entropy))
    out.append(Case("nll_loss", [logits, np.array([0, 4, 2])], {}, F.nll_loss))
    # Joining and indexing at the edges.
    out.append(Case("cat", [tensor((2, 3)), tensor((0, 3))], {"dim": "0"}, lambda *a: torch.cat(a, 0)))
    out.append(Case("cat", [tensor((2, 3)), tensor((2, 3), "bool")], {"dim": "-1"}, lambda *a: torch.cat(a, -1)))
    out.append(Case("stack", [tensor((2, 3)), tensor((3, 2))], {"dim": "0"}, lambda *a: torch.stack(a, 0)))
    m = tensor((4, 5))
    out.append(Case("index_select", [m, np.array([-1])], {"dim": "0"}, lambda a, i: torch.index_select(a, 0, i)))
    out.append(Case("index_select", [m, np.zeros((0,), np.int64)], {"dim": "1"}, lambda a, i: torch.index_select(a, 1, i)))
    out.append(Case("gather", [m, np.array([[5]])], {"dim": "1"}, lambda a, i: torch.gather(a, 1, i)))
    out.append(Case("gather", [m, np.array([[-1]])], {"dim": "1"}, lambda a, i: torch.gather(a, 1, i)))
    out.append(Case("embedding", [tensor((3, 2)), np.array([3])], {}, lambda w, i: F.embedding(i, w)))
    out.append(Case("one_hot", [np.array([0, -1])], {}, F.one_hot))
    out.append(Case("one_hot", [np.array([0, 3])], {"num_classes": "3"}, lambda a: F.one_hot(a, 3)))
    out.append(Case("tril", [tensor((5,))], {"diagonal": "0"}, torch.tril))
    # scatter_add reads only the index's extent of src; the index may not exceed src
    # anywhere nor self outside dim. An empty index checks nothing.
    src = tensor((4, 6))
    for index_shape, dim in (((2, 3), 0), ((4, 2), 1), ((1, 6), 0), ((4, 6), 1), ((5, 2), 0), ((2, 7), 1), ((2, 6), 1)):
        index = rng.integers(0, m.shape[dim], size=index_shape)
        out.append(Case("scatter_add", [m, index, src], {"dim": str(dim)},
                        lambda a, i, s, d=dim: torch.scatter_add(a, d, i, s)))
    out.append(Case("scatter_add", [m, np.zeros((0,), np.int64), tensor((3,))], {"dim": "0"},
                    lambda a, i, s: torch.scatter_add(a, 0, i, s)))
    # masked_fill out of place broadcasts the input and the mask together.
    for x_shape, mask_shape in (((5,), (4, 5)), ((3, 1), (1, 4)), ((), (2, 3)), ((4, 5), (5,)), ((3,), (4,))):
        out.append(Case("masked_fill", [tensor(x_shape), tensor(mask_shape, "bool")], {"value": "2.5"},
                        lambda a, k: a.masked_fill(k, 2.5)))
    # cat skips 1-d empty ("legacy") tensors in its shape checks, not in its dtype.
    legacy = np.zeros((0,), np.float64)
    out.append(Case("cat", [legacy, tensor((2, 3))], {"dim": "1"}, lambda *a: torch.cat(a, 1)))
    out.append(Case("cat", [tensor((2, 3), "int64"), legacy, tensor((1, 3), "int64")], {"dim": "0"}, lambda *a: torch.cat(a, 0)))
    out.append(Case("cat", [legacy, np.zeros((0,), np.int64)], {"dim": "0"}, lambda *a: torch.cat(a, 0)))
    out.append(Case("cat", [np.zeros((0, 2)), tensor((2, 3))], {"dim": "0"}, lambda *a: torch.cat(a, 0)))
    # argmax and argmin refuse bool input; max of bool works.
    flags = tensor((3, 4), "bool")
    out.append(Case("argmax", [flags], {}, torch.argmax))
    out.append(Case("argmax", [flags], {"dim": "1"}, lambda a: torch.argmax(a, 1)))
    out.append(Case("argmin", [flags], {"dim": "0"}, lambda a: torch.argmin(a, 0)))
    out.append(Case("max_values", [flags], {"dim": "1"}, lambda a: torch.max(a, 1).values))
    out.append(Case("triu", [tensor((0, 3))], {"diagonal": "-5"}, lambda a: torch.triu(a, -5)))
    out.extend(view_cases())
    out.extend(in_place_cases())
    out.extend(layout_cases())
    out.extend(factory_cases())
#> stage 7
    out.extend(grad_cases())
#< stage 7
#> stage 8
    out.extend(optimizer_cases())
    out.extend(training_cases())
#< stage 8
    # Conversions of out-of-range and special floats.
    out.append(Case("to", [np.array([nan, inf, -inf, 1e30, -0.0, 2.0])], {"dtype": "bool"}, lambda a: a.to(torch.bool)))
    out.append(Case("to", [np.array([3.4e39, -1e40, 1e-46])], {"dtype": "float32"}, lambda a: a.to(torch.float32)))
    return out


def view_cases():
    """Views and splits, including the sizes and indices both libraries must refuse."""
    out = []
    x = tensor((2, 3, 4))
    join = lambda values: ",".join(str(v) for v in values)  # noqa: E731
    for shape in ((6, 4), (-1,), (4, -1, 2), (24,), (5, -1), (-1, -1), (0, -1), (2, 3, 4, 1)):
        out.append(Case("reshape", [x], {"shape": join(shape)}, lambda a, s=shape: a.reshape(s)))
        out.append(Case("view", [x], {"shape": join(shape)}, lambda a, s=shape: a.view(s)))
    # view of a transposed tensor: splitting a dimension works, merging across it does not.
    # The driver's "transposed" input has the same values laid out with dimensions 0 and 1
    # swapped in memory.
    swapped = lambda a: a.transpose(0, 1).contiguous().transpose(0, 1)  # noqa: E731
    for shape in ((4, 6), (2, 3, 2, 2), (2, -1), (-1, 4)):
        out.append(Case("view", [x], {"shape": join(shape), "transposed": "1"}, lambda a, s=shape: swapped(a).view(s)))
        out.append(Case("reshape", [x], {"shape": join(shape), "transposed": "1"}, lambda a, s=shape: swapped(a).reshape(s)))
    out.append(Case("view", [tensor((0, 3))], {"shape": "3,0"}, lambda a: a.view(3, 0)))
    for dims in ((2, 0, 1), (-1, 0, 1), (0, 0, 1), (0, 1), (0, 1, 3)):
        out.append(Case("permute", [x], {"dims": join(dims)}, lambda a, d=dims: a.permute(d)))
    y = tensor((1, 3, 1, 2))
    for dim in (None, 0, 1, -2, 4, -5):
        p = {} if dim is None else {"dim": str(dim)}
        out.append(Case("squeeze", [y], p, lambda a, d=dim: a.squeeze() if d is None else a.squeeze(d)))
    for dim in (0, 4, -1, -5, 5, -6):
        out.append(Case("unsqueeze", [y], {"dim": str(dim)}, lambda a, d=dim: a.unsqueeze(d)))
    out.append(Case("unsqueeze", [tensor(())], {"dim": "-1"}, lambda a: a.unsqueeze(-1)))
    for start, end in ((0, -1), (1, 2), (2, 1), (-2, -1), (0, 3), (1, 1)):
        out.append(Case("flatten", [x], {"start": str(start), "end": str(end)}, lambda a, s=start, e=end: a.flatten(s, e)))
    out.append(Case("flatten", [tensor(())], {}, lambda a: a.flatten()))
    for dim, shape in ((2, (2, 2)), (-1, (2, -1)), (1, (3,)), (0, (3, 1)), (2, (-1, -1))):
        out.append(Case("unflatten", [x], {"dim": str(dim), "shape": join(shape)},
                        lambda a, d=dim, s=shape: a.unflatten(d, s)))
    for dim, start, length in ((2, 1, 2), (1, -2, 2), (0, 0, 0), (2, 3, 2), (2, -5, 1), (1, 3, 0)):
        out.append(Case("narrow", [x], {"dim": str(dim), "start": str(start), "length": str(length)},
                        lambda a, d=dim, s=start, n=length: a.narrow(d, s, n)))
    for dim, index in ((0, 1), (1, -1), (2, 3), (1, 3), (2, -5), (-1, 0)):
        out.append(Case("select", [x], {"dim": str(dim), "index": str(index)}, lambda a, d=dim, i=index: a.select(d, i)))
    z = tensor((3, 1))
    for shape in ((3, 4), (2, 3, 4), (-1, 5), (3, 1), (4, 1), (1, 4), (2, -1, 4), (0, 3, 2)):
        out.append(Case("expand", [z], {"shape": join(shape)}, lambda a, s=shape: a.expand(s)))
    w = tensor((7, 2))
    for size in (3, 7, 10):
        out.append(Case("split_count", [w], {"size": str(size)}, lambda a, n=size: torch.tensor(len(torch.split(a, n)))))
        out.append(Case("split", [w], {"size": str(size), "piece": "0"}, lambda a, n=size: torch.split(a, n)[0]))
        out.append(Case("split", [w], {"size": str(size), "piece": str(len(range(0, 7, size)) - 1)},
                        lambda a, n=size: torch.split(a, n)[-1]))
    out.append(Case("split", [w], {"sizes": "2,5", "piece": "1"}, lambda a: torch.split(a, [2, 5])[1]))
    out.append(Case("split", [w], {"sizes": "2,4", "piece": "1"}, lambda a: torch.split(a, [2, 4])[1]))
    out.append(Case("split", [w], {"sizes": "0,7", "piece": "0"}, lambda a: torch.split(a, [0, 7])[0]))
    out.append(Case("split", [w], {"size": "1", "dim": "1", "piece": "1"}, lambda a: torch.split(a, 1, 1)[1]))
    for n, chunks in ((7, 3), (6, 4), (5, 5), (2, 5), (0, 3), (13, 6)):
        v = tensor((n,))
        out.append(Case("split_count", [v], {"chunks": str(chunks)}, lambda a, c=chunks: torch.tensor(len(torch.chunk(a, c)))))
        pieces = len(torch.chunk(t(v), chunks))
        out.append(Case("chunk", [v], {"chunks": str(chunks), "piece": str(pieces - 1)},
                        lambda a, c=chunks: torch.chunk(a, c)[-1]))
    out.append(Case("split_count", [tensor((4,))], {"chunks": "0"}, lambda a: torch.tensor(len(torch.chunk(a, 0)))))
    return out


def in_place_cases():
    """In-place operations: the result keeps self's dtype and shape, or is refused."""
    out = []

    def in_place(name):
        def run(a, b):
            self = a.clone()
            getattr(self, name)(b)
            return self
        return run

    for da, db in (("float32", "float32"), ("float32", "int64"), ("int64", "float32"), ("int64", "int64"),
                   ("bool", "bool"), ("float64", "bool"), ("bool", "int64")):
        for a_shape, b_shape in (((3, 4), (4,)), ((3, 4), (3, 4)), ((4,), (3, 4)), ((3, 1), (3, 4))):
            a, b = tensor(a_shape, da), tensor(b_shape, db, 1, 3)
            for name in ("add_", "sub_", "mul_", "div_", "copy_"):
                out.append(Case(name, [a, b], {}, in_place(name)))
    for dtype in ("float32", "int64", "bool"):
        x = tensor((2, 3), dtype)
        for value in ("2", "0.5"):
            v = float(value) if "." in value else int(value)

            def scalar(name, v=v):
                def run(a):
                    self = a.clone()
                    getattr(self, name)(v)
                    return self
                return run
            out.append(Case("add_scalar_", [x], {"value": value}, scalar("add_")))
            out.append(Case("div_scalar_", [x], {"value": value}, scalar("div_")))
        out.append(Case("masked_fill_", [x, tensor((3,), "bool")], {"value": "1.5"},
                        lambda a, m: a.clone().masked_fill_(m, 1.5)))
        out.append(Case("masked_fill_", [x, tensor((2, 1), "bool")], {"value": "7"},
                        lambda a, m: a.clone().masked_fill_(m, 7)))
    out.append(Case("masked_fill_", [tensor((3,)), tensor((2, 3), "bool")], {"value": "0"},
                    lambda a, m: a.clone().masked_fill_(m, 0)))
    return out


def apply_recipe(x, recipe):
    """The driver's view recipe ("p1,0/s0:1:5:2/e3,4/u0"), applied to a torch tensor."""
    for step in filter(None, recipe.split("/")):
        kind, numbers = step[0], [int(v) for v in step[1:].split(":" if step[0] == "s" else ",")]
        if kind == "p":
            x = x.permute(numbers)
        elif kind == "t":
            x = x.transpose(*numbers)
        elif kind == "s":
            dim, start, end, stride = numbers
            x = x[(slice(None),) * dim + (slice(start, end, stride),)]
        elif kind == "e":
            x = x.expand(numbers)
        elif kind == "u":
            x = x.unsqueeze(numbers[0])
    return x


def random_layout(shape, dtype, low=-3.0, high=3.0, expand=True):
    """A base array and a recipe whose view has `shape` but a random layout: dimensions
    permuted in memory, sliced with steps and offsets, or broadcast from size 1."""
    steps = []
    base_shape = list(shape)
    # Broadcast some dimensions: the base holds size 1 there and the view expands it.
    expanded = [d for d in range(len(shape)) if expand and rng.random() < 0.25]
    for d in expanded:
        base_shape[d] = 1
    # Slice some dimensions with a step and an offset.
    sliced = []
    for d in range(len(shape)):
        if d not in expanded and rng.random() < 0.35:
            step, start = int(rng.integers(1, 4)), int(rng.integers(0, 3))
            sliced.append((d, start, start + step * shape[d], step))
            base_shape[d] = start + step * shape[d] + int(rng.integers(0, 2))
    # Lay the dimensions out in memory in a random order.
    order = list(rng.permutation(len(shape))) if len(shape) > 1 and rng.random() < 0.6 else list(range(len(shape)))
    inverse = [order.index(d) for d in range(len(shape))]
    base = tensor([base_shape[d] for d in order], dtype, low, high)
    if order != list(range(len(shape))):
        steps.append("p" + ",".join(str(d) for d in inverse))
    for d, start, end, step in sliced:
        steps.append(f"s{d}:{start}:{end}:{step}")
    if expanded:
        steps.append("e" + ",".join(str(v) for v in shape))
    return base, "/".join(steps)


def layout_cases():
    """Operations on operands with random layouts: the iterator's reordering, coalescing
    and broadcasting against PyTorch's."""
    out = []

    def case(op, shapes, dtypes, params, reference):
        bases, recipes = [], {}
        for i, (shape, dtype) in enumerate(zip(shapes, dtypes)):
            base, recipe = random_layout(shape, dtype)
            bases.append(base)
            if recipe:
                recipes[f"v{i}"] = recipe
        views = [recipes.get(f"v{i}", "") for i in range(len(shapes))]
        out.append(Case(op, bases, {**params, **recipes},
                        lambda *xs, v=views, r=reference: r(*[apply_recipe(x, rv) for x, rv in zip(xs, v)])))

    shape_pairs = [((4, 5), (4, 5)), ((3, 4, 5), (4, 5)), ((2, 3, 4, 5), (3, 1, 5)), ((6,), (6,)), ((3, 1, 4), (1, 5, 4)),
                   ((2, 3, 4), (2, 3, 4))]
    for round_ in range(6):
        for a_shape, b_shape in shape_pairs:
            for dtype in ("float32", "float64", "int64"):
                other = ("float32", "float64", "int64", "bool")[int(rng.integers(0, 4))] if round_ % 2 else dtype
                case("add", [a_shape, b_shape], [dtype, other], {"alpha": "1"}, torch.add)
                case("strides", [a_shape, b_shape], [dtype, other], {"of": "add", "alpha": "1"},
                     lambda a, b: torch.tensor((a + b).stride()))
                case("strides", [a_shape, b_shape], [dtype, other], {"of": "lt"}, lambda a, b: torch.tensor((a < b).stride()))
                case("strides", [a_shape, b_shape, a_shape[-1:]], ["bool", dtype, other], {"of": "where"},
                     lambda c, a, b: torch.tensor(torch.where(c, a, b).stride()))
                case("mul", [a_shape, b_shape], [dtype, other], {}, torch.mul)
                case("maximum", [a_shape, b_shape], [dtype, dtype], {}, torch.maximum)
                case("lt", [a_shape, b_shape], [dtype, other], {}, torch.lt)
                case("where", [a_shape, b_shape, a_shape[-1:]], ["bool", dtype, other], {}, torch.where)
                case("copy_", [a_shape, b_shape], [dtype, other], {}, lambda a, b: a.clone().copy_(b))
                case("add_", [a_shape, b_shape], ["float64", other], {}, lambda a, b: a.clone().add_(b))
            shape = a_shape
            case("exp", [shape], ["float32"], {}, torch.exp)
            for dtype in ("float32", "int64"):
                case("strides", [shape], [dtype], {"of": "exp"}, lambda a: torch.tensor(torch.exp(a).stride()))
            case("to", [shape], ["float64"], {"dtype": "int64"}, lambda a: a.to(torch.int64))
            case("transpose_contiguous", [shape], ["int64"], {"a": "0", "b": str(len(shape) - 1)},
                 lambda a, n=len(shape): a.transpose(0, n - 1).contiguous())
            for dims in ("", "0", "-1", ",".join(str(d) for d in range(0, len(shape), 2))):
                d = [int(v) for v in dims.split(",")] if dims else list(range(len(shape)))
                case("sum", [shape], ["float64"], {"dims": dims, "keepdim": "1"}, lambda a, d=d: torch.sum(a, d, True))
                case("amax", [shape], ["int64"], {"dims": dims, "keepdim": "0"}, lambda a, d=d: torch.amax(a, d))
            case("cumsum", [shape], ["float64"], {"dim": "-1"}, lambda a: torch.cumsum(a, -1))
            case("softmax", [shape], ["float64"], {"dim": "0"}, lambda a: torch.softmax(a, 0))
            case("argmax", [shape], ["float64"], {"dim": "-1"}, lambda a: torch.argmax(a, -1))
        # A new result takes the layout of its inputs, as in PyTorch: same-shape operands
        # with no size-1 dimension, where the order of the dimensions is never ambiguous.
        for shape in ((4, 5), (2, 3, 4), (3, 2, 4, 5)):
            for other_dtype in ("float32", "float64"):
                case("strides", [shape, shape], ["float32", other_dtype], {"of": "add", "alpha": "1"},
                     lambda a, b: torch.tensor((a + b).stride()))
        for a_shape, b_shape in (((5, 7), (7, 3)), ((2, 5, 7), (7, 3)), ((2, 5, 7), (2, 7, 3)), ((40, 70), (70, 30))):
            for dtype in ("float32", "float64", "int64"):
                case("matmul", [a_shape, b_shape], [dtype, dtype], {}, torch.matmul)
    return out


def factory_cases():
    """arange, linspace and eye: counts, end points and refusals."""
    out = []
    # With an integer dtype and fractional bounds kael counts from the untruncated bounds,
    # PyTorch from truncated ones (a difference chapter 02 explains), so integer ranges get
    # integer bounds, plus the fractional steps both refuse because they truncate to 0.
    integral = ((0, 10, 3), (-3, 3, 1), (5, 5, 1), (0, 1, 0), (0, 5, -1), (10, 0, -3), (1, 1e6, 1e5), (0, 1, 0.5),
                (0, -3, -0.9))
    for start, end, step in integral:
        out.append(Case("arange", [], {"start": str(float(start)), "end": str(float(end)), "step": str(float(step)),
                                       "dtype": "int64"},
                        lambda s=start, e=end, st=step: torch.arange(s, e, st, dtype=torch.int64)))
    for start, end, step in ((0, 1, 0.1), (1, 2.5, 0.5), (0, -5, -1.5), (0, 10, 3), (-3, 3, 1), (0, 1, 0.3),
                             (5, 5, 1), (0, 1, 0), (0, 5, -1), (0.5, 4.5, 1.5), (-2.7, 3.2, 1.1), (1, 1e6, 1e5)):
        for dtype in ("float32", "float64"):
            out.append(Case("arange", [], {"start": str(float(start)), "end": str(float(end)), "step": str(float(step)),
                                           "dtype": dtype},
                            lambda s=start, e=end, st=step, d=dtype: torch.arange(s, e, st, dtype=DTYPES[d][1])))
    for start, end, steps in ((0, 1, 5), (0, 1, 1), (0, 1, 0), (-2, 7, 10), (3, -3, 4), (0, 1, -1), (1e-3, 1e3, 7)):
        for dtype in ("float32", "float64"):
            out.append(Case("linspace", [], {"start": str(float(start)), "end": str(float(end)), "steps": str(steps),
                                             "dtype": dtype},
                            lambda s=start, e=end, n=steps, d=dtype: torch.linspace(s, e, n, dtype=DTYPES[d][1])))
    for n in (0, 1, 4, -1):
        for dtype in ("float32", "int64", "bool"):
            out.append(Case("eye", [], {"n": str(n), "dtype": dtype}, lambda n=n, d=dtype: torch.eye(n, dtype=DTYPES[d][1])))
    return out


#> stage 7
def grad_cases():
    """Gradients of every differentiable operation against torch.autograd: random shapes,
    dtypes and memory layouts, ties and zeros where PyTorch picks a subgradient, and the
    refusals (in place on a leaf, backward twice, a modified saved tensor)."""
    out = []

    def case(op, specs, params, reference, layout=True, expand=True):
        # expand=False for functions whose gradient is ill-conditioned where a whole row is
        # one repeated value (std, layer_norm): there both sides only compare rounding noise.
        bases, views = [], []
        for spec in specs:
            if isinstance(spec, (np.ndarray, np.generic)):
                bases.append(np.asarray(spec))
                views.append("")
                continue
            shape, dtype, low, high = spec
            if layout and dtype.startswith("float") and len(shape) > 0 and rng.random() < 0.6:
                base, recipe = random_layout(shape, dtype, low, high, expand)
            else:
                base, recipe = tensor(shape, dtype, low, high), ""
            bases.append(base)
            views.append(recipe)
        recipes = {f"v{i}": r for i, r in enumerate(views) if r}
        out.append(GradCase(op, bases, {**params, **recipes}, reference, views))

    def f(shape, dtype="float64", low=-3.0, high=3.0):
        return (shape, dtype, low, high)

    smooth = {"neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "expm1": torch.expm1, "sin": torch.sin,
              "cos": torch.cos, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu, "silu": F.silu,
              "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "sign": torch.sign,
              "floor": torch.floor, "ceil": torch.ceil, "round": torch.round}
    positive = {"log": torch.log, "log1p": torch.log1p, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt}
    for shape in ((3, 4), (2, 3, 4), (5,), ()):
        for dtype in ("float32", "float64"):
            for name, fn in smooth.items():
                case(name, [f(shape, dtype)], {}, fn)
            for name, fn in positive.items():
                case(name, [f(shape, dtype, 0.5, 3.0)], {}, fn)
            case("clamp", [f(shape, dtype)], {"min": "-1.0", "max": "1.5"}, lambda x: torch.clamp(x, -1.0, 1.5))
            case("clamp", [f(shape, dtype)], {"min": "0.5"}, lambda x: torch.clamp(x, min=0.5))
            for value in ("2.5", "-1.5"):
                case("mul_scalar", [f(shape, dtype)], {"value": value}, lambda x, v=float(value): x * v)
                case("div_scalar", [f(shape, dtype)], {"value": value}, lambda x, v=float(value): x / v)
                case("rsub_scalar", [f(shape, dtype)], {"value": value}, lambda x, v=float(value): v - x)
                case("add_scalar", [f(shape, dtype)], {"value": value}, lambda x, v=float(value): x + v)
            for value in ("2", "3", "0.5", "-1.5", "0"):
                case("pow_scalar", [f(shape, dtype, 0.5, 3.0)], {"value": value},
                     lambda x, v=value: torch.pow(x, float(v) if "." in v else int(v)))
    # Kinks and ties, where the subgradient is a choice: exact zeros and equal values.
    kinks = np.array([0.0, -1.0, 1.0, 0.0, 1.5, -1.0])
    for name in ("abs", "relu"):
        case(name, [kinks], {}, getattr(torch, name))
    case("clamp", [kinks], {"min": "-1.0", "max": "1.0"}, lambda x: torch.clamp(x, -1.0, 1.0))
    ties = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 0.0], [3.0, -1.0, 3.0]])
    case("maximum", [ties, ties.T.copy()], {}, torch.maximum)
    case("minimum", [ties, np.full((3, 3), 2.0)], {}, torch.minimum)
    for dims in ("", "0", "1"):
        d = [int(v) for v in dims.split(",")] if dims else [0, 1]
        case("amax", [ties], {"dims": dims, "keepdim": "0"}, lambda x, d=d: torch.amax(x, d))
        case("amin", [ties], {"dims": dims, "keepdim": "1"}, lambda x, d=d: torch.amin(x, d, True))
    case("max_values", [ties], {"dim": "1", "keepdim": "0"}, lambda x: torch.max(x, 1).values)
    zeros = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0], [5.0, 6.0, 7.0]])
    for dims in ("", "0", "1"):
        d = [int(v) for v in dims.split(",")] if dims else None
        case("prod", [zeros], {"dims": dims, "keepdim": "0"},
             lambda x, d=d: torch.prod(x) if d is None else torch.prod(x, d[0]))
    case("pow", [np.array([0.0, 0.0, 2.0]), np.array([2.0, 0.0, 0.0])], {}, torch.pow)

    pairs = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((4, 1), (1, 5))]
    for a_shape, b_shape in pairs:
        for dtype in ("float32", "float64"):
            for alpha in ("1", "2"):
                case("add", [f(a_shape, dtype), f(b_shape, dtype)], {"alpha": alpha},
                     lambda x, y, a=int(alpha): torch.add(x, y, alpha=a))
                case("sub", [f(a_shape, dtype), f(b_shape, dtype)], {"alpha": alpha},
                     lambda x, y, a=int(alpha): torch.sub(x, y, alpha=a))
            case("mul", [f(a_shape, dtype), f(b_shape, dtype)], {}, torch.mul)
            case("div", [f(a_shape, dtype), f(b_shape, dtype, 0.5, 3.0)], {}, torch.div)
            case("maximum", [f(a_shape, dtype), f(b_shape, dtype)], {}, torch.maximum)
            case("minimum", [f(a_shape, dtype), f(b_shape, dtype)], {}, torch.minimum)
            case("atan2", [f(a_shape, dtype), f(b_shape, dtype)], {}, torch.atan2)
            case("pow", [f(a_shape, dtype, 0.5, 3.0), f(b_shape, dtype)], {}, torch.pow)
            case("remainder", [f(a_shape, dtype, 0.5, 9.0), f(b_shape, dtype, 0.5, 3.0)], {}, torch.remainder)
            case("where", [tensor(a_shape, "bool"), f(a_shape, dtype), f(b_shape, dtype)], {}, torch.where)
        case("mul", [f(a_shape, "float32"), f(b_shape, "float64")], {}, torch.mul)  # mixed dtypes

    for a_shape, b_shape in (((4,), (4,)), ((4,), (4, 3)), ((2, 4), (4,)), ((2, 4), (4, 3)), ((5, 2, 4), (4, 3)),
                             ((2, 4), (5, 4, 3)), ((2, 1, 2, 4), (3, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,))):
        for dtype in ("float32", "float64"):
            case("matmul", [f(a_shape, dtype), f(b_shape, dtype)], {}, torch.matmul)

    for shape in ((3, 4), (2, 3, 4)):
        for dtype in ("float32", "float64"):
            for dims in ("", "0", "-1", "0,2" if len(shape) == 3 else "0,1"):
                d = [int(v) for v in dims.split(",")] if dims else list(range(len(shape)))
                for keep in ("0", "1"):
                    k = keep == "1"
                    case("sum", [f(shape, dtype)], {"dims": dims, "keepdim": keep}, lambda x, d=d, k=k: torch.sum(x, d, k))
                    case("mean", [f(shape, dtype)], {"dims": dims, "keepdim": keep}, lambda x, d=d, k=k: torch.mean(x, d, k))
                    case("amax", [f(shape, dtype)], {"dims": dims, "keepdim": keep}, lambda x, d=d, k=k: torch.amax(x, d, k))
                    case("logsumexp", [f(shape, dtype)], {"dims": dims, "keepdim": keep},
                         lambda x, d=d, k=k: torch.logsumexp(x, d, k))
                    for correction in ("0", "1"):
                        case("var", [f(shape, dtype)], {"dims": dims, "keepdim": keep, "correction": correction},
                             lambda x, d=d, k=k, c=int(correction): torch.var(x, d, correction=c, keepdim=k))
                        case("std", [f(shape, dtype)], {"dims": dims, "keepdim": keep, "correction": correction},
                             lambda x, d=d, k=k, c=int(correction): torch.std(x, d, correction=c, keepdim=k), expand=False)
            case("prod", [f(shape, dtype, 0.5, 1.5)], {"dims": "1", "keepdim": "0"}, lambda x: torch.prod(x, 1))
            for dim in ("0", "-1"):
                case("max_values", [f(shape, dtype)], {"dim": dim, "keepdim": "1"},
                     lambda x, d=int(dim): torch.max(x, d, True).values)
                case("cumsum", [f(shape, dtype)], {"dim": dim}, lambda x, d=int(dim): torch.cumsum(x, d))
                case("softmax", [f(shape, dtype)], {"dim": dim}, lambda x, d=int(dim): torch.softmax(x, d))
                case("log_softmax", [f(shape, dtype)], {"dim": dim}, lambda x, d=int(dim): torch.log_softmax(x, d))

    names = {"none": "none", "mean": "mean", "sum": "sum"}
    for reduction in names:
        for dtype in ("float32", "float64"):
            target = rng.integers(0, 5, size=(6,)).astype(np.int64)
            target[1] = -100
            case("cross_entropy", [f((6, 5), dtype), target], {"reduction": reduction},
                 lambda x, y, r=reduction: F.cross_entropy(x, y, reduction=r))
            case("cross_entropy", [f((6, 5), dtype), target.clip(0)], {"reduction": reduction, "ignore_index": "2"},
                 lambda x, y, r=reduction: F.cross_entropy(x, y, reduction=r, ignore_index=2))
            spatial = rng.integers(0, 4, size=(2, 3, 3)).astype(np.int64)
            # (PyTorch 1.13's backward of the spatial loss needs a contiguous input.)
            case("nll_loss", [f((2, 4, 3, 3), dtype), spatial], {"reduction": reduction},
                 lambda x, y, r=reduction: F.nll_loss(x, y, reduction=r), layout=False)
            case("nll_loss", [f((4,), dtype), np.array(2, dtype=np.int64)], {"reduction": reduction},
                 lambda x, y, r=reduction: F.nll_loss(x, y, reduction=r))
            case("mse_loss", [f((3, 4), dtype), f((3, 4), dtype)], {"reduction": reduction},
                 lambda x, y, r=reduction: F.mse_loss(x, y, reduction=r))
    for dtype in ("float32", "float64"):
        case("layer_norm", [f((3, 5), dtype), f((5,), dtype), f((5,), dtype)], {"trailing": "1"},
             lambda x, w, b: F.layer_norm(x, (5,), w, b), expand=False)
        case("layer_norm", [f((2, 3, 4), dtype), f((3, 4), dtype), f((3, 4), dtype)], {"trailing": "2"},
             lambda x, w, b: F.layer_norm(x, (3, 4), w, b), expand=False)
        case("layer_norm", [f((4, 6), dtype)], {"trailing": "1"}, lambda x: F.layer_norm(x, (6,)), expand=False)
        indices = np.array([[1, 3, 1], [0, 1, 1]], dtype=np.int64)
        case("embedding", [f((5, 4), dtype), indices], {}, lambda w, i: F.embedding(i, w))
        case("index_select", [f((4, 3), dtype), np.array([2, 0, 2], dtype=np.int64)], {"dim": "0"},
             lambda x, i: torch.index_select(x, 0, i))
        case("index_select", [f((4, 3), dtype), np.array([1, 1], dtype=np.int64)], {"dim": "1"},
             lambda x, i: torch.index_select(x, 1, i))
        gather_index = rng.integers(0, 3, size=(2, 4)).astype(np.int64)
        case("gather", [f((2, 3), dtype), gather_index], {"dim": "1"}, lambda x, i: torch.gather(x, 1, i))
        # src of the index's shape: PyTorch 1.13's backward fails for a larger src, which kael
        # accepts (tests/test_autograd_ops.cpp covers that case).
        case("scatter_add", [f((2, 5), dtype), gather_index[:, :3].copy(), f((2, 3), dtype)], {"dim": "1"},
             lambda x, i, s: x.scatter_add(1, i, s))
        case("masked_fill", [f((3, 4), dtype), tensor((1, 4), "bool")], {"value": "2.5"},
             lambda x, m: x.masked_fill(m, 2.5))
        for diagonal in ("-1", "0", "1"):
            case("tril", [f((3, 4), dtype)], {"diagonal": diagonal}, lambda x, k=int(diagonal): torch.tril(x, k))
            case("triu", [f((2, 3, 4), dtype)], {"diagonal": diagonal}, lambda x, k=int(diagonal): torch.triu(x, k))
        case("cat", [f((2, 3), dtype), f((1, 3), dtype), f((4, 3), dtype)], {"dim": "0"}, lambda *xs: torch.cat(xs, 0))
        case("cat", [f((2, 3), dtype), f((2, 2), dtype)], {"dim": "1"}, lambda *xs: torch.cat(xs, 1))
        case("stack_dim", [f((2, 3), dtype), f((2, 3), dtype)], {"dim": "1"}, lambda *xs: torch.stack(xs, 1))
        case("to", [f((3, 4), dtype)], {"dtype": "float32" if dtype == "float64" else "float64"},
             lambda x, d=dtype: x.to(torch.float32 if d == "float64" else torch.float64))
        # Views, each made contiguous by the driver.
        case("reshape", [f((2, 3, 4), dtype)], {"shape": "4,6"}, lambda x: x.reshape(4, 6).contiguous())
        case("permute", [f((2, 3, 4), dtype)], {"dims": "2,0,1"}, lambda x: x.permute(2, 0, 1).contiguous())
        case("squeeze", [f((2, 1, 3), dtype)], {"dim": "1"}, lambda x: x.squeeze(1).contiguous())
        case("unsqueeze", [f((2, 3), dtype)], {"dim": "-1"}, lambda x: x.unsqueeze(-1).contiguous())
        case("flatten", [f((2, 3, 4), dtype)], {"start": "1", "end": "2"}, lambda x: x.flatten(1, 2).contiguous())
        case("unflatten", [f((2, 6), dtype)], {"dim": "1", "shape": "3,2"}, lambda x: x.unflatten(1, (3, 2)).contiguous())
        case("narrow", [f((4, 5), dtype)], {"dim": "1", "start": "1", "length": "3"}, lambda x: x.narrow(1, 1, 3).contiguous())
        case("select", [f((4, 5), dtype)], {"dim": "0", "index": "-1"}, lambda x: x[-1].contiguous())
        case("slice", [f((6, 5), dtype)], {"dim": "0", "start": "1", "end": "6", "step": "2"},
             lambda x: x[1:6:2].contiguous())
        case("expand", [f((3, 1), dtype)], {"shape": "2,3,4"}, lambda x: x.expand(2, 3, 4).contiguous())
        case("split", [f((5, 4), dtype)], {"size": "2", "dim": "0", "piece": "2"}, lambda x: torch.split(x, 2, 0)[2].contiguous())
        case("chunk", [f((4, 6), dtype)], {"chunks": "3", "dim": "1", "piece": "1"}, lambda x: torch.chunk(x, 3, 1)[1].contiguous())
        # In-place operations on a copy of the first input (the driver clones it first).
        for op in ("add_", "sub_", "mul_", "copy_"):
            case(op, [f((3, 4), dtype), f((4,), dtype)], {}, lambda x, y, op=op: getattr(x.clone(), op)(y))
        case("div_", [f((3, 4), dtype), f((4,), dtype, 0.5, 3.0)], {}, lambda x, y: x.clone().div_(y))
        case("masked_fill_", [f((3, 4), dtype), tensor((3, 4), "bool")], {"value": "0.5"},
             lambda x, m: x.clone().masked_fill_(m, 0.5))

    def inplace_on_leaf(x):
        x.requires_grad_()
        x.add_(1)
        return x

    def backward_twice(x):
        x.requires_grad_()
        loss = (x * x).sum()
        loss.backward()
        loss.backward()
        return x.grad

    def modified_saved_output(x):
        x.requires_grad_()
        y = torch.exp(x)
        y.add_(1)
        y.sum().backward()
        return x.grad

    def non_scalar_backward(x):
        x.requires_grad_()
        (x * 2).backward()
        return x.grad

    for op, fn in (("inplace_on_leaf", inplace_on_leaf), ("backward_twice", backward_twice),
                   ("modified_saved_output", modified_saved_output), ("non_scalar_backward", non_scalar_backward)):
        out.append(Case(op, [tensor((3,), "float64")], {}, fn))
    out += autograd_scenarios()
    return out


def autograd_scenarios():
    """Programs that exercise one rule of autograd each, written once here and once in the
    driver: gradients that must not alias, hooks, nodes that may run twice, writes through
    views (CopySlices), retained gradients. Each returns the gradients it produced, flattened
    and joined, or fails on both sides."""
    def joined(*tensors):
        return torch.cat([x.detach().reshape(-1).to(tensors[0].dtype) for x in tensors])

    def create_graph_gives_own_gradients(a, b):
        loss = (a + b).sum()
        loss.backward(retain_graph=True, create_graph=True)
        loss.backward()
        return joined(a.grad, b.grad)

    def create_graph_copies_the_callers_gradient(x, g):
        g = g.detach()
        x.clone().backward(g, create_graph=True)
        x.clone().backward(g)
        return joined(x.grad, g)

    def hook_changes_the_size(x):
        x.register_hook(lambda g: torch.ones(5, dtype=g.dtype))
        (x * 2).sum().backward()
        return joined(x.grad)

    def second_backward_through_nodes_that_saved_nothing(x):
        s = (x + 2).expand(3, 4).sum()
        s.backward()
        s.backward()
        return joined(x.grad)

    def write_through_a_select(x, w):
        y = x * 3
        y[0].mul_(2)
        (y * w.detach()).sum().backward()
        return joined(x.grad)

    def write_through_a_strided_slice(x, w):
        y = x * 3
        y[:, 0:4:2].add_(w)
        (y * y).sum().backward()
        return joined(x.grad, w.grad)

    def write_into_a_plain_buffer(x):
        buffer = torch.zeros(6, dtype=x.dtype)
        later = buffer[3:6]
        buffer[0:3].copy_(x[0:3] * 2)
        (buffer * torch.arange(6, dtype=x.dtype)).sum().backward(retain_graph=True)
        (later * 5).sum().backward()  # made before the buffer had history: joins it afterwards
        return joined(x.grad)

    def view_follows_its_written_base(x, w):
        y = x * 2
        view = y.T
        y.add_(1)
        (view * w.detach().T).sum().backward()
        return joined(x.grad)

    def write_through_a_view_of_a_leaf(x):
        x[0:2].mul_(2)
        return joined(x)

    def retained_gradient_after_every_hook(x):
        y = x * 3
        # PyTorch 1.13 keeps the value at the point of registration; kael follows PyTorch 2,
        # which keeps the value after every hook. Registering the hook first gives 1.13 the
        # same answer, so this side does; the driver registers retain_grad first.
        y.register_hook(lambda g: g * 10)
        y.retain_grad()
        (y * 2).sum().backward()
        return joined(y.grad, x.grad, torch.tensor([float(x.retains_grad), float(y.retains_grad)]))

    def dropout_of_everything(x):
        F.dropout(x, 1.0, training=True).sum().backward()
        return joined(x.grad)

    def floor_divide_has_no_derivative(x):
        torch.floor_divide(x, 2).sum().backward()
        return joined(x.grad)

    def long_cumsum(x, w):
        (torch.cumsum(x, 0) * w.detach()).sum().backward()
        return joined(x.grad)

    def leaf(shape, dtype="float64", low=-3.0, high=3.0):
        return tensor(shape, dtype, low, high)

    scenarios = [
        ("create_graph_gives_own_gradients", [leaf((3,)), leaf((3,))], create_graph_gives_own_gradients),
        ("create_graph_copies_the_callers_gradient", [leaf((3,)), leaf((3,))], create_graph_copies_the_callers_gradient),
        ("hook_changes_the_size", [leaf((3,))], hook_changes_the_size),
        ("second_backward_through_nodes_that_saved_nothing", [leaf((4,))],
         second_backward_through_nodes_that_saved_nothing),
        ("write_through_a_select", [leaf((3, 4)), leaf((3, 4))], write_through_a_select),
        ("write_through_a_strided_slice", [leaf((2, 4)), leaf((2, 2))], write_through_a_strided_slice),
        ("write_into_a_plain_buffer", [leaf((4,))], write_into_a_plain_buffer),
        ("view_follows_its_written_base", [leaf((3, 2)), leaf((3, 2))], view_follows_its_written_base),
        ("write_through_a_view_of_a_leaf", [leaf((4,))], write_through_a_view_of_a_leaf),
        ("retained_gradient_after_every_hook", [leaf((3,))], retained_gradient_after_every_hook),
        ("dropout_of_everything", [leaf((5,))], dropout_of_everything),
        ("floor_divide_has_no_derivative", [leaf((3,))], floor_divide_has_no_derivative),
        ("long_cumsum", [leaf((20000,), "float32", 0.0, 1.0), leaf((20000,), "float32", 0.0, 1.0)], long_cumsum),
    ]
    out = []
    for name, inputs, program in scenarios:
        def reference(*xs, program=program):
            for x in xs:
                x.requires_grad_()
            return program(*xs)
        out.append(Case(name, inputs, {}, reference))
    return out
#< stage 7


#> stage 8
def optimizer_cases():
    """Trajectories of SGD, Adam and AdamW against torch.optim: the same start, the same
    gradients at every step, every hyperparameter the constructors take."""
    out = []

    def reference(name, options):
        def run(x, grads):
            p = x.clone().requires_grad_()
            opt = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[name]([p], **options)
            trajectory = []
            for g in grads:
                p.grad = g.clone()
                opt.step()
                trajectory.append(p.detach().clone())
            return torch.stack(trajectory)
        return run

    configurations = [
        ("sgd", {"lr": 0.1}),
        ("sgd", {"lr": 0.05, "momentum": 0.9}),
        ("sgd", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
        ("sgd", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1}),
        ("adam", {"lr": 0.01}),
        ("adam", {"lr": 0.02, "betas": (0.8, 0.95), "eps": 1e-6, "weight_decay": 0.05}),
        ("adam", {"lr": 0.01, "amsgrad": True}),
        ("adamw", {"lr": 0.01}),
        ("adamw", {"lr": 0.03, "betas": (0.5, 0.9), "weight_decay": 0.2, "amsgrad": True}),
        ("sgd", {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01, "maximize": True}),
        ("adam", {"lr": 0.01, "weight_decay": 0.05, "maximize": True}),
        ("adamw", {"lr": 0.01, "amsgrad": True, "maximize": True}),
    ]
    for name, options in configurations:
        params = {"optimizer": name}
        for key, value in options.items():
            if key == "betas":
                params["beta1"], params["beta2"] = str(value[0]), str(value[1])
            else:
                params[key] = str(int(value)) if isinstance(value, bool) else str(value)
        for dtype in ("float32", "float64"):
            start = tensor((3, 4), dtype)
            grads = tensor((6, 3, 4), dtype)
            out.append(Case("optimize", [start, grads], params, reference(name, options)))
            if name != "sgd":
                # A parameter with gaps takes Adam's tensor path; one stored transposed, the
                # fused loop in memory order.
                for strided in ("1", "2"):
                    out.append(Case("optimize", [start, grads], {**params, "strided": strided},
                                    reference(name, options)))
    # Refusals on both sides: a negative learning rate, Nesterov without momentum, beta of 1.
    for name, options in (("sgd", {"lr": -0.1}), ("sgd", {"lr": 0.1, "nesterov": True}),
                          ("adam", {"lr": 0.1, "betas": (1.0, 0.999)}), ("adamw", {"lr": 0.1, "eps": -1.0})):
        params = {"optimizer": name}
        for key, value in options.items():
            if key == "betas":
                params["beta1"], params["beta2"] = str(value[0]), str(value[1])
            else:
                params[key] = str(int(value)) if isinstance(value, bool) else str(value)
        out.append(Case("optimize", [tensor((2,), "float64"), tensor((1, 2), "float64")], params, reference(name, options)))
    out.extend(optimizer_state_cases(configurations))
    return out


OPTIMIZERS = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}
# Group keys that choose among PyTorch's implementations of one update, not what it computes.
IMPLEMENTATION_SWITCHES = ("foreach", "capturable", "differentiable", "fused")
FLAG_KEYS = ("nesterov", "amsgrad", "maximize", "decoupled_weight_decay", "cycle_momentum")


def optimizer_state_in_kael_layout(opt, name):
    """torch.optim's state_dict() under kael's flattened keys, "state.<i>.<name>" and
    "param_groups.0.<name>", hyperparameters as float64, bool and int64 tensors. A None
    buffer (SGD without momentum) has no entry. PyTorch 1.13 does not write
    "decoupled_weight_decay", the key PyTorch 2 added to tell AdamW from Adam: it is added."""
    state = opt.state_dict()
    out = {}
    for index, entries in state["state"].items():
        for key, value in entries.items():
            if value is not None:
                out[f"state.{index}.{key}"] = value.detach().clone()
    for g, group in enumerate(state["param_groups"]):
        entries = {k: v for k, v in group.items() if k not in IMPLEMENTATION_SWITCHES and k != "params"}
        if name != "sgd":
            entries["decoupled_weight_decay"] = name == "adamw"
        entries["params"] = group["params"]
        for key, value in entries.items():
            dtype = torch.int64 if key == "params" else torch.bool if key in FLAG_KEYS else torch.float64
            out[f"param_groups.{g}.{key}"] = torch.tensor(value, dtype=dtype)
    return out


def file_as_array(data):
    """A file's bytes as an int64 array, one element per byte, the way the driver reads them."""
    return np.frombuffer(data, dtype=np.uint8).astype(np.int64)


def optimizer_state_cases(configurations):
    """State dicts against torch.optim's: after the same steps, kael's state dict must have
    torch's keys (in kael's layout) and values; and torch's state, written to a safetensors
    file, loaded into a kael optimizer built with its defaults, must go on as torch does."""
    out = []
    for name, options in configurations:
        for dtype in ("float32", "float64"):
            starts = [tensor((3, 4), dtype), tensor((5,), dtype)]
            grads = [tensor((5, 3, 4), dtype), tensor((5, 5), dtype)]
            a, b = (torch.from_numpy(x.copy()).requires_grad_() for x in starts)
            opt = OPTIMIZERS[name]([a, b], **options)
            for step in range(len(grads[0])):  # b gets its first gradient one step late
                a.grad = torch.from_numpy(grads[0][step].copy())
                b.grad = None if step == 0 else torch.from_numpy(grads[1][step].copy())
                opt.step()
            state = optimizer_state_in_kael_layout(opt, name)
            # In the parameters' dtype, so that float32 state is compared at float32's tolerance.
            as_dtype = getattr(torch, dtype)
            expected = torch.cat([v.to(as_dtype).flatten() for v in state.values()])
            params = {**options_as_params({"optimizer": name, **options}), "keys": ",".join(state), "as": dtype}
            out.append(Case("optimizer_state", starts + grads, params, lambda *_, e=expected: e))

            # Three more steps from torch's state, in kael and in torch.
            more = [tensor((3, 3, 4), dtype), tensor((3, 5), dtype)]
            after = [a.detach().numpy().copy(), b.detach().numpy().copy()]
            trajectory = []
            for step in range(3):
                a.grad = torch.from_numpy(more[0][step].copy())
                b.grad = torch.from_numpy(more[1][step].copy())
                opt.step()
                trajectory.append(torch.cat([a.detach().flatten(), b.detach().flatten()]))
            expected = torch.stack(trajectory)
            out.append(Case("optimizer_resume", after + more + [file_as_array(safetensors_bytes(state))],
                            {"optimizer": name}, lambda *_, e=expected: e))
    return out


def options_as_params(options):
    params = {}
    for key, value in options.items():
        if key == "betas":
            params["beta1"], params["beta2"] = str(value[0]), str(value[1])
        else:
            params[key] = str(int(value)) if isinstance(value, bool) else str(value)
    return params


def cosine_with_warmup(warmup, total):
    """Hugging Face's get_cosine_schedule_with_warmup factor, as transformers writes it."""
    import math

    def factor(step):
        if step < warmup:
            return float(step) / float(max(1, warmup))
        progress = float(step - warmup) / float(max(1, total - warmup))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)))
    return factor


SAFETENSORS_DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.bool: "BOOL"}


def safetensors_bytes(tensors):
    """A safetensors file written the way the Python library writes one: an 8-byte header
    length, the JSON header padded with spaces to 8 bytes, the tensors largest elements first."""
    import json
    import struct
    order = sorted(tensors, key=lambda n: (-tensors[n].element_size(), n))
    header, chunks, offset = {}, [], 0
    for name in order:
        data = tensors[name].contiguous().numpy().tobytes()
        header[name] = {"dtype": SAFETENSORS_DTYPES[tensors[name].dtype], "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def make_torch_schedule(opt, spec):
    """The torch.optim.lr_scheduler schedule a spec names: {"kind": ..., settings}."""
    S = torch.optim.lr_scheduler
    kind = spec["kind"]
    if kind == "step":
        return S.StepLR(opt, spec["step_size"], spec["gamma"])
    if kind == "multistep":
        return S.MultiStepLR(opt, spec["milestones"], spec["gamma"])
    if kind == "exponential":
        return S.ExponentialLR(opt, spec["gamma"])
    if kind == "linear":
        return S.LinearLR(opt, spec["start_factor"], spec["end_factor"], spec["total_iters"])
    if kind == "cosine":
        return S.CosineAnnealingLR(opt, spec["T_max"], spec["eta_min"])
    if kind == "cosine_warmup":
        return S.LambdaLR(opt, cosine_with_warmup(spec["warmup"], spec["total"]))
    if kind == "onecycle":
        settings = {k: v for k, v in spec.items() if k not in ("kind", "anneal")}
        return S.OneCycleLR(opt, anneal_strategy=spec.get("anneal", "cos"), **settings)
    children = [make_torch_schedule(opt, child) for child in spec["schedules"]]
    return S.SequentialLR(opt, children, spec["milestones"])


def schedule_params(spec, prefix=""):
    """A spec as the driver's parameters; SequentialLR's schedules go under "s0.", "s1."."""
    out = {}
    for key, value in spec.items():
        if key == "schedules":
            for i, child in enumerate(value):
                out.update(schedule_params(child, f"{prefix}s{i}."))
        elif isinstance(value, (list, tuple)):
            out[prefix + key] = ",".join(str(v) for v in value)
        else:
            out[prefix + key] = str(int(value)) if isinstance(value, bool) else str(value)
    return out


def schedule_state_in_kael_layout(schedule, opt, spec):
    """A torch schedule's state_dict() under kael's keys: its settings as kael keeps them,
    then base_lrs, last_epoch, _step_count and _last_lr; SequentialLR's schedules under
    "_schedulers.<i>.". MultiStepLR's Counter becomes its sorted elements, and OneCycleLR's
    values from the optimizer's param group ("max_lr", ...) join its own."""
    state = schedule.state_dict()
    f64 = lambda v: torch.tensor(v, dtype=torch.float64)  # noqa: E731
    i64 = lambda v: torch.tensor(v, dtype=torch.int64)  # noqa: E731
    kind = spec["kind"]
    if kind == "sequential":
        out = {"_milestones": i64(state["_milestones"]), "last_epoch": i64(state["last_epoch"]),
               "_last_lr": f64(state["_last_lr"])}
        for i, (child, child_spec) in enumerate(zip(schedule._schedulers, spec["schedules"])):
            for key, value in schedule_state_in_kael_layout(child, opt, child_spec).items():
                out[f"_schedulers.{i}.{key}"] = value
        return out
    settings = {
        "step": lambda: {"step_size": i64(state["step_size"]), "gamma": f64(state["gamma"])},
        "multistep": lambda: {"milestones": i64(sorted(state["milestones"].elements())), "gamma": f64(state["gamma"])},
        "exponential": lambda: {"gamma": f64(state["gamma"])},
        "linear": lambda: {"start_factor": f64(state["start_factor"]), "end_factor": f64(state["end_factor"]),
                           "total_iters": i64(state["total_iters"])},
        "cosine": lambda: {"T_max": i64(state["T_max"]), "eta_min": f64(state["eta_min"])},
        "cosine_warmup": lambda: {"warmup_steps": i64(spec["warmup"]), "total_steps": i64(spec["total"])},
    }
    if kind == "onecycle":
        group = opt.param_groups[0]
        out = {"total_steps": i64(state["total_steps"])}
        for k, phase in enumerate(state["_schedule_phases"]):
            out[f"_schedule_phases.{k}.end_step"] = f64(phase["end_step"])
        out["cycle_momentum"] = torch.tensor(state["cycle_momentum"])
        out["max_lr"], out["min_lr"] = f64(group["max_lr"]), f64(group["min_lr"])
        if state["cycle_momentum"]:
            out["max_momentum"], out["base_momentum"] = f64(group["max_momentum"]), f64(group["base_momentum"])
    else:
        out = settings[kind]()
    out.update({"base_lrs": f64(state["base_lrs"]), "last_epoch": i64(state["last_epoch"]),
                "_step_count": i64(state["_step_count"]), "_last_lr": f64(state["_last_lr"])})
    return out


def schedule_optimizer(optimizer, momentum):
    p = torch.zeros(1, requires_grad=True)
    if optimizer == "sgd":
        return torch.optim.SGD([p], lr=0.1, momentum=momentum)
    return torch.optim.Adam([p], lr=0.1)


def momentum_of(opt):
    group = opt.param_groups[0]
    return group["betas"][0] if "betas" in group else group["momentum"]


def schedule_run(opt, schedule, steps, momenta):
    """The rate now and after each of `steps` steps; then, with momenta, the momentum (or
    beta1) at the same points."""
    rates, moments = [opt.param_groups[0]["lr"]], [momentum_of(opt)]
    for _ in range(steps):
        opt.step()
        schedule.step()
        rates.append(opt.param_groups[0]["lr"])
        moments.append(momentum_of(opt))
    return torch.tensor(rates + (moments if momenta else []), dtype=torch.float64)


def schedule_cases():
    """Every schedule step by step against torch.optim.lr_scheduler, at and past its
    boundaries; its state dict after some steps against torch's; and torch's state, loaded
    into a fresh kael schedule, going on as torch's does."""
    import warnings
    warnings.filterwarnings("ignore", module="torch.optim.lr_scheduler")  # step(0), order of calls
    out = []
    linear = lambda start, end, total: {"kind": "linear", "start_factor": start, "end_factor": end,  # noqa: E731
                                        "total_iters": total}
    cosine = lambda t_max, eta_min: {"kind": "cosine", "T_max": t_max, "eta_min": eta_min}  # noqa: E731
    onecycle = lambda **settings: {"kind": "onecycle", "max_lr": 1.0, **settings}  # noqa: E731
    # (spec, steps, optimizer, momentum, compare momenta)
    runs = [
        ({"kind": "step", "step_size": 3, "gamma": 0.5}, 30, "sgd", 0.0, False),
        ({"kind": "step", "step_size": 1, "gamma": 0.9}, 30, "sgd", 0.0, False),
        ({"kind": "step", "step_size": 7, "gamma": 0.1}, 30, "sgd", 0.0, False),
        ({"kind": "cosine_warmup", "warmup": 5, "total": 30}, 30, "sgd", 0.0, False),
        ({"kind": "cosine_warmup", "warmup": 0, "total": 12}, 12, "sgd", 0.0, False),
        ({"kind": "cosine_warmup", "warmup": 12, "total": 12}, 12, "sgd", 0.0, False),
        ({"kind": "cosine_warmup", "warmup": 1, "total": 25}, 25, "sgd", 0.0, False),
        ({"kind": "multistep", "milestones": [3, 7, 7, 12], "gamma": 0.5}, 20, "sgd", 0.0, False),
        ({"kind": "multistep", "milestones": [10, 2], "gamma": 0.1}, 15, "sgd", 0.0, False),
        ({"kind": "multistep", "milestones": [0, 5], "gamma": 0.3}, 8, "sgd", 0.0, False),
        ({"kind": "exponential", "gamma": 0.9}, 30, "sgd", 0.0, False),
        ({"kind": "exponential", "gamma": 1.05}, 20, "sgd", 0.0, False),
        (linear(0.25, 1.0, 4), 10, "sgd", 0.0, False),
        (linear(1.0 / 3, 1.0, 5), 10, "sgd", 0.0, False),
        (linear(1.0, 0.1, 6), 10, "sgd", 0.0, False),
        (linear(0.5, 0.5, 3), 6, "sgd", 0.0, False),
        (linear(0.1, 1.0, 1), 4, "sgd", 0.0, False),
        (linear(0.0, 1.0, 4), 4, "sgd", 0.0, False),    # refused: torch divides by zero at step 1
        (linear(1.5, 1.0, 4), 4, "sgd", 0.0, False),    # refused by both
        (cosine(10, 0), 30, "sgd", 0.0, False),         # three times T_max: down, up, down
        (cosine(7, 0.01), 21, "sgd", 0.0, False),
        (cosine(4, 0.05), 12, "sgd", 0.0, False),
        (cosine(1, 0.02), 5, "sgd", 0.0, False),
        (cosine(0, 0.0), 2, "sgd", 0.0, False),         # refused: torch divides by zero at step 1
        (onecycle(total_steps=20), 20, "sgd", 0.9, True),  # step total_steps is allowed
        (onecycle(total_steps=20), 21, "sgd", 0.9, True),  # one past: refused by both
        (onecycle(total_steps=20, anneal="linear"), 19, "sgd", 0.0, True),
        (onecycle(total_steps=15, three_phase=True), 15, "sgd", 0.9, True),
        (onecycle(total_steps=15, three_phase=True, anneal="linear"), 14, "sgd", 0.9, True),
        (onecycle(total_steps=12, max_momentum=0.9, base_momentum=0.8), 12, "adam", 0.0, True),  # beta1
        (onecycle(total_steps=12, cycle_momentum=False), 12, "adam", 0.0, True),
        (onecycle(epochs=4, steps_per_epoch=5, pct_start=0.25, div_factor=10.0, final_div_factor=100.0), 20, "sgd",
         0.5, True),
        (onecycle(total_steps=10, pct_start=0.0), 10, "sgd", 0.9, True),
        (onecycle(total_steps=10, pct_start=1.0), 10, "sgd", 0.9, True),  # its last phase is empty: refused at 10
        (onecycle(total_steps=20, pct_start=0.05), 3, "sgd", 0.9, True),  # its first phase is empty: refused
        (onecycle(total_steps=10, pct_start=1.5), 3, "sgd", 0.9, True),   # refused by both
        (onecycle(total_steps=0), 3, "sgd", 0.9, True),                   # refused by both
        ({"kind": "sequential", "schedules": [linear(0.1, 1.0, 5), cosine(15, 0.001)], "milestones": [5]}, 35, "adam",
         0.0, False),
        ({"kind": "sequential", "schedules": [linear(0.5, 1.0, 3), {"kind": "exponential", "gamma": 0.8},
                                              cosine(6, 0.0)], "milestones": [3, 8]}, 20, "sgd", 0.0, False),
        ({"kind": "sequential", "schedules": [{"kind": "exponential", "gamma": 0.5},
                                              {"kind": "cosine_warmup", "warmup": 3, "total": 10}],
          "milestones": [4]}, 14, "sgd", 0.0, False),  # to its total_steps: past it, kael's stays at 0
        ({"kind": "sequential", "schedules": [linear(0.2, 1.0, 4), {"kind": "step", "step_size": 2, "gamma": 0.5},
                                              cosine(5, 0.0)], "milestones": [3, 3]}, 10, "sgd", 0.0, False),
        ({"kind": "sequential", "schedules": [linear(0.2, 1.0, 4), cosine(5, 0.01)], "milestones": [0]}, 8, "sgd",
         0.0, False),
        ({"kind": "sequential", "schedules": [onecycle(total_steps=8), cosine(6, 0.0)], "milestones": [6]}, 12,
         "sgd", 0.9, True),
        ({"kind": "sequential", "schedules": [linear(0.2, 1.0, 4), cosine(5, 0.01)], "milestones": [2, 4]}, 3,
         "sgd", 0.0, False),  # refused by both: one milestone too many
    ]
    for spec, steps, optimizer, momentum, momenta in runs:
        def run(_, spec=spec, steps=steps, optimizer=optimizer, momentum=momentum, momenta=momenta):
            opt = schedule_optimizer(optimizer, momentum)
            return schedule_run(opt, make_torch_schedule(opt, spec), steps, momenta)
        params = {**schedule_params(spec), "steps": str(steps), "optimizer": optimizer, "momentum": str(momentum),
                  "momenta": str(int(momenta))}
        out.append(Case("schedule", [np.zeros(1)], params, run))

    def torch_refuses(spec, steps, optimizer, momentum):
        try:
            opt = schedule_optimizer(optimizer, momentum)
            schedule_run(opt, make_torch_schedule(opt, spec), steps, False)
            return False
        except (ValueError, ZeroDivisionError):
            return True

    # The state after 7 steps, and up to 15 more steps from torch's state, for the runs of
    # 12 steps or more that torch completes.
    for spec, steps, optimizer, momentum, momenta in runs:
        if steps < 12 or torch_refuses(spec, steps, optimizer, momentum):
            continue
        opt = schedule_optimizer(optimizer, momentum)
        schedule = make_torch_schedule(opt, spec)
        for _ in range(7):
            opt.step()
            schedule.step()
        state = schedule_state_in_kael_layout(schedule, opt, spec)
        params = {**schedule_params(spec), "optimizer": optimizer, "momentum": str(momentum)}
        expected = torch.cat([v.to(torch.float64).flatten() for v in state.values()])
        out.append(Case("schedule_state", [np.zeros(1)], {**params, "steps": "7", "keys": ",".join(state)},
                        lambda *_, e=expected: e))
        more = min(15, steps - 7)
        expected = schedule_run(opt, schedule, more, momenta)
        out.append(Case("schedule_resume", [file_as_array(safetensors_bytes(state))],
                        {**params, "steps": str(more), "momenta": str(int(momenta))}, lambda *_, e=expected: e))
    return out


def training_cases():
    """Chapter 07 as a whole: schedules, gradient clipping, whole training runs of a small
    MLP loaded through load_state_dict, and safetensors files written the Python way."""
    out = schedule_cases()

    # clip_grad_norm_: the clipped gradients, then the total norm, as one vector.
    def clip_reference(max_norm, norm_type):
        def run(*grads):
            params = [torch.zeros_like(g).requires_grad_() for g in grads]
            for p, g in zip(params, grads):
                p.grad = g.clone()
            total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
            return torch.cat([p.grad.flatten() for p in params] + [total.reshape(1).to(grads[0].dtype)])
        return run

    for dtype in ("float32", "float64"):
        grads = [tensor((3, 4), dtype), tensor((5,), dtype), tensor((2, 2, 2), dtype)]
        for max_norm, norm_type in ((1.0, 2.0), (100.0, 2.0), (0.5, 1.0), (2.0, 3.0), (0.1, float("inf")), (0.0, 2.0)):
            out.append(Case("clip_grad_norm", grads, {"max_norm": str(max_norm), "norm_type": str(norm_type)},
                            clip_reference(max_norm, norm_type)))

    # Whole training runs: a 5-7-3 MLP loaded with the same weights on both sides through
    # load_state_dict, trained for 8 steps; the result is the 8 losses, then every final
    # parameter in state_dict order.
    def train_reference(options, activation, clip):
        def run(x, y, w1, b1, w2, b2):
            model = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.GELU() if activation == "gelu" else torch.nn.ReLU(),
                                        torch.nn.Linear(7, 3)).to(x.dtype)
            model.load_state_dict({"0.weight": w1, "0.bias": b1, "2.weight": w2, "2.bias": b2})
            kind = options["optimizer"]
            settings = {k: v for k, v in options.items() if k != "optimizer"}
            opt = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[kind](model.parameters(), **settings)
            losses = []
            for _ in range(8):
                opt.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                if clip:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
                opt.step()
                losses.append(loss.detach().reshape(1))
            return torch.cat(losses + [p.detach().flatten() for p in model.state_dict().values()])
        return run

    for options in ({"optimizer": "sgd", "lr": 0.5, "momentum": 0.9},
                    {"optimizer": "adam", "lr": 0.05},
                    {"optimizer": "adamw", "lr": 0.05, "weight_decay": 0.1, "amsgrad": True}):
        for dtype in ("float32", "float64"):
            for activation, clip in (("relu", 0.0), ("gelu", 0.5)):
                inputs = [tensor((16, 5), dtype), tensor((16,), "int64", 0, 2), tensor((7, 5), dtype, -0.5, 0.5),
                          tensor((7,), dtype, -0.5, 0.5), tensor((3, 7), dtype, -0.5, 0.5), tensor((3,), dtype, -0.5, 0.5)]
                params = {**options_as_params(options), "activation": activation, "clip": str(clip)}
                out.append(Case("train_mlp", inputs, params, train_reference(options, activation, clip)))

    # Safetensors files written by Python, read by kael: the bytes travel as an int64 array.
    stored = {"weight": torch.from_numpy(tensor((2, 3), "float32")), "scale": torch.tensor(2.5, dtype=torch.float64),
              "positions": torch.arange(4), "mask": torch.tensor([[True, False], [False, True]]),
              "empty": torch.zeros((0, 3))}
    good = safetensors_bytes(stored)
    as_array = lambda data: np.frombuffer(data, dtype=np.uint8).astype(np.int64)  # noqa: E731
    for name, value in stored.items():
        out.append(Case("safetensors", [as_array(good)], {"name": name}, lambda _, value=value: value))

    def refused(_):
        raise ValueError("malformed file")
    header_length = int.from_bytes(good[:8], "little")
    too_long = (header_length + len(good)).to_bytes(8, "little") + good[8:]
    for bad in (good[:-1], good + b"\0", too_long, good[:8 + header_length]):
        out.append(Case("safetensors", [as_array(bad)], {"name": "weight"}, refused))
    return out


#< stage 8
def write_tensor(path, array):
    array = np.ascontiguousarray(array)
    name = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64", np.dtype(np.int64): "int64",
            np.dtype(np.bool_): "bool"}[array.dtype]
    with open(path, "wb") as f:
        f.write((" ".join([name, str(array.ndim)] + [str(s) for s in array.shape]) + "\n").encode())
        f.write(array.tobytes())


def read_tensor(path):
    with open(path, "rb") as f:
        header = f.readline().decode().split()
        dtype, ndim = header[0], int(header[1])
        shape = tuple(int(s) for s in header[2:2 + ndim])
        return np.frombuffer(f.read(), dtype=DTYPES[dtype][0]).reshape(shape), dtype


def tolerance(dtype):
    return (1e-5, 1e-5) if dtype == "float32" else (1e-10, 1e-12)


def same_values(got, got_dtype, expected, where, tolerances):
    """Prints a mismatch line and returns False unless kael's array matches torch's."""
    want = expected.detach().numpy()
    want_dtype = TORCH_NAMES[expected.dtype]
    if got_dtype != want_dtype or got.shape != want.shape:
        print(f"MISMATCH {where}: kael gave {got_dtype} {got.shape}, torch {want_dtype} {want.shape}")
        return False
    if want_dtype.startswith("float"):
        rtol, atol = tolerances(want_dtype)
        ok = np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        ok = np.array_equal(got, want)
    if not ok:
        bad = np.argwhere(~np.isclose(got, want, equal_nan=True)) if want_dtype.startswith("float") else np.argwhere(got != want)
        first = tuple(bad[0]) if len(bad) else ()
        print(f"MISMATCH {where}: at {first} kael {got[first] if first else got} torch {want[first] if first else want}")
    return ok


#> stage 7
def gradient_tolerance(dtype):
    return (1e-4, 1e-5) if dtype == "float32" else (1e-9, 1e-10)


def same_gradients(case, index, inputs, result, scratch, where):
    """Compares kael's gradients of sum(result * weights) with torch.autograd's: which inputs
    get one, their dtypes, shapes and values."""
    nograd = (scratch / f"c{index}.nograd").exists()
    if not result.requires_grad:
        if not nograd:
            print(f"MISMATCH {where}: kael's result requires grad, torch's does not")
        return nograd
    if nograd:
        print(f"MISMATCH {where}: torch's result requires grad, kael's does not")
        return False
    weights = torch.sin(torch.arange(1, result.numel() + 1, dtype=torch.float64)).reshape(result.shape).to(result.dtype)
    leaves = [i for i, x in enumerate(inputs) if x.dtype.is_floating_point]
    try:
        grads = torch.autograd.grad(result, [inputs[i] for i in leaves], weights, allow_unused=True)
    except RuntimeError as error:
        print(f"MISMATCH {where}: torch's backward failed ({str(error).splitlines()[0]}), kael's did not")
        return False
    ok = True
    for i, want in zip(leaves, grads):
        none_file = scratch / f"c{index}.g{i}.none"
        if want is None or none_file.exists():
            if (want is None) != none_file.exists():
                print(f"MISMATCH {where}: gradient of input {i}: kael {'none' if none_file.exists() else 'a tensor'}, "
                      f"torch {'none' if want is None else 'a tensor'}")
                ok = False
            continue
        got, got_dtype = read_tensor(scratch / f"c{index}.g{i}.bin")
        ok = same_values(got, got_dtype, want, f"{where} gradient of input {i}", gradient_tolerance) and ok
    return ok
#< stage 7


def main():
    build = pathlib.Path(sys.argv[1])
    driver = build / "tests" / "torch_reference_driver"
    all_cases = cases()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        lines = []
        for index, case in enumerate(all_cases):
            files = []
            for j, array in enumerate(case.inputs):
                path = scratch / f"c{index}_{j}.in"
                write_tensor(path, np.asarray(array))
                files.append(str(path))
            params = " ".join(f"{k}={v}" for k, v in case.params.items())
            lines.append(f"c{index} {case.op} {params} : {' '.join(files)}")
        (scratch / "cases.txt").write_text("\n".join(lines) + "\n")
        subprocess.run([str(driver), str(scratch / "cases.txt"), str(scratch)], check=True)
        mismatches = 0
        compared = 0
#> stage 7
        gradients = 0
#< stage 7
        for index, case in enumerate(all_cases):
            inputs = [t(np.asarray(a)) for a in case.inputs]
#> stage 7
            if isinstance(case, GradCase):
                # Leaves after the views, as the driver makes them.
                inputs = [apply_recipe(t(np.asarray(a)), view) for a, view in zip(case.inputs, case.views)]
                for x in inputs:
                    if x.dtype.is_floating_point:
                        x.requires_grad_()
#< stage 7
            try:
                expected = case.reference(*inputs)
                torch_error = None if expected is not None else "skip"
            except Exception as error:  # noqa: BLE001 - any refusal counts
                expected, torch_error = None, str(error).split("\n")[0]
            if torch_error == "skip":
                continue
            kael_error_file = scratch / f"c{index}.error"
            where = f"{case.op} {case.params} inputs {[(np.asarray(a).dtype.name, np.asarray(a).shape) for a in case.inputs]}"
            compared += 1
            if kael_error_file.exists():
                if torch_error is None:
                    mismatches += 1
                    print(f"MISMATCH {where}: kael threw ({kael_error_file.read_text()[:160]}), torch returned a result")
                continue
            if torch_error is not None:
                mismatches += 1
                print(f"MISMATCH {where}: torch refused ({torch_error[:120]}), kael returned a result")
                continue
            got, got_dtype = read_tensor(scratch / f"c{index}.bin")
            if not same_values(got, got_dtype, expected, where, tolerance):
                mismatches += 1
                continue
#> stage 7
            if isinstance(case, GradCase):
                gradients += 1
                mismatches += 0 if same_gradients(case, index, inputs, expected, scratch, where) else 1
#< stage 7
#> until 7
#|         print(f"check_against_torch: {compared} cases compared with PyTorch {torch.__version__}, {mismatches} mismatches")
#< until 7
#> stage 7
        print(f"check_against_torch: {compared} cases compared with PyTorch {torch.__version__} ({gradients} of them "
              f"with gradients), {mismatches} mismatches")
#< stage 7
        return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
