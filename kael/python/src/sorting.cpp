// kael.sort, kael.argsort and kael.topk, and the Tensor methods of the same names
// (chapter 11). sort and topk return PyTorch's named pair (return_types.h).
#include <pybind11/stl.h>

#include "bindings.h"
#include "casters.h"
#include "kael/ops/sort.h"
#include "return_types.h"

namespace kael::python {
namespace py = pybind11;

void bind_sorting(py::module_& m, py::class_<PyTensor>& tensor) {
    const py::object sort_result = named_pair_type(m, "sort");
    const py::object topk_result = named_pair_type(m, "topk");

    // `stable` is accepted for PyTorch's signature: kael's order is always the stable one.
    const auto sort = [sort_result](const Tensor& t, std::int64_t dim, bool descending, bool /*stable*/) {
        return as_named_pair(sort_result, [&] { return kael::sort(t, dim, descending); });
    };
    const auto argsort = [](const Tensor& t, std::int64_t dim, bool descending, bool /*stable*/) {
        py::gil_scoped_release release;
        return kael::argsort(t, dim, descending);
    };
    // `sorted` is accepted too: PyTorch leaves the order of unsorted results open, and
    // sorted is one of the orders it allows.
    const auto topk = [topk_result](const Tensor& t, std::int64_t k, std::int64_t dim, bool largest, bool /*sorted*/) {
        return as_named_pair(topk_result, [&] { return kael::topk(t, k, dim, largest); });
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
