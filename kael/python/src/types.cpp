// kael.dtype and kael.device (chapter 10). A dtype prints as PyTorch prints its own
// (kael.float32) and the module has one constant per dtype; a device is built from a name
// ("cpu", "cuda", "cuda:0") by the C++ parser, so "cuda:1" is refused with its ValueError,
// and compares equal to its name as well as to another device.
#include <pybind11/operators.h>

#include <string>

#include "bindings.h"
#include "kael/device.h"
#include "kael/dtype.h"

namespace kael::python {

void bind_types(pybind11::module_& m) {
    namespace py = pybind11;
    py::class_<DType>(m, "dtype")
        .def_property_readonly("is_floating_point", [](DType dtype) { return is_floating_point(dtype); })
        .def_property_readonly("itemsize", [](DType dtype) { return element_size(dtype); })
        .def("__repr__", [](DType dtype) { return "kael." + std::string(to_string(dtype)); })
        .def("__eq__", [](DType a, const py::object& b) { return py::isinstance<DType>(b) && b.cast<DType>() == a; })
        .def("__hash__", [](DType dtype) { return static_cast<int>(dtype); });
    for (const DType dtype : {DType::F32, DType::F64, DType::I64, DType::Bool}) {
        m.attr(std::string(to_string(dtype)).c_str()) = py::cast(dtype);
    }
    // PyTorch's other names for the same dtypes.
    m.attr("float") = py::cast(DType::F32);
    m.attr("double") = py::cast(DType::F64);
    m.attr("long") = py::cast(DType::I64);

    py::class_<Device>(m, "device")
        .def(py::init([](const std::string& name) { return parse_device(name); }), py::arg("type"))
        .def_property_readonly("type", [](Device device) { return std::string(to_string(device)); })
        .def("__str__", [](Device device) { return std::string(to_string(device)); })
        .def("__repr__", [](Device device) { return "device(type='" + std::string(to_string(device)) + "')"; })
        .def("__eq__",
             [](Device a, const py::object& b) {
                 if (py::isinstance<py::str>(b)) {
                     return parse_device(b.cast<std::string>()) == a;
                 }
                 return py::isinstance<Device>(b) && b.cast<Device>() == a;
             })
        .def("__hash__", [](Device device) { return static_cast<int>(device); });

    m.def("cuda_is_available", &cuda_is_available, "True when kael has its CUDA backend and a GPU is present");
    m.def("cuda_is_built", &cuda_is_built, "True when kael was built with its CUDA backend");
    m.def("cuda_synchronize", &cuda_synchronize, py::call_guard<py::gil_scoped_release>());
}

}  // namespace kael::python
