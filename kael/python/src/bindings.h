#pragma once
// The parts of the module kael._kael, each bound by one file (chapter 10). module.cpp
// calls them in order: the types first, because later bindings name them in signatures.
#include <pybind11/pybind11.h>

namespace kael::python {

/// Maps kael's errors to Python's exception classes (errors.cpp).
void bind_errors(pybind11::module_& m);
/// kael.dtype and kael.device, and the dtype constants kael.float32, ... (types.cpp).
void bind_types(pybind11::module_& m);
/// kael.Tensor: its properties, conversions and views (tensor.cpp).
void bind_tensor(pybind11::module_& m, pybind11::class_<struct PyTensor>& tensor);
/// The arithmetic, comparison and in-place operators of kael.Tensor (operators.cpp).
void bind_operators(pybind11::class_<struct PyTensor>& tensor);
/// t[...] and t[...] = value (indexing.cpp).
void bind_indexing(pybind11::class_<struct PyTensor>& tensor);
/// The factories and the operations as module functions and tensor methods (functions.cpp).
void bind_functions(pybind11::module_& m, pybind11::class_<struct PyTensor>& tensor);
/// The factories: kael.zeros, kael.randn, kael.tensor, ... (factories.cpp).
void bind_factories(pybind11::module_& m);
/// NumPy without copies, both ways (numpy.cpp).
void bind_numpy(pybind11::module_& m, pybind11::class_<struct PyTensor>& tensor);
/// DLPack: Tensor.__dlpack__, __dlpack_device__ and kael.from_dlpack (dlpack.cpp).
void bind_dlpack(pybind11::module_& m, pybind11::class_<struct PyTensor>& tensor);
/// nn.init, nn.functional's losses and the optimizers (training.cpp).
void bind_training(pybind11::module_& m);
/// backward, grad_fn, the grad mode (autograd.cpp).
void bind_autograd(pybind11::module_& m, pybind11::class_<struct PyTensor>& tensor);
//> stage 12
/// kael.sort, kael.argsort, kael.topk and their Tensor methods (sorting.cpp).
void bind_sorting(pybind11::module_& m, pybind11::class_<struct PyTensor>& tensor);
//< stage 12
//> stage 13
/// kael.nn.load_gpt2, kael.nn.generate, kael.text.GPT2Tokenizer and the thread count (gpt2.cpp).
void bind_gpt2(pybind11::module_& m);
//< stage 13

}  // namespace kael::python
