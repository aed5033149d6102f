// DLPack (chapter 10): the C struct through which array libraries lend each other memory
// without copying, wrapped in a Python capsule named "dltensor". The producer fills a
// DLManagedTensor (pointer, shape, strides in elements, dtype as a type code and a bit
// width, device) with a deleter that releases what keeps the memory alive; the consumer
// renames the capsule "used_dltensor" and calls the deleter when it no longer needs the
// memory. A capsule nobody consumed calls the deleter itself when it dies.
//
// kael produces (Tensor.__dlpack__, __dlpack_device__) by keeping the tensor's storage in
// the managed struct: the storage the tensor has at the export, not the tensor, whose
// storage move_to_, set_ and Module.to may replace while the consumer still reads the old
// bytes. It consumes (kael.from_dlpack) through external storage whose
// owner calls the producer's deleter. DLPack 0.6 has no bool type (PyTorch 1.13 refuses
// to export bool tensors too), so Bool tensors do not travel this way.
#include <dlpack/dlpack.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "casters.h"

namespace kael::python {
namespace py = pybind11;
namespace {

constexpr const char* kFresh = "dltensor";
constexpr const char* kConsumed = "used_dltensor";

// What a DLManagedTensor of kael's points at: the storage it lends, and the shape and
// strides the struct's pointers refer to.
struct Export {
    explicit Export(const Tensor& t) : storage(t.impl()->storage), shape(t.shape()), strides(t.strides()) {}
    std::shared_ptr<Storage> storage;
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;
    DLManagedTensor managed{};
};

DLDataType dlpack_dtype(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return {kDLFloat, 32, 1};
    case DType::F64:
        return {kDLFloat, 64, 1};
    case DType::I64:
        return {kDLInt, 64, 1};
    case DType::Bool:
        break;
    }
    throw TypeError("bool tensors cannot travel through DLPack 0.6, which has no bool type; convert with "
                    ".to(kael.int64), or share them with NumPy through numpy()");
}

DType kael_dtype(const DLDataType& type) {
    KAEL_CHECK_TYPE(type.lanes == 1, "DLPack vector types (lanes = " << type.lanes << ") have no kael dtype");
    if (type.code == kDLFloat && type.bits == 32) {
        return DType::F32;
    }
    if (type.code == kDLFloat && type.bits == 64) {
        return DType::F64;
    }
    if (type.code == kDLInt && type.bits == 64) {
        return DType::I64;
    }
    throw TypeError("DLPack dtype (code " + std::to_string(type.code) + ", " + std::to_string(type.bits) +
                    " bits) has no kael dtype; kael has float32, float64, int64 and bool");
}

py::capsule to_dlpack(const Tensor& t) {
    KAEL_CHECK(!t.requires_grad(), "can't export a tensor that requires grad through DLPack; use tensor.detach()");
    auto exported = std::make_unique<Export>(t);
    DLTensor& view = exported->managed.dl_tensor;
    view.data = t.numel() == 0 ? nullptr : t.device_data();
    view.device = {t.device() == Device::CPU ? kDLCPU : kDLCUDA, 0};
    view.ndim = static_cast<std::int32_t>(t.dim());
    view.dtype = dlpack_dtype(t.dtype());
    view.shape = exported->shape.data();
    view.strides = exported->strides.data();
    view.byte_offset = 0;
    exported->managed.manager_ctx = exported.get();
    exported->managed.deleter = [](DLManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); };
    if (t.device() != Device::CPU) {
        cuda_synchronize();  // the consumer may read on another stream: finish kael's work first
    }
    DLManagedTensor* managed = &exported.release()->managed;
    return py::capsule(managed, kFresh, [](PyObject* capsule) {
        // Still named "dltensor": nobody took it, so the capsule frees what it holds.
        if (PyCapsule_IsValid(capsule, kFresh) != 0) {
            auto* unused = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kFresh));
            unused->deleter(unused);
        }
    });
}

// As the protocol has a consumer do: ask where the memory lives (__dlpack_device__) before
// asking for the capsule, so that memory kael cannot read is refused before anything is lent.
void check_source_device(const py::object& source) {
    if (!py::hasattr(source, "__dlpack_device__")) {
        return;
    }
    const auto where = source.attr("__dlpack_device__")().cast<std::pair<int, int>>();
    KAEL_CHECK_TYPE(where.first == kDLCPU, "from_dlpack takes CPU memory (DLPack device type "
                                               << where.first << " is not the CPU); copy it to the host first");
}

Tensor from_dlpack(const py::object& source) {
    check_source_device(source);
    const py::object capsule = py::hasattr(source, "__dlpack__") ? source.attr("__dlpack__")() : source;
    KAEL_CHECK_TYPE(PyCapsule_CheckExact(capsule.ptr()) != 0,
                    "from_dlpack expects an object with __dlpack__ or a DLPack capsule, got "
                        << std::string(py::str(py::type::of(source).attr("__name__"))));
    KAEL_CHECK_VALUE(PyCapsule_IsValid(capsule.ptr(), kFresh) != 0,
                     "this DLPack capsule was already consumed; a capsule lends its memory once");
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kFresh));
    const DLTensor& view = managed->dl_tensor;
    // Every check, and building the tensor, come before the capsule is renamed: a refused
    // capsule stays the producer's, and its own destructor frees it.
    KAEL_CHECK_TYPE(view.device.device_type == kDLCPU,
                    "from_dlpack takes CPU memory (DLPack device type " << view.device.device_type
                                                                        << " is not the CPU); copy it to the host first");
    const DType dtype = kael_dtype(view.dtype);
    const std::int64_t itemsize = element_size(dtype);
    KAEL_CHECK_VALUE(view.ndim >= 0 && (view.ndim == 0 || view.shape != nullptr),
                     "malformed DLPack tensor: ndim " << view.ndim << (view.shape == nullptr ? " without a shape" : ""));
    Shape shape(view.shape, view.shape + view.ndim);
    Strides strides = view.strides != nullptr ? Strides(view.strides, view.strides + view.ndim) : contiguous_strides(shape);
    for (std::size_t d = 0; d < shape.size(); ++d) {
        KAEL_CHECK_VALUE(shape[d] >= 0, "malformed DLPack tensor: size " << shape[d] << " at dimension " << d);
        KAEL_CHECK_VALUE(strides[d] >= 0, "DLPack tensors with negative strides are not supported");
    }
    auto* data = static_cast<std::byte*>(view.data) + view.byte_offset;
    KAEL_CHECK_VALUE(reinterpret_cast<std::uintptr_t>(data) % static_cast<std::uintptr_t>(itemsize) == 0,
                     "the DLPack tensor's data is not aligned to its " << itemsize << "-byte elements");
    // The loan calls the producer's deleter once, when the last tensor over the memory dies,
    // with the GIL (a Python producer's deleter drops references); but only once it is armed,
    // after the tensor exists and the capsule is renamed.
    struct Loan {
        explicit Loan(DLManagedTensor* lent) : managed(lent) {}
        DLManagedTensor* managed;
        bool armed = false;
        Loan(const Loan&) = delete;
        Loan& operator=(const Loan&) = delete;
        ~Loan() {
            if (armed && managed->deleter != nullptr && Py_IsInitialized() != 0) {
                const py::gil_scoped_acquire gil;
                managed->deleter(managed);
            }
        }
    };
    auto loan = std::make_shared<Loan>(managed);
    Tensor tensor = from_external(data, shape, strides, dtype, loan);
    if (PyCapsule_SetName(capsule.ptr(), kConsumed) != 0) {
        throw py::error_already_set();
    }
    loan->armed = true;
    return tensor;
}

}  // namespace

void bind_dlpack(py::module_& m, py::class_<PyTensor>& tensor) {
    tensor
        .def("__dlpack__", [](const Tensor& t, const py::object& /*stream*/) { return to_dlpack(t); },
             py::arg("stream") = py::none())
        .def("__dlpack_device__", [](const Tensor& t) {
            return py::make_tuple(static_cast<int>(t.device() == Device::CPU ? kDLCPU : kDLCUDA), 0);
        });
    m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"),
          "A tensor over the memory of any object with __dlpack__ (NumPy, PyTorch, kael), without a copy");
    m.def("to_dlpack", &to_dlpack, py::arg("tensor"), "A DLPack capsule lending the tensor's memory");
}

}  // namespace kael::python
