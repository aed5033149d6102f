// The extension module kael._kael (chapter 10). The Python package kael (kael/__init__.py)
// imports everything from it and adds what reads better in Python: no_grad as a context
// manager, and the nn and optim packages.
#include <string>

#include "bindings.h"
#include "casters.h"

PYBIND11_MODULE(_kael, m) {
    namespace py = pybind11;
    using namespace kael::python;
    m.doc() = "kael: a deep learning framework in C++20 that is also a book";
    m.attr("__version__") = std::string(kael::version());
    bind_errors(m);
    bind_types(m);
    py::class_<PyTensor> tensor(m, "Tensor", "A view of typed elements on a device, as kael::Tensor in C++");
    bind_tensor(m, tensor);
    bind_operators(tensor);
    bind_indexing(tensor);
    bind_factories(m);
    bind_functions(m, tensor);
    bind_numpy(m, tensor);
    bind_dlpack(m, tensor);
    bind_autograd(m, tensor);
    bind_training(m);
//> stage 12
    bind_sorting(m, tensor);
//< stage 12
//> stage 13
    bind_gpt2(m);
//< stage 13
}
