// kael.Tensor (chapter 10): one Python class over the C++ handle. Its properties read the
// impl; its conversions (item, tolist, repr) copy a device tensor to the host first, as
// printing does in C++; its views return new tensors over the same storage.
#include <pybind11/stl.h>

#include <sstream>
#include <string>

#include "arguments.h"
#include "bindings.h"
#include "casters.h"

namespace kael::python {
namespace py = pybind11;
namespace {

// One element as the Python number of its dtype's kind, as PyTorch's item() returns.
py::object element_of(const Tensor& t) {
    switch (t.dtype()) {
    case DType::Bool:
        return py::bool_(t.item() != 0);
    case DType::I64:
        return py::int_(t.item<std::int64_t>());
    case DType::F32:
    case DType::F64:
        return py::float_(t.item());
    }
    detail::unreachable();
}

// Nested lists of Python numbers, one level per dimension.
py::object to_list(const Tensor& t) {
    if (t.dim() == 0) {
        return element_of(t);
    }
    py::list list;
    for (std::int64_t i = 0; i < t.size(0); ++i) {
        list.append(to_list(t.select(0, i)));
    }
    return list;
}

void check_single_element(const Tensor& t, const char* what) {
    KAEL_CHECK_VALUE(t.numel() == 1, what << " of a tensor with " << t.numel()
                                          << " elements is ambiguous; it needs exactly one element");
}

// t.to(...) in PyTorch's forms: a dtype, a device or its name, another tensor (both), or a
// device and a dtype together, positional or as keywords.
Tensor converted(const Tensor& t, const py::args& args, const py::kwargs& kwargs) {
    std::optional<DType> dtype;
    std::optional<Device> device;
    auto take = [&](const py::handle value) {
        if (py::isinstance<py::bool_>(value)) {
            return;  // non_blocking or copy given by position: kael's copies are synchronous
        }
        if (py::isinstance<DType>(value)) {
            dtype = value.cast<DType>();
        } else if (py::isinstance<PyTensor>(value)) {
            const Tensor& other = value.cast<PyTensor&>().tensor;
            dtype = other.dtype();
            device = other.device();
        } else if (!value.is_none()) {
            device = device_of(py::reinterpret_borrow<py::object>(value));
        }
    };
    for (const py::handle value : args) {
        take(value);
    }
    bool copy = false;
    for (const auto& [key, value] : kwargs) {
        const std::string name = py::str(key);
        KAEL_CHECK_TYPE(name == "dtype" || name == "device" || name == "non_blocking" || name == "copy",
                        "to() got an unexpected keyword argument '" << name << "'");
        if (name == "copy") {
            copy = value.cast<bool>();
        } else if (name != "non_blocking") {  // accepted: every copy kael makes is finished on return
            take(value);
        }
    }
    Tensor result = t;
    if (device) {
        result = result.to(*device);
    }
    if (dtype) {
        result = result.to(*dtype);
    }
    return copy && result.is_same(t) ? result.clone() : result;
}

}  // namespace

void bind_tensor(py::module_& m, py::class_<PyTensor>& tensor) {
    // kael.Tensor(data) is for subclasses such as kael.nn.Parameter: a new tensor over
    // data's storage (a detached alias), entered into the identity cache by _remember.
    tensor.def(py::init([](const Tensor& data) { return PyTensor{data.detach()}; }), py::arg("data"));
    m.def("_remember", &remember, py::arg("tensor"));
    tensor
        // ---- what the tensor is --------------------------------------------------------------
        .def_property_readonly("shape", [](const Tensor& t) { return to_tuple(t.shape()); })
        .def_property_readonly("strides", [](const Tensor& t) { return to_tuple(t.strides()); })
        .def_property_readonly("dtype", method(&Tensor::dtype))
        .def_property_readonly("device", method(&Tensor::device))
        .def_property_readonly("ndim", method(&Tensor::dim))
        .def_property_readonly("is_cuda", [](const Tensor& t) { return t.device() == Device::CUDA; })
        .def("size",
             [](const Tensor& t, std::optional<std::int64_t> dim) -> py::object {
                 return dim ? py::object(py::int_(t.size(*dim))) : py::object(to_tuple(t.shape()));
             },
             py::arg("dim") = py::none())
        .def("stride",
             [](const Tensor& t, std::optional<std::int64_t> dim) -> py::object {
                 return dim ? py::object(py::int_(t.stride(*dim))) : py::object(to_tuple(t.strides()));
             },
             py::arg("dim") = py::none())
        .def("dim", method(&Tensor::dim))
        .def("numel", method(&Tensor::numel))
        .def("element_size", [](const Tensor& t) { return element_size(t.dtype()); })
        .def("storage_offset", method(&Tensor::offset))
        .def("is_contiguous", method(&Tensor::is_contiguous))
        .def("is_floating_point", [](const Tensor& t) { return is_floating_point(t.dtype()); })
        .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.device_data()); })
        // ---- values as Python objects ----------------------------------------------------------
        .def("item",
             [](const Tensor& t) {
                 check_single_element(t, "item()");
                 return element_of(t);
             })
        .def("tolist", [](const Tensor& t) { return to_list(t.cpu()); })
        .def("__repr__",
             [](const Tensor& t) {
                 std::ostringstream out;
                 out << t;
                 return out.str();
             })
        .def("__len__",
             [](const Tensor& t) {
                 KAEL_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
                 return t.size(0);
             })
        .def("__iter__",
             [](const Tensor& t) {
                 KAEL_CHECK_TYPE(t.dim() > 0, "iteration over a 0-d tensor");
                 py::list rows;
                 for (std::int64_t i = 0; i < t.size(0); ++i) {
                     rows.append(py::cast(t.select(0, i)));
                 }
                 return py::iter(rows);
             })
        .def("__bool__",
             [](const Tensor& t) {
                 check_single_element(t, "the truth value");
                 return t.item() != 0;
             })
        .def("__float__",
             [](const Tensor& t) {
                 check_single_element(t, "float()");
                 return t.item();
             })
        .def("__int__",
             [](const Tensor& t) {
                 check_single_element(t, "int()");
                 // Exact for int64 (through double, 2^60 + 1 would round); floats truncate.
                 return t.dtype() == DType::I64 ? t.item<std::int64_t>() : static_cast<std::int64_t>(t.item());
             })
        .def("__index__",
             [](const Tensor& t) {
                 KAEL_CHECK_TYPE(t.numel() == 1 && t.dtype() == DType::I64,
                                 "only integer tensors of a single element can be converted to an index");
                 return t.item<std::int64_t>();
             })
        .def("__hash__", [](const py::object& self) { return reinterpret_cast<std::intptr_t>(self.ptr()); })
        // ---- copies and conversions -----------------------------------------------------------
        .def("to", &converted)
        .def("cpu", method(&Tensor::cpu), py::call_guard<py::gil_scoped_release>())
        .def("cuda", method(&Tensor::cuda), py::call_guard<py::gil_scoped_release>())
        .def("float", [](const Tensor& t) { return t.to(DType::F32); })
        .def("double", [](const Tensor& t) { return t.to(DType::F64); })
        .def("long", [](const Tensor& t) { return t.to(DType::I64); })
        .def("bool", [](const Tensor& t) { return t.to(DType::Bool); })
        .def("clone", method(&Tensor::clone), py::call_guard<py::gil_scoped_release>())
        .def("contiguous", method(&Tensor::contiguous), py::call_guard<py::gil_scoped_release>())
        .def("detach", method(&Tensor::detach))
        // In place, as Module::to: every handle to the impl (an optimizer's) sees the move.
        .def("move_to_", [](Tensor& t, Device target) { return t.move_to_(target); }, py::arg("device"),
             py::call_guard<py::gil_scoped_release>())
        .def("move_to_", [](Tensor& t, DType target) { return t.move_to_(target); }, py::arg("dtype"),
             py::call_guard<py::gil_scoped_release>())
//> stage 13
        // In place too: the tensor reads source's bytes from now on (chapter 12's loading).
        .def("set_", [](Tensor& t, const Tensor& source) { return t.set_(source); }, py::arg("source"))
//< stage 13
        // ---- views -----------------------------------------------------------------------------
        .def("view", [](const Tensor& t, const py::args& sizes) { return t.view(sizes_of(sizes)); })
        .def("reshape", [](const Tensor& t, const py::args& sizes) { return t.reshape(sizes_of(sizes)); })
        .def("expand", [](const Tensor& t, const py::args& sizes) { return t.expand(sizes_of(sizes)); })
        .def("permute", [](const Tensor& t, const py::args& dims) { return t.permute(sizes_of(dims)); })
        .def("expand_as", method(&Tensor::expand_as))
        .def("transpose", method(&Tensor::transpose), py::arg("dim0"), py::arg("dim1"))
        .def_property_readonly("T", method(&Tensor::T))
        .def_property_readonly("mT", method(&Tensor::mT))
        .def("t", method(&Tensor::T))
        .def("select", method(&Tensor::select), py::arg("dim"), py::arg("index"))
        .def("narrow", method(&Tensor::narrow), py::arg("dim"), py::arg("start"), py::arg("length"))
        .def("squeeze",
             [](const Tensor& t, std::optional<std::int64_t> dim) { return dim ? t.squeeze(*dim) : t.squeeze(); },
             py::arg("dim") = py::none())
        .def("unsqueeze", method(&Tensor::unsqueeze), py::arg("dim"))
        .def("flatten", method(&Tensor::flatten), py::arg("start_dim") = 0, py::arg("end_dim") = -1)
        .def("unflatten", method(&Tensor::unflatten), py::arg("dim"), py::arg("sizes"))
        .def("as_strided", method(&Tensor::as_strided), py::arg("size"), py::arg("stride"), py::arg("storage_offset") = 0);
}

}  // namespace kael::python
