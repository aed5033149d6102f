// t[index] and t[index] = value, as PyTorch reads them (chapter 10).
//
// Basic indexing (integers, slices with steps, None, ...) only moves through the tensor's
// geometry: an integer selects, a slice slices, None inserts a dimension of size 1, and
// `...` stands for as many full slices as the other items leave. The result is a view that
// shares storage, so writing through it writes the original. An index tensor (int64, or a
// Bool mask over one or more dimensions) is advanced indexing: it picks elements, so the
// result is a copy made with index_select. kael takes one index tensor per expression.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "arguments.h"
#include "bindings.h"
#include "casters.h"

namespace kael::python {
namespace py = pybind11;
namespace {

// The tensor an index tensor or a list of integers or bools stands for.
std::optional<Tensor> index_tensor(const py::handle item) {
    if (py::isinstance<PyTensor>(item)) {
        return item.cast<PyTensor&>().tensor;
    }
    if (py::isinstance<py::list>(item)) {
        return py::module_::import("kael").attr("tensor")(item).cast<PyTensor&>().tensor;
    }
    return std::nullopt;
}

// How many dimensions of the indexed tensor an item consumes.
std::int64_t consumed(const py::handle item) {
    if (item.is_none() || item.ptr() == Py_Ellipsis) {
        return 0;
    }
    if (const std::optional<Tensor> index = index_tensor(item); index && index->dtype() == DType::Bool) {
        return std::max<std::int64_t>(index->dim(), 1);
    }
    return 1;
}

// The result of the basic items, and where the one index tensor (if any) applies.
struct Indexed {
    Tensor view;
    std::optional<Tensor> index;
    std::int64_t index_dim = 0;
};

Indexed apply_basic(const Tensor& t, const py::object& index) {
    const py::tuple items = py::isinstance<py::tuple>(index) ? py::reinterpret_borrow<py::tuple>(index)
                                                             : py::make_tuple(index);
    std::int64_t used = 0;
    bool ellipsis = false;
    for (const py::handle item : items) {
        used += consumed(item);
        if (item.ptr() == Py_Ellipsis) {
            KAEL_CHECK_INDEX(!ellipsis, "an index can only have a single ellipsis ('...')");
            ellipsis = true;
        }
    }
    KAEL_CHECK_INDEX(used <= t.dim(), "too many indices for tensor of dimension " << t.dim() << " (got " << used
                                                                                   << ")");
    Indexed result{t, std::nullopt, 0};
    std::int64_t dim = 0;  // the dimension of result.view the next item applies to
    for (const py::handle item : items) {
        if (item.ptr() == Py_Ellipsis) {
            dim += t.dim() - used;
        } else if (item.is_none()) {
            result.view = result.view.unsqueeze(dim);
            ++dim;
        } else if (PySlice_Check(item.ptr())) {
            Py_ssize_t start = 0;
            Py_ssize_t stop = 0;
            Py_ssize_t step = 0;
            if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0) {
                throw py::error_already_set();
            }
            KAEL_CHECK_VALUE(step > 0, "slice step must be positive, got " << step);
            const auto slice = py::reinterpret_borrow<py::slice>(item);
            const auto bound = [](const py::object& value) -> std::optional<std::int64_t> {
                return value.is_none() ? std::nullopt : std::optional(value.cast<std::int64_t>());
            };
            result.view = result.view.slice(dim, bound(slice.attr("start")), bound(slice.attr("stop")), step);
            ++dim;
        } else if (const std::optional<Tensor> tensor = index_tensor(item)) {
            KAEL_CHECK_INDEX(!result.index, "kael supports one index tensor per indexing expression");
            KAEL_CHECK_INDEX(tensor->dtype() == DType::I64 || tensor->dtype() == DType::Bool,
                             "tensors used as indices must be int64 or bool, got " << tensor->dtype());
            result.index = tensor;
            result.index_dim = dim;
            dim += consumed(item);
        } else if (PyIndex_Check(item.ptr()) && !PyBool_Check(item.ptr())) {
            result.view = result.view.select(dim, item.cast<std::int64_t>());
        } else {
            throw IndexError("only integers, slices, None, ..., and int64 or bool tensors are valid indices, got " +
                             std::string(py::str(py::type::of(item).attr("__name__"))));
        }
    }
    return result;
}

// The positions of a Bool mask over dimensions [d, d + mask.dim()) of `t`, flattened: the
// mask must have exactly those sizes. Computed on the host, where the mask is read anyway.
Tensor mask_positions(const Tensor& t, std::int64_t d, const Tensor& mask) {
    const std::int64_t k = std::max<std::int64_t>(mask.dim(), 1);
    const Shape covered(t.shape().begin() + d, t.shape().begin() + d + k);
    KAEL_CHECK_INDEX(mask.dim() == 0 || mask.shape() == covered,
                     "the shape of the mask " << to_string(mask.shape()) << " does not match the shape "
                                              << to_string(covered) << " of the indexed dimensions");
    const Tensor flags = mask.reshape({-1}).cpu().contiguous();
    const std::uint8_t* flag = flags.data_ptr<std::uint8_t>();
    std::vector<std::int64_t> positions;
    for (std::int64_t i = 0; i < flags.numel(); ++i) {
        if (flag[i] != 0) {
            positions.push_back(i);
        }
    }
    return from_vector(positions, {static_cast<std::int64_t>(positions.size())}).to(t.device());
}

// Negative entries of an int64 index count from the end of the dimension, as in PyTorch.
Tensor wrapped(const Tensor& index, std::int64_t size) {
    return kael::where(kael::lt(index, 0), kael::add(index, size), index);
}

Tensor get(const Tensor& t, const py::object& index) {
    // The most common index, one integer, skips the general walk.
    if (PyLong_CheckExact(index.ptr()) != 0) {
        return t.select(0, index.cast<std::int64_t>());
    }
    Indexed indexed = apply_basic(t, index);
    if (!indexed.index) {
        return indexed.view;
    }
    const Tensor& view = indexed.view;
    const std::int64_t d = indexed.index_dim;
    if (indexed.index->dtype() == DType::Bool) {
        const std::int64_t k = std::max<std::int64_t>(indexed.index->dim(), 1);
        const Tensor rows = indexed.index->dim() == 0 ? view.unsqueeze(d) : view.flatten(d, d + k - 1);
        return kael::index_select(rows, d, mask_positions(view, d, indexed.index->dim() == 0 ? indexed.index->reshape({1})
                                                                                               : *indexed.index));
    }
    KAEL_CHECK_INDEX(d < view.dim(), "an index tensor needs a dimension to index");
    const Tensor& index_values = *indexed.index;
    const Tensor picked = kael::index_select(view, d, wrapped(index_values.reshape({-1}), view.size(d)));
    Shape shape(view.shape().begin(), view.shape().begin() + d);
    shape.insert(shape.end(), index_values.shape().begin(), index_values.shape().end());
    shape.insert(shape.end(), view.shape().begin() + d + 1, view.shape().end());
    return picked.reshape(shape);
}

// Writes `value` (a number or a tensor broadcast to the target) into `target`.
void assign(Tensor target, const py::object& value) {
    if (is_number(value)) {
        target.fill_(to_scalar(value));
    } else {
        target.copy_(value.cast<PyTensor&>().tensor);
    }
}

void set(const Tensor& t, const py::object& index, const py::object& value) {
    KAEL_CHECK_TYPE(is_number(value) || py::isinstance<PyTensor>(value),
                    "can only assign a number or a kael.Tensor, got "
                        << std::string(py::str(py::type::of(value).attr("__name__"))));
    Indexed indexed = apply_basic(t, index);
    if (!indexed.index) {
        assign(indexed.view, value);
        return;
    }
    const Tensor& view = indexed.view;
    const std::int64_t d = indexed.index_dim;
    const Tensor& index_values = *indexed.index;
    if (index_values.dtype() == DType::Bool) {
        // A mask over the trailing dimensions: every chosen element gets the value.
        KAEL_CHECK_INDEX(d + index_values.dim() == view.dim(),
                         "assignment through a bool mask needs the mask to cover the last dimensions of the tensor");
        KAEL_CHECK_INDEX(index_values.shape() == Shape(view.shape().begin() + d, view.shape().end()),
                         "the shape of the mask " << to_string(index_values.shape()) << " does not match the shape "
                                                  << to_string(Shape(view.shape().begin() + d, view.shape().end()))
                                                  << " of the indexed dimensions");
        if (is_number(value)) {
            Tensor target = view;
            target.masked_fill_(index_values, to_scalar(value));
            return;
        }
        Tensor target = view;
        target.copy_(kael::where(index_values, value.cast<PyTensor&>().tensor, view));
        return;
    }
    // An int64 index along d: each chosen slice gets its part of the value.
    KAEL_CHECK_INDEX(index_values.dim() <= 1, "assignment through an index tensor takes a 1-d index");
    const Tensor positions = wrapped(index_values.reshape({-1}), view.size(d)).cpu().contiguous();
    const std::int64_t* position = positions.data_ptr<std::int64_t>();
    Shape selected = view.shape();
    selected[static_cast<std::size_t>(d)] = positions.numel();
    const std::optional<Tensor> source =
        is_number(value) ? std::nullopt : std::optional(value.cast<PyTensor&>().tensor.expand(selected));
    for (std::int64_t i = 0; i < positions.numel(); ++i) {
        Tensor slot = view.select(d, position[i]);
        if (source) {
            slot.copy_(source->select(d, i));
        } else {
            slot.fill_(to_scalar(value));
        }
    }
}

}  // namespace

void bind_indexing(py::class_<PyTensor>& tensor) {
    tensor.def("__getitem__", &get, py::arg("index"))
        .def("__setitem__", &set, py::arg("index"), py::arg("value"));
}

}  // namespace kael::python
