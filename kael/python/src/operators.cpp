// The operators of kael.Tensor (chapter 10): + - * / // % ** @, the comparisons, & | ^ ~
// on Bool tensors, unary - and abs(), and their in-place forms. A number on either side
// is a Scalar of its kind; the reflected forms (2 - t, 2 / t, 2 ** t) call the C++
// overloads whose number comes first. Returning NotImplemented for an operand kael does
// not know lets Python try the other operand's method, as for any Python type.
#include "bindings.h"
#include "casters.h"

namespace kael::python {
namespace py = pybind11;
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

void check_bool(const Tensor& t, const char* op) {
    KAEL_CHECK_TYPE(t.dtype() == DType::Bool, "the " << op << " operator is defined for bool tensors only (kael has no "
                                              "bitwise integer operations), got dtype " << t.dtype());
}

}  // namespace

void bind_operators(py::class_<PyTensor>& tensor) {
    tensor
        // ---- arithmetic, the tensor on the left -----------------------------------------------
        .def("__add__", [](const Tensor& a, const Tensor& b) { return kael::add(a, b); }, py::is_operator(), Release())
        .def("__add__", [](const Tensor& a, Scalar b) { return kael::add(a, b); }, py::is_operator(), Release())
        .def("__sub__", [](const Tensor& a, const Tensor& b) { return kael::sub(a, b); }, py::is_operator(), Release())
        .def("__sub__", [](const Tensor& a, Scalar b) { return kael::sub(a, b); }, py::is_operator(), Release())
        .def("__mul__", [](const Tensor& a, const Tensor& b) { return kael::mul(a, b); }, py::is_operator(), Release())
        .def("__mul__", [](const Tensor& a, Scalar b) { return kael::mul(a, b); }, py::is_operator(), Release())
        .def("__truediv__", [](const Tensor& a, const Tensor& b) { return kael::div(a, b); }, py::is_operator(),
             Release())
        .def("__truediv__", [](const Tensor& a, Scalar b) { return kael::div(a, b); }, py::is_operator(), Release())
        .def("__floordiv__", [](const Tensor& a, const Tensor& b) { return kael::floor_divide(a, b); },
             py::is_operator(), Release())
        .def("__floordiv__", [](const Tensor& a, Scalar b) { return kael::floor_divide(a, b); }, py::is_operator(),
             Release())
        .def("__mod__", [](const Tensor& a, const Tensor& b) { return kael::remainder(a, b); }, py::is_operator(),
             Release())
        .def("__mod__", [](const Tensor& a, Scalar b) { return kael::remainder(a, b); }, py::is_operator(), Release())
        .def("__pow__", [](const Tensor& a, const Tensor& b) { return kael::pow(a, b); }, py::is_operator(), Release())
        .def("__pow__", [](const Tensor& a, Scalar b) { return kael::pow(a, b); }, py::is_operator(), Release())
        .def("__matmul__", [](const Tensor& a, const Tensor& b) { return kael::matmul(a, b); }, py::is_operator(),
             Release())
        // ---- arithmetic, a number on the left ------------------------------------------------------
        .def("__radd__", [](const Tensor& a, Scalar b) { return kael::add(a, b); }, py::is_operator(), Release())
        .def("__rsub__", [](const Tensor& a, Scalar b) { return kael::sub(b, a); }, py::is_operator(), Release())
        .def("__rmul__", [](const Tensor& a, Scalar b) { return kael::mul(a, b); }, py::is_operator(), Release())
        .def("__rtruediv__", [](const Tensor& a, Scalar b) { return kael::div(b, a); }, py::is_operator(), Release())
        .def("__rfloordiv__", [](const Tensor& a, Scalar b) { return kael::floor_divide(b, a); }, py::is_operator(),
             Release())
        .def("__rmod__", [](const Tensor& a, Scalar b) { return kael::remainder(b, a); }, py::is_operator(), Release())
        .def("__rpow__", [](const Tensor& a, Scalar b) { return kael::pow(b, a); }, py::is_operator(), Release())
        // ---- one operand ------------------------------------------------------------------------------
        .def("__neg__", [](const Tensor& a) { return kael::neg(a); }, Release())
        .def("__pos__", [](const Tensor& a) { return a; })
        .def("__abs__", [](const Tensor& a) { return kael::abs(a); }, Release())
        .def("__invert__",
             [](const Tensor& a) {
                 check_bool(a, "~");
                 return kael::logical_not(a);
             },
             Release())
        // ---- comparisons (Python reflects 2 < t into t > 2 itself) ---------------------------------
        .def("__eq__", [](const Tensor& a, const Tensor& b) { return kael::eq(a, b); }, py::is_operator(), Release())
        .def("__eq__", [](const Tensor& a, Scalar b) { return kael::eq(a, b); }, py::is_operator(), Release())
        .def("__ne__", [](const Tensor& a, const Tensor& b) { return kael::ne(a, b); }, py::is_operator(), Release())
        .def("__ne__", [](const Tensor& a, Scalar b) { return kael::ne(a, b); }, py::is_operator(), Release())
        .def("__lt__", [](const Tensor& a, const Tensor& b) { return kael::lt(a, b); }, py::is_operator(), Release())
        .def("__lt__", [](const Tensor& a, Scalar b) { return kael::lt(a, b); }, py::is_operator(), Release())
        .def("__le__", [](const Tensor& a, const Tensor& b) { return kael::le(a, b); }, py::is_operator(), Release())
        .def("__le__", [](const Tensor& a, Scalar b) { return kael::le(a, b); }, py::is_operator(), Release())
        .def("__gt__", [](const Tensor& a, const Tensor& b) { return kael::gt(a, b); }, py::is_operator(), Release())
        .def("__gt__", [](const Tensor& a, Scalar b) { return kael::gt(a, b); }, py::is_operator(), Release())
        .def("__ge__", [](const Tensor& a, const Tensor& b) { return kael::ge(a, b); }, py::is_operator(), Release())
        .def("__ge__", [](const Tensor& a, Scalar b) { return kael::ge(a, b); }, py::is_operator(), Release())
        // ---- logic on masks -------------------------------------------------------------------------
        .def("__and__",
             [](const Tensor& a, const Tensor& b) {
                 check_bool(a, "&");
                 return kael::logical_and(a, b);
             },
             py::is_operator(), Release())
        .def("__or__",
             [](const Tensor& a, const Tensor& b) {
                 check_bool(a, "|");
                 return kael::logical_or(a, b);
             },
             py::is_operator(), Release())
        .def("__xor__",
             [](const Tensor& a, const Tensor& b) {
                 check_bool(a, "^");
                 return kael::logical_xor(a, b);
             },
             py::is_operator(), Release())
        // ---- in place: t += x changes t's impl and rebinds the name to the same object ---------------
        .def("__iadd__", [](Tensor& a, const Tensor& b) { return a.add_(b); }, py::is_operator(), Release())
        .def("__iadd__", [](Tensor& a, Scalar b) { return a.add_(b); }, py::is_operator(), Release())
        .def("__isub__", [](Tensor& a, const Tensor& b) { return a.sub_(b); }, py::is_operator(), Release())
        .def("__isub__", [](Tensor& a, Scalar b) { return a.sub_(b); }, py::is_operator(), Release())
        .def("__imul__", [](Tensor& a, const Tensor& b) { return a.mul_(b); }, py::is_operator(), Release())
        .def("__imul__", [](Tensor& a, Scalar b) { return a.mul_(b); }, py::is_operator(), Release())
        .def("__itruediv__", [](Tensor& a, const Tensor& b) { return a.div_(b); }, py::is_operator(), Release())
        .def("__itruediv__", [](Tensor& a, Scalar b) { return a.div_(b); }, py::is_operator(), Release());
}

}  // namespace kael::python
