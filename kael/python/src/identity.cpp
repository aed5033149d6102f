// The identity cache (chapter 10): one Python object per TensorImpl, as long as that object
// lives. `b = a.view(...)` makes a new impl and so a new object, but anything that hands
// back an impl Python already holds (an in-place operator, a module's parameter read twice,
// t.grad read twice) hands back the same object, so `is`, id() and attributes set on the
// object behave as a PyTorch user expects.
//
// The cache maps an impl's address to its object without owning a reference: the object
// owns a handle to the impl (so the address cannot be reused while the entry exists), and
// the object's PyTensor takes the entry out in its destructor, which pybind11 runs when the
// object dies. A weak reference with a callback would do the same at the price of two more
// Python objects per tensor, and per-call overhead is what a binding is measured by. Only
// code holding the GIL touches the cache.
#include <unordered_map>

#include "casters.h"

namespace kael::python {
namespace {

// Leaked on purpose: objects can die during interpreter shutdown, after static
// destructors would have destroyed the map.
std::unordered_map<const TensorImpl*, PyObject*>& identity_cache() {
    static auto* cache = new std::unordered_map<const TensorImpl*, PyObject*>();
    return *cache;
}

}  // namespace

PyTensor::~PyTensor() {
    if (cached) {
        identity_cache().erase(tensor.impl().get());
    }
}

void remember(const pybind11::object& object) {
    PyTensor& held = object.cast<PyTensor&>();
    const auto [entry, inserted] = identity_cache().emplace(held.tensor.impl().get(), object.ptr());
    KAEL_CHECK(inserted, "this tensor's impl already has a Python object");
    held.cached = true;
}

pybind11::object wrap(const Tensor& t) {
    auto& cache = identity_cache();
    if (const auto found = cache.find(t.impl().get()); found != cache.end()) {
        return pybind11::reinterpret_borrow<pybind11::object>(found->second);
    }
    pybind11::object object = pybind11::cast(PyTensor{t}, pybind11::return_value_policy::move);
    remember(object);
    return object;
}

}  // namespace kael::python
