// t[index] and t[index] = value, as PyTorch reads them (chapter 10).
//
// Basic indexing (integers, slices with steps, None, ...) only moves through the tensor's
// geometry: an integer selects, a slice slices, None inserts a dimension of size 1, and
// `...` stands for as many full slices as the other items leave. The result is a view that
// shares storage, so writing through it writes the original.
//
// Index tensors (int64, or Bool masks, which stand for the int64 positions of their true
// elements, one index per dimension they cover) are advanced indexing: they pick elements,
// so the result is a copy. All of them broadcast to one shape B, and element b of the
// result takes, on each indexed dimension, the b-th entry of its index. B's dimensions
// replace the indexed ones where those are next to each other, and go first otherwise
// (PyTorch's and NumPy's rule). The picking itself is one index_select over the indexed
// dimensions flattened into one, so autograd sees ordinary operations.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "arguments.h"
#include "bindings.h"
#include "casters.h"
#include "kael/broadcast.h"

namespace kael::python {
namespace py = pybind11;
namespace {

// The tensor an index tensor, a list of integers or bools, or a bool stands for (True and
// False index as 0-d masks do, as in PyTorch).
std::optional<Tensor> index_tensor(const py::handle item) {
    if (py::isinstance<PyTensor>(item)) {
        return item.cast<PyTensor&>().tensor;
    }
    if (py::isinstance<py::list>(item) || PyBool_Check(item.ptr())) {
        return py::module_::import("kael").attr("tensor")(item).cast<PyTensor&>().tensor;
    }
    return std::nullopt;
}

// How many dimensions of the indexed tensor an item consumes: a mask covers as many as it
// has (a 0-d mask none: it adds a dimension of size 1, as None does).
std::int64_t consumed(const py::handle item) {
    if (item.is_none() || item.ptr() == Py_Ellipsis) {
        return 0;
    }
    if (const std::optional<Tensor> index = index_tensor(item); index && index->dtype() == DType::Bool) {
        return index->dim();
    }
    return 1;
}

// One dimension of the view picked by an index tensor.
struct AdvancedIndex {
    std::int64_t dim;
    Tensor index;  // int64, on the host
};

// The view the basic items leave, and the index tensors that pick from it.
struct Indexed {
    Tensor view;
    std::vector<AdvancedIndex> advanced;
    std::optional<Tensor> sole_mask;  // the one Bool mask, when it is the only index tensor
};

// The positions of the true elements of `mask`, one int64 index per dimension it covers.
std::vector<Tensor> mask_positions(const Tensor& mask) {
    const Tensor flags = mask.cpu().contiguous();
    const std::uint8_t* flag = flags.data_ptr<std::uint8_t>();
    const auto dims = static_cast<std::size_t>(mask.dim());
    std::vector<std::vector<std::int64_t>> positions(dims);
    std::vector<std::int64_t> at(dims, 0);  // the coordinates of element i, kept as i counts
    for (std::int64_t i = 0; i < flags.numel(); ++i) {
        if (flag[i] != 0) {
            for (std::size_t d = 0; d < dims; ++d) {
                positions[d].push_back(at[d]);
            }
        }
        for (std::size_t d = dims; d-- > 0;) {
            if (++at[d] < mask.size(static_cast<std::int64_t>(d))) {
                break;
            }
            at[d] = 0;
        }
    }
    std::vector<Tensor> result;
    for (const std::vector<std::int64_t>& p : positions) {
        result.push_back(from_vector(p, {static_cast<std::int64_t>(p.size())}));
    }
    return result;
}

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
    Indexed result{t, {}, std::nullopt};
    std::int64_t masks = 0;
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
            KAEL_CHECK_INDEX(tensor->dtype() == DType::I64 || tensor->dtype() == DType::Bool,
                             "tensors used as indices must be int64 or bool, got " << tensor->dtype());
            if (tensor->dtype() == DType::I64) {
                result.advanced.push_back({dim, tensor->cpu()});
                ++dim;
                continue;
            }
            // A mask covers the next mask.dim() dimensions and must have their sizes; a 0-d
            // mask first adds a dimension of size 1 for itself.
            Tensor mask = *tensor;
            if (mask.dim() == 0) {
                result.view = result.view.unsqueeze(dim);
                mask = mask.reshape({1});
            }
            const Shape covered(result.view.shape().begin() + dim, result.view.shape().begin() + dim + mask.dim());
            KAEL_CHECK_INDEX(mask.shape() == covered, "the shape of the mask " << to_string(mask.shape())
                                                          << " does not match the shape " << to_string(covered)
                                                          << " of the indexed dimensions");
            for (Tensor& positions : mask_positions(mask)) {
                result.advanced.push_back({dim, std::move(positions)});
                ++dim;
            }
            result.sole_mask = mask;
            ++masks;
        } else if (PyIndex_Check(item.ptr()) && !PyBool_Check(item.ptr())) {
            result.view = result.view.select(dim, item.cast<std::int64_t>());
        } else {
            throw IndexError("only integers, slices, None, ..., and int64 or bool tensors are valid indices, got " +
                             std::string(py::str(py::type::of(item).attr("__name__"))));
        }
    }
    if (masks != 1 || result.advanced.size() != static_cast<std::size_t>(result.sole_mask->dim())) {
        result.sole_mask.reset();
    }
    return result;
}

// Where the elements picked by the index tensors are: B, the shape they broadcast to, and
// for each element of B its offset into the indexed dimensions flattened (row-major).
struct Picks {
    Shape shape;                        // B
    std::vector<std::int64_t> offsets;  // numel(B) of them
    bool adjacent = true;               // the indexed dimensions are next to each other
};

Picks picks(const Indexed& indexed) {
    std::vector<Shape> shapes;
    for (const AdvancedIndex& a : indexed.advanced) {
        shapes.push_back(a.index.shape());
    }
    Picks result;
    try {
        result.shape = broadcast_shapes(shapes);
    } catch (const Error&) {
        std::string listed;
        for (const Shape& shape : shapes) {
            listed += (listed.empty() ? "" : ", ") + to_string(shape);
        }
        throw IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " + listed);
    }
    result.offsets.assign(static_cast<std::size_t>(numel(result.shape)), 0);
    for (std::size_t j = 0; j < indexed.advanced.size(); ++j) {
        const AdvancedIndex& a = indexed.advanced[j];
        result.adjacent = result.adjacent && (j == 0 || a.dim == indexed.advanced[j - 1].dim + 1);
        const std::int64_t size = indexed.view.size(a.dim);
        const Tensor entries = a.index.expand(result.shape).contiguous();
        const std::int64_t* entry = entries.data_ptr<std::int64_t>();
        for (std::size_t b = 0; b < result.offsets.size(); ++b) {
            std::int64_t i = entry[b];
            KAEL_CHECK_INDEX(i >= -size && i < size,
                             "index " << i << " is out of bounds for dimension " << a.dim << " with size " << size);
            i = i < 0 ? i + size : i;  // a negative index counts from the end, as in PyTorch
            result.offsets[b] = result.offsets[b] * size + i;  // Horner: dims in order
        }
    }
    return result;
}

// The dimensions of the view that no index tensor picks, in order.
std::vector<std::int64_t> other_dims(const Indexed& indexed) {
    std::vector<std::int64_t> others;
    for (std::int64_t d = 0, j = 0; d < indexed.view.dim(); ++d) {
        if (static_cast<std::size_t>(j) < indexed.advanced.size() && indexed.advanced[static_cast<std::size_t>(j)].dim == d) {
            ++j;
        } else {
            others.push_back(d);
        }
    }
    return others;
}

// Where B's dimensions go among the others in t[index]: where the indexed dimensions were,
// when those are next to each other (after the other dimensions before them), else first.
std::int64_t b_position(const Indexed& indexed, const Picks& picked) {
    return picked.adjacent ? indexed.advanced.front().dim : 0;
}

// The order that moves B's dimensions, first in `t`, to `position`.
std::vector<std::int64_t> b_moved_to(std::int64_t position, std::int64_t b_dims, std::int64_t dims) {
    std::vector<std::int64_t> order;
    for (std::int64_t d = 0; d < position; ++d) {
        order.push_back(b_dims + d);
    }
    for (std::int64_t d = 0; d < b_dims; ++d) {
        order.push_back(d);
    }
    for (std::int64_t d = b_dims + position; d < dims; ++d) {
        order.push_back(d);
    }
    return order;
}

Tensor get(const Tensor& t, const py::object& index) {
    // The most common index, one integer, skips the general walk.
    if (PyLong_CheckExact(index.ptr()) != 0) {
        return t.select(0, index.cast<std::int64_t>());
    }
    const Indexed indexed = apply_basic(t, index);
    if (indexed.advanced.empty()) {
        return indexed.view;
    }
    const Picks picked = picks(indexed);
    // The indexed dimensions first, flattened into one, then the others: one index_select.
    std::vector<std::int64_t> order;
    Shape flat{1};
    for (const AdvancedIndex& a : indexed.advanced) {
        order.push_back(a.dim);
        flat[0] *= indexed.view.size(a.dim);
    }
    for (const std::int64_t d : other_dims(indexed)) {
        order.push_back(d);
        flat.push_back(indexed.view.size(d));
    }
    const Tensor offsets =
        from_vector(picked.offsets, {static_cast<std::int64_t>(picked.offsets.size())}).to(t.device());
    Shape shape = picked.shape;
    shape.insert(shape.end(), flat.begin() + 1, flat.end());
    const Tensor result = kael::index_select(indexed.view.permute(order).reshape(flat), 0, offsets).reshape(shape);
    const auto b_dims = static_cast<std::int64_t>(picked.shape.size());
    return result.permute(b_moved_to(b_position(indexed, picked), b_dims, result.dim()));
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
    const Indexed indexed = apply_basic(t, index);
    if (indexed.advanced.empty()) {
        assign(indexed.view, value);
        return;
    }
    const Tensor& view = indexed.view;
    if (indexed.sole_mask && indexed.advanced.back().dim == view.dim() - 1 && is_number(value)) {
        // A number through one mask over the last dimensions, the commonest case
        // (t[t < 0] = 0): one masked fill.
        Tensor target = view;
        target.masked_fill_(*indexed.sole_mask, to_scalar(value));
        return;
    }
    // Otherwise element b of B gets its part of the value: the value broadcast to the shape
    // t[index] has, with B's dimensions moved first and flattened.
    const Picks picked = picks(indexed);
    std::optional<Tensor> source;
    if (!is_number(value)) {
        const auto b_dims = static_cast<std::int64_t>(picked.shape.size());
        const std::int64_t position = b_position(indexed, picked);
        Shape shape(picked.shape);  // the shape of t[index], built as get() builds it
        for (const std::int64_t d : other_dims(indexed)) {
            shape.push_back(view.size(d));
        }
        const std::vector<std::int64_t> order = b_moved_to(position, b_dims, static_cast<std::int64_t>(shape.size()));
        Shape placed;
        for (const std::int64_t d : order) {
            placed.push_back(shape[static_cast<std::size_t>(d)]);
        }
        // The value broadcast to that shape, then B's dimensions moved back to the front and
        // flattened: row b is what element b of B receives.
        std::vector<std::int64_t> back(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            back[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
        }
        const Tensor v = value.cast<PyTensor&>().tensor.expand(placed).permute(back);
        Shape flat{static_cast<std::int64_t>(picked.offsets.size())};
        flat.insert(flat.end(), v.shape().begin() + b_dims, v.shape().end());
        source = v.reshape(flat);
    }
    for (std::size_t b = 0; b < picked.offsets.size(); ++b) {
        // Undo the flattening: the coordinate on each indexed dimension, last dimension first,
        // selected from the last indexed dimension back so the earlier ones keep their place.
        Tensor slot = view;
        std::int64_t offset = picked.offsets[b];
        for (std::size_t j = indexed.advanced.size(); j-- > 0;) {
            const std::int64_t size = view.size(indexed.advanced[j].dim);
            slot = slot.select(indexed.advanced[j].dim, offset % size);
            offset /= size;
        }
        if (source) {
            slot.copy_(source->select(0, static_cast<std::int64_t>(b)));
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
