#pragma once
// Reading PyTorch-style arguments (chapter 10): sizes given as `zeros(2, 3)` or
// `zeros((2, 3))`, and the dtype and device keywords.
#include <pybind11/pybind11.h>

#include <optional>

#include "kael/kael.h"

namespace kael::python {

/// The sizes of `args`: the elements of one tuple or list, or the arguments themselves.
/// TypeError for anything but integers.
Shape sizes_of(const pybind11::args& args);

/// The dims of a reduction: None is every dim ({}), an int one dim, a tuple or list those.
Dims dims_of(const pybind11::object& dim);

/// A reduction's `dim` argument, read by its caster (below) while the GIL is held, so that
/// the operation can run without it.
struct DimList {
    Dims dims;
};

/// A device from a kael.device or its name; nullopt for None.
std::optional<Device> device_of(const pybind11::object& value);

/// `values` as a tuple of Python ints: how shapes and strides look from Python.
pybind11::tuple to_tuple(const std::vector<std::int64_t>& values);

}  // namespace kael::python

namespace pybind11::detail {

template <> struct type_caster<kael::python::DimList> {
    PYBIND11_TYPE_CASTER(kael::python::DimList, const_name("None | int | tuple[int, ...]"));
    bool load(handle source, bool /*convert*/) {
        value.dims = kael::python::dims_of(reinterpret_borrow<object>(source));
        return true;
    }
};

}  // namespace pybind11::detail
