// The argument readers of arguments.h.
#include "arguments.h"

#include <string>

namespace kael::python {
namespace py = pybind11;

Shape sizes_of(const py::args& args) {
    const py::sequence sizes = args.size() == 1 && (py::isinstance<py::tuple>(args[0]) || py::isinstance<py::list>(args[0]))
                                   ? py::reinterpret_borrow<py::sequence>(args[0])
                                   : py::reinterpret_borrow<py::sequence>(args);
    Shape shape;
    for (const py::handle size : sizes) {
        if (PyBool_Check(size.ptr()) || !PyIndex_Check(size.ptr())) {
            throw TypeError("sizes must be integers, got " + std::string(py::str(py::type::of(size).attr("__name__"))));
        }
        shape.push_back(size.cast<std::int64_t>());
    }
    return shape;
}

Dims dims_of(const py::object& dim) {
    if (dim.is_none()) {
        return {};
    }
    if (PyIndex_Check(dim.ptr()) && !PyBool_Check(dim.ptr())) {
        return {dim.cast<std::int64_t>()};
    }
    KAEL_CHECK_TYPE(py::isinstance<py::tuple>(dim) || py::isinstance<py::list>(dim),
                    "dim must be None, an int or a tuple of ints");
    Dims dims;
    for (const py::handle d : dim) {
        dims.push_back(d.cast<std::int64_t>());
    }
    return dims;
}

std::optional<Device> device_of(const py::object& value) {
    if (value.is_none()) {
        return std::nullopt;
    }
    if (py::isinstance<py::str>(value)) {
        return parse_device(value.cast<std::string>());
    }
    if (py::isinstance<Device>(value)) {
        return value.cast<Device>();
    }
    throw TypeError("expected a kael.device or a device name such as 'cpu', got " +
                    std::string(py::str(py::type::of(value).attr("__name__"))));
}

py::tuple to_tuple(const std::vector<std::int64_t>& values) {
    py::tuple tuple(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        tuple[i] = py::int_(values[i]);
    }
    return tuple;
}

}  // namespace kael::python
