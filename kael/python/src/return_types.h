#pragma once
// PyTorch's named pairs: max(dim), min(dim), sort and topk return a tuple that unpacks as
// (values, indices) and also has .values and .indices. The types live in
// kael.return_types, as PyTorch's do in torch.return_types.
#include <pybind11/pybind11.h>

#include <optional>

#include "kael/ops/reduce.h"

namespace kael::python {

/// The named tuple type (values, indices) called `name` in kael.return_types, made on the
/// first call for each name.
inline pybind11::object named_pair_type(pybind11::module_& m, const char* name) {
    namespace py = pybind11;
    py::module_ return_types = py::hasattr(m, "return_types")
                                   ? m.attr("return_types").cast<py::module_>()
                                   : m.def_submodule("return_types", "the named pairs of max, min, sort and topk");
    if (!py::hasattr(return_types, name)) {
        py::object type = py::module_::import("collections").attr("namedtuple")(name, py::make_tuple("values", "indices"));
        type.attr("__module__") = "kael.return_types";
        return_types.attr(name) = type;
    }
    return return_types.attr(name);
}

/// Runs `f` without the GIL and wraps the ValuesIndices it returns in `type` once the GIL
/// is held again.
template <typename F> pybind11::object as_named_pair(const pybind11::object& type, F f) {
    std::optional<ValuesIndices> result;
    {
        pybind11::gil_scoped_release release;
        result.emplace(f());
    }
    return type(result->values, result->indices);
}

}  // namespace kael::python
