#pragma once
// Where Python values become kael's C++ values and back (chapter 10).
//
// Two conversions run at every call of the module:
// - A Python number becomes a kael::Scalar of its own kind: bool before int (Python's bool
//   is a subclass of int, and True must promote as a Bool scalar, not as the integer 1),
//   then integers, then floats. NumPy's scalar types count as numbers too.
// - A kael.Tensor object hands over its C++ handle, and a C++ Tensor coming back becomes
//   a Python object through the identity cache (identity.cpp): the impl that already has a
//   Python object gets that same object back, as in PyTorch.
//
// Neither kael::Scalar nor kael::Tensor has a default constructor, so these casters hold
// their value in a std::optional instead of using PYBIND11_TYPE_CASTER.
#include <pybind11/pybind11.h>

#include <optional>
#include <utility>

#include "kael/kael.h"

namespace kael::python {

/// The C++ object inside every kael.Tensor: one handle to a TensorImpl. The one inside a
/// Python object is `cached` in the identity cache (identity.cpp), and takes its entry out
/// when the object dies and pybind11 destroys it (the GIL is held then). Copies and moves
/// made on the way are not cached, so their destruction leaves the entry alone.
struct PyTensor {
    explicit PyTensor(Tensor t) : tensor(std::move(t)) {}
    PyTensor(const PyTensor& other) : tensor(other.tensor) {}
    PyTensor(PyTensor&& other) noexcept : tensor(std::move(other.tensor)) {}
    PyTensor& operator=(const PyTensor&) = delete;
    PyTensor& operator=(PyTensor&&) = delete;
    ~PyTensor();

    Tensor tensor;
    bool cached = false;
};

/// The Python object of `t`: the existing one for t's impl, or a new one (identity.cpp).
pybind11::object wrap(const Tensor& t);

/// Enters `object`, a kael.Tensor (or an instance of a Python subclass) made by its
/// constructor, into the identity cache: its impl must have no Python object yet.
void remember(const pybind11::object& object);

/// A const member function of Tensor as a callable whose first parameter is the tensor:
/// what py::class_<PyTensor> can bind (a member pointer would have to be PyTensor's).
template <typename R, typename... Args> auto method(R (Tensor::*member)(Args...) const) {
    return [member](const Tensor& self, Args... args) -> R { return (self.*member)(std::forward<Args>(args)...); };
}
template <typename R, typename... Args> auto method(R (Tensor::*member)(Args...) const noexcept) {
    return [member](const Tensor& self, Args... args) -> R { return (self.*member)(std::forward<Args>(args)...); };
}

/// True for a Python object kael reads as a number (and not a tensor).
bool is_number(pybind11::handle object);

/// `object` as a Scalar: bool, int (int64, ValueError past it) or float, in that order.
Scalar to_scalar(pybind11::handle object);

}  // namespace kael::python

namespace pybind11::detail {

template <> struct type_caster<kael::Scalar> {
    std::optional<kael::Scalar> value;
    static constexpr auto name = const_name("number");
    template <typename T> using cast_op_type = movable_cast_op_type<T>;
    operator kael::Scalar*() { return &*value; }
    operator kael::Scalar&() { return *value; }
    operator kael::Scalar&&() && { return std::move(*value); }

    bool load(handle source, bool /*convert*/) {
        if (!kael::python::is_number(source)) {
            return false;
        }
        value = kael::python::to_scalar(source);
        return true;
    }

    static handle cast(const kael::Scalar& scalar, return_value_policy /*policy*/, handle /*parent*/) {
        switch (scalar.dtype()) {
        case kael::DType::Bool:
            return pybind11::bool_(scalar.as<bool>()).release();
        case kael::DType::I64:
            return pybind11::int_(scalar.as<std::int64_t>()).release();
        case kael::DType::F32:
        case kael::DType::F64:
            return pybind11::float_(scalar.as<double>()).release();
        }
        kael::detail::unreachable();
    }
};

template <> struct type_caster<kael::Tensor> {
    std::optional<kael::Tensor> value;
    static constexpr auto name = const_name("kael.Tensor");
    template <typename T> using cast_op_type = movable_cast_op_type<T>;
    operator kael::Tensor*() { return &*value; }
    operator kael::Tensor&() { return *value; }
    operator kael::Tensor&&() && { return std::move(*value); }

    bool load(handle source, bool /*convert*/) {
        if (!isinstance<kael::python::PyTensor>(source)) {
            return false;
        }
        value = source.cast<kael::python::PyTensor&>().tensor;
        return true;
    }

    static handle cast(const kael::Tensor& tensor, return_value_policy /*policy*/, handle /*parent*/) {
        return kael::python::wrap(tensor).release();
    }
};

}  // namespace pybind11::detail
