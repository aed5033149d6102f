// Autograd from Python (chapter 10): requires_grad, grad, grad_fn and backward on
// kael.Tensor, kael.autograd.grad, and the grad mode that kael.no_grad() (in the Python
// package) switches. The graph is the C++ one; a Node reaches Python only as a handle that
// names it, as torch's grad_fn objects do.
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "casters.h"

namespace kael::python {
namespace py = pybind11;

void bind_autograd(py::module_& m, py::class_<PyTensor>& tensor) {
    using Release = py::call_guard<py::gil_scoped_release>;
    py::class_<autograd::Node, std::shared_ptr<autograd::Node>>(m, "Node")
        .def("name", &autograd::Node::name)
        .def_property_readonly("next_functions",
                               [](const autograd::Node& node) {
                                   py::list next;
                                   for (const autograd::Edge& edge : node.next_edges()) {
                                       next.append(py::make_tuple(edge.node, edge.input_nr));
                                   }
                                   return py::tuple(next);
                               })
        .def("__repr__", [](const autograd::Node& node) { return "<" + node.name() + ">"; });

    tensor
        .def_property(
            "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
            [](Tensor& t, bool value) { t.requires_grad_(value); })
        .def("requires_grad_", [](Tensor& t, bool value) { return t.requires_grad_(value); },
             py::arg("requires_grad") = true)
        .def_property(
            "grad", [](const Tensor& t) { return t.grad(); },
            [](Tensor& t, const std::optional<Tensor>& grad) { t.set_grad(grad); })
        .def_property_readonly("grad_fn", [](const Tensor& t) { return t.grad_fn(); })
        .def_property_readonly("is_leaf", [](const Tensor& t) { return t.is_leaf(); })
        .def("retain_grad", [](const Tensor& t) { t.retain_grad(); })
        .def_property_readonly("retains_grad", [](const Tensor& t) { return t.retains_grad(); })
        .def("detach_", [](Tensor& t) { return t.detach_(); })
        .def("backward",
             [](const Tensor& t, const std::optional<Tensor>& gradient, bool retain_graph, bool create_graph) {
                 t.backward(gradient, retain_graph, create_graph);
             },
             py::arg("gradient") = py::none(), py::arg("retain_graph") = false, py::arg("create_graph") = false,
             Release());

    py::module_ autograd_module = m.def_submodule("autograd", "kael's autograd engine");
    autograd_module.def(
        "grad",
        [](const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
           const std::vector<std::optional<Tensor>>& grad_outputs, std::optional<bool> retain_graph, bool create_graph,
           bool allow_unused) {
            return autograd::grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused);
        },
        py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = std::vector<std::optional<Tensor>>{},
        py::arg("retain_graph") = py::none(), py::arg("create_graph") = false, py::arg("allow_unused") = false,
        Release());
    m.def("is_grad_enabled", &autograd::is_grad_enabled);
    m.def("set_grad_enabled", &autograd::set_grad_enabled, py::arg("mode"));
}

}  // namespace kael::python
