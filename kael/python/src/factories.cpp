// The factories from Python (chapter 10): kael.zeros(2, 3), kael.randn((4,), dtype=...),
// kael.arange(5), and kael.tensor(data), which copies nested lists, a number, a NumPy array
// or a tensor, inferring the dtype as torch.tensor does: bool if every value is a bool,
// int64 if every value is an integer, float32 as soon as one is a float.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "arguments.h"
#include "bindings.h"
#include "casters.h"

namespace kael::python {
namespace py = pybind11;
namespace {

// The values of nested sequences, depth first, and the widest kind among them.
struct NestedValues {
    std::vector<Scalar> values;
    DType dtype = DType::Bool;  // Bool < I64 < F32, as the values' kinds promote
};

bool is_sequence(const py::handle data) {
    return py::isinstance<py::sequence>(data) && !py::isinstance<py::str>(data) && !py::isinstance<PyTensor>(data);
}

// The sizes: the length of the first sequence at every depth (the others must agree).
Shape nested_shape(py::handle data) {
    Shape shape;
    while (!is_number(data)) {
        KAEL_CHECK_TYPE(is_sequence(data), "kael.tensor expects numbers or nested sequences of numbers, got "
                                               << std::string(py::str(py::type::of(data).attr("__name__"))));
        const auto sequence = py::reinterpret_borrow<py::sequence>(data);
        shape.push_back(static_cast<std::int64_t>(py::len(sequence)));
        if (shape.back() == 0) {
            break;
        }
        data = sequence[0];
    }
    return shape;
}

void read_nested(const py::handle data, std::size_t depth, const Shape& shape, NestedValues& out) {
    if (depth == shape.size()) {
        KAEL_CHECK_VALUE(is_number(data), "expected a number at depth " << depth << ", got a sequence");
        const Scalar value = to_scalar(data);
        out.dtype = promote_types(out.dtype, value.dtype());
        out.values.push_back(value);
        return;
    }
    KAEL_CHECK_VALUE(is_sequence(data) && static_cast<std::int64_t>(py::len(data)) == shape[depth],
                     "expected a sequence of length " << shape[depth] << " at depth " << depth
                                                      << " (the sizes must be the same all through)");
    for (const py::handle item : py::reinterpret_borrow<py::sequence>(data)) {
        read_nested(item, depth + 1, shape, out);
    }
}

Tensor tensor_from_data(const py::object& data, std::optional<DType> dtype) {
    if (py::isinstance<PyTensor>(data)) {
        const Tensor& t = data.cast<PyTensor&>().tensor;
        return t.detach().to(dtype.value_or(t.dtype())).clone();
    }
    if (py::isinstance<py::array>(data)) {
        // A copy in a dtype kael has: int32 becomes int64 and float16 float32, as their
        // kinds promote; any layout, read-only arrays included.
        const py::module_ numpy = py::module_::import("numpy");
        auto array = py::reinterpret_borrow<py::array>(data);
        const char kind = array.dtype().kind();
        const char* target = kind == 'b' ? "bool" : kind == 'f' ? (array.dtype().itemsize() == 8 ? "float64" : "float32")
                                                                : "int64";
        KAEL_CHECK_TYPE(kind == 'b' || kind == 'f' || kind == 'i' || kind == 'u',
                        "kael.tensor cannot convert a NumPy array of dtype " << std::string(py::str(array.dtype())));
        // A bool array is copied as its bytes != 0: NumPy copies bool bytes as they are, and
        // a byte other than 0 and 1 would break the invariant kael's bool tensors keep.
        // (numpy.array keeps a 0-d array 0-d; ascontiguousarray would make it [1].)
        const py::object source =
            kind == 'b' ? numpy.attr("not_equal")(array.attr("view")(numpy.attr("uint8")), 0) : py::object(array);
        const py::object copy = numpy.attr("array")(source, py::arg("dtype") = target, py::arg("order") = "C");
        const Tensor shared = py::module_::import("kael").attr("from_numpy")(copy).cast<PyTensor&>().tensor;
        return shared.clone().to(dtype.value_or(shared.dtype()));
    }
    const Shape shape = nested_shape(data);
    NestedValues nested;
    read_nested(data, 0, shape, nested);
    const DType inferred = nested.values.empty() ? DType::F32 : nested.dtype;  // tensor([]) is float32
    // A floating dtype asked for is filled directly from the Python numbers, so that
    // tensor(0.8, dtype=float64) holds the double 0.8 and not 0.8 rounded through float32.
    const DType fill = dtype && is_floating_point(*dtype) ? *dtype : inferred;
    Tensor out = empty(shape, fill);
    dispatch(fill, [&]<typename T>() {
        T* values = out.data_ptr<T>();
        for (std::size_t i = 0; i < nested.values.size(); ++i) {
            values[i] = nested.values[i].as<T>();
        }
    });
    return dtype ? out.to(*dtype) : out;
}

// The keywords every factory takes.
Tensor finish(Tensor t, const py::object& device, bool requires_grad) {
    if (const std::optional<Device> target = device_of(device)) {
        t = t.to(*target);
    }
    if (requires_grad) {
        t.requires_grad_();
    }
    return t;
}

}  // namespace

void bind_factories(py::module_& m) {
    const auto dtype = py::arg("dtype") = py::none();
    const auto device = py::arg("device") = py::none();
    const auto requires_grad = py::arg("requires_grad") = false;
    m.def("tensor",
          [](const py::object& data, std::optional<DType> type, const py::object& where, bool grad) {
              return finish(tensor_from_data(data, type), where, grad);
          },
          py::arg("data"), dtype, device, requires_grad);
    for (const char* name : {"zeros", "ones", "empty"}) {
        const std::string which = name;
        m.def(name,
              [which](const py::args& sizes, std::optional<DType> type, const py::object& where, bool grad) {
                  const Shape shape = sizes_of(sizes);
                  const DType d = type.value_or(DType::F32);
                  const std::optional<Device> target = device_of(where);
                  const Device on = target.value_or(Device::CPU);
                  Tensor t = which == "zeros" ? zeros(shape, d, on) : which == "ones" ? ones(shape, d, on)
                                                                                   : empty(shape, d, on);
                  return finish(t, py::none(), grad);
              },
              dtype, device, requires_grad);
    }
    m.def("full",
          [](const Shape& shape, Scalar value, std::optional<DType> type, const py::object& where, bool grad) {
              const Device on = device_of(where).value_or(Device::CPU);
              return finish(full(shape, value, type.value_or(value.dtype()), on), py::none(), grad);
          },
          py::arg("size"), py::arg("fill_value"), dtype, device, requires_grad);
    // The *_like factories: the shape of `input`, and its dtype and device unless given.
    for (const char* name : {"zeros_like", "ones_like", "empty_like"}) {
        const std::string which = name;
        m.def(name,
              [which](const Tensor& t, std::optional<DType> type, const py::object& where, bool grad) {
                  const DType d = type.value_or(t.dtype());
                  const Device on = device_of(where).value_or(t.device());
                  Tensor out = which == "zeros_like" ? zeros(t.shape(), d, on)
                               : which == "ones_like" ? ones(t.shape(), d, on)
                                                      : empty(t.shape(), d, on);
                  return finish(out, py::none(), grad);
              },
              py::arg("input"), dtype, device, requires_grad);
    }
    m.def("full_like",
          [](const Tensor& t, Scalar value, std::optional<DType> type, const py::object& where, bool grad) {
              return finish(full(t.shape(), value, type.value_or(t.dtype()), device_of(where).value_or(t.device())),
                            py::none(), grad);
          },
          py::arg("input"), py::arg("fill_value"), dtype, device, requires_grad);
    // arange's dtype follows its arguments when none is given, as in PyTorch: int64 when
    // start, end and step are all integers, float32 otherwise.
    m.def("arange",
          [](const py::object& start, const py::object& end, const py::object& step, std::optional<DType> type,
             const py::object& where, bool grad) {
              const auto integral = [](const py::object& v) {
                  return v.is_none() || (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v));
              };
              const DType d = type.value_or(integral(start) && integral(end) && integral(step) ? DType::I64 : DType::F32);
              const double first = start.cast<double>();
              const double increment = step.is_none() ? 1.0 : step.cast<double>();
              Tensor t = end.is_none() ? arange(0.0, first, increment, d) : arange(first, end.cast<double>(), increment, d);
              return finish(t, where, grad);
          },
          py::arg("start"), py::arg("end") = py::none(), py::arg("step") = py::none(), dtype, device, requires_grad);
    m.def("linspace",
          [](double start, double end, std::int64_t steps, std::optional<DType> type, const py::object& where,
             bool grad) { return finish(linspace(start, end, steps, type.value_or(DType::F32)), where, grad); },
          py::arg("start"), py::arg("end"), py::arg("steps"), dtype, device, requires_grad);
    m.def("eye",
          [](std::int64_t n, std::optional<DType> type, const py::object& where, bool grad) {
              return finish(eye(n, type.value_or(DType::F32)), where, grad);
          },
          py::arg("n"), dtype, device, requires_grad);

    // Random tensors come from the one global generator (on the host, then copied).
    m.def("manual_seed", &manual_seed, py::arg("seed"));
    m.def("rand",
          [](const py::args& sizes, std::optional<DType> type, const py::object& where, bool grad) {
              return finish(rand(sizes_of(sizes), type.value_or(DType::F32)), where, grad);
          },
          dtype, device, requires_grad);
    m.def("randn",
          [](const py::args& sizes, std::optional<DType> type, const py::object& where, bool grad) {
              return finish(randn(sizes_of(sizes), type.value_or(DType::F32)), where, grad);
          },
          dtype, device, requires_grad);
    // randint(low, high, size) and randint(high, size), int64 unless a dtype is given.
    const auto random_integers = [](std::int64_t low, std::int64_t high, const Shape& size, std::optional<DType> type,
                                    const py::object& where, bool grad) {
        return finish(randint(low, high, size).to(type.value_or(DType::I64)), where, grad);
    };
    m.def("randint", random_integers, py::arg("low"), py::arg("high"), py::arg("size"), dtype, device, requires_grad);
    m.def("randint",
          [random_integers](std::int64_t high, const Shape& size, std::optional<DType> type, const py::object& where,
                            bool grad) { return random_integers(0, high, size, type, where, grad); },
          py::arg("high"), py::arg("size"), dtype, device, requires_grad);
    m.def("randperm",
          [](std::int64_t n, std::optional<DType> type, const py::object& where, bool grad) {
              return finish(randperm(n).to(type.value_or(DType::I64)), where, grad);
          },
          py::arg("n"), dtype, device, requires_grad);
    m.def("bernoulli",
          [](const Shape& size, double p, std::optional<DType> type, const py::object& where) {
              return finish(bernoulli(size, p, type.value_or(DType::F32)), where, false);
          },
          py::arg("size"), py::arg("p"), dtype, device);
}

}  // namespace kael::python
