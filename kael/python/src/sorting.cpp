// kael.sort, kael.argsort and kael.topk, and the Tensor methods of the same names
// (chapter 11). sort and topk return PyTorch's named pair: unpack it as (values, indices)
// or read .values and .indices. The pair type lives in kael.return_types, as PyTorch's
// does in torch.return_types.
#include <pybind11/stl.h>

#include <optional>

#include "bindings.h"
#include "casters.h"
#include "kael/ops/sort.h"

namespace kael::python {
namespace py = pybind11;
namespace {

// A named tuple type (values, indices) called `name`, made once in kael.return_types.
py::object pair_type(py::module_& return_types, const char* name) {
    py::object type = py::module_::import("collections").attr("namedtuple")(name, py::make_tuple("values", "indices"));
    type.attr("__module__") = "kael.return_types";
    return_types.attr(name) = type;
    return type;
}

// Runs `f` without the GIL and wraps its (values, indices) in the named pair once it is
// held again.
template <typename F> py::object as_pair(const py::object& type, F f) {
    std::optional<ValuesIndices> result;
    {
        py::gil_scoped_release release;
        result.emplace(f());
    }
    return type(result->values, result->indices);
}

}  // namespace

void bind_sorting(py::module_& m, py::class_<PyTensor>& tensor) {
    py::module_ return_types = m.def_submodule("return_types", "the named pairs that sort and topk return");
    const py::object sort_result = pair_type(return_types, "sort");
    const py::object topk_result = pair_type(return_types, "topk");

    // `stable` is accepted for PyTorch's signature: kael's order is always the stable one.
    const auto sort = [sort_result](const Tensor& t, std::int64_t dim, bool descending, bool /*stable*/) {
        return as_pair(sort_result, [&] { return kael::sort(t, dim, descending); });
    };
    const auto argsort = [](const Tensor& t, std::int64_t dim, bool descending, bool /*stable*/) {
        py::gil_scoped_release release;
        return kael::argsort(t, dim, descending);
    };
    // `sorted` is accepted too: PyTorch leaves the order of unsorted results open, and
    // sorted is one of the orders it allows.
    const auto topk = [topk_result](const Tensor& t, std::int64_t k, std::int64_t dim, bool largest, bool /*sorted*/) {
        return as_pair(topk_result, [&] { return kael::topk(t, k, dim, largest); });
    };
    for (const bool method : {false, true}) {
        const auto def = [&](const char* name, auto f, auto... args) {
            if (method) {
                tensor.def(name, f, args...);
            } else {
                m.def(name, f, py::arg("input"), args...);
            }
        };
        def("sort", sort, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
        def("argsort", argsort, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(),
            py::arg("stable") = false);
        def("topk", topk, py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);
    }
}

}  // namespace kael::python
