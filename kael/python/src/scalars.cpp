// Python numbers as kael Scalars (chapter 10): the rules casters.h states.
#include <climits>

#include "casters.h"

namespace kael::python {

bool is_number(pybind11::handle object) {
    if (pybind11::isinstance<PyTensor>(object)) {
        return false;  // a one-element tensor converts to a number, but it is not one
    }
    PyObject* raw = object.ptr();
    return PyBool_Check(raw) || PyLong_Check(raw) || PyFloat_Check(raw) ||
           // NumPy's scalars: np.int64 has __index__, np.float32 __float__ (np.float64 is a float)
           (!PyUnicode_Check(raw) && !PySequence_Check(raw) && (PyIndex_Check(raw) || PyNumber_Check(raw)) &&
            pybind11::hasattr(object, "dtype"));
}

Scalar to_scalar(pybind11::handle object) {
    PyObject* raw = object.ptr();
    if (PyBool_Check(raw)) {
        return Scalar(raw == Py_True);
    }
    if (pybind11::hasattr(object, "dtype") && !PyLong_Check(raw) && !PyFloat_Check(raw)) {
        const std::string kind = pybind11::str(object.attr("dtype").attr("kind"));
        if (kind == "b") {
            return Scalar(pybind11::cast<bool>(object));
        }
        if (kind == "f") {
            return Scalar(PyFloat_AsDouble(raw));
        }
    }
    if (PyIndex_Check(raw)) {
        int overflow = 0;
        const pybind11::object integer = pybind11::reinterpret_steal<pybind11::object>(PyNumber_Index(raw));
        if (!integer) {
            throw pybind11::error_already_set();
        }
        const long long value = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
        if (overflow != 0) {
            throw pybind11::value_error("Overflow when unpacking long: the integer does not fit in int64");
        }
        return Scalar(static_cast<std::int64_t>(value));
    }
    const double value = PyFloat_AsDouble(raw);
    if (value == -1.0 && PyErr_Occurred()) {
        throw pybind11::error_already_set();
    }
    return Scalar(value);
}

}  // namespace kael::python
