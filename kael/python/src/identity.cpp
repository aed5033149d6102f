// The identity cache (chapter 10): one Python object per TensorImpl, as long as that object
// lives. `b = a.view(...)` makes a new impl and so a new object, but anything that hands
// back an impl Python already holds (an in-place operator, a module's parameter read twice,
// t.grad read twice) hands back the same object, so `is`, id() and attributes set on the
// object behave as a PyTorch user expects.
//
// The cache maps an impl's address to its object without owning a reference: the object
// owns a handle to the impl (so the address cannot be reused while the entry exists), and
// a weak reference's callback removes the entry when the object dies. Only code holding
// the GIL touches the cache.
#include <unordered_map>

#include "casters.h"

namespace kael::python {
namespace {

std::unordered_map<const TensorImpl*, PyObject*>& identity_cache() {
    static auto* cache = new std::unordered_map<const TensorImpl*, PyObject*>();  // never destroyed: see below
    return *cache;
}

}  // namespace

// The map is leaked on purpose: weak-reference callbacks can run during interpreter
// shutdown, after static destructors would have destroyed it.
pybind11::object wrap(const Tensor& t) {
    auto& cache = identity_cache();
    const TensorImpl* key = t.impl().get();
    if (const auto found = cache.find(key); found != cache.end()) {
        return pybind11::reinterpret_borrow<pybind11::object>(found->second);
    }
    pybind11::object object = pybind11::cast(PyTensor{t}, pybind11::return_value_policy::move);
    cache.emplace(key, object.ptr());
    const pybind11::cpp_function forget([key](pybind11::handle weak_reference) {
        identity_cache().erase(key);
        weak_reference.dec_ref();
    });
    (void)pybind11::weakref(object, forget).release();  // kept until the callback drops it
    return object;
}

}  // namespace kael::python
