// NumPy without copies, both ways (chapter 10).
//
// t.numpy() is an array over the tensor's own bytes whose base owns the tensor's storage, so
// the bytes live as long as the array does, whatever happens to the tensor afterwards:
// move_to_, set_ and Module.to give a tensor a new storage in place, and an array that
// kept only the tensor alive would then read memory the allocator has handed to someone
// else. After such a move the array and the tensor simply stop sharing memory, as a NumPy
// array and a PyTorch tensor stop sharing after t.data = other. kael.from_numpy(a) is a tensor over the
// array's bytes through external storage (Storage::external) whose owner holds a reference
// to the array: the array lives until the last tensor over it dies. NumPy counts strides in
// bytes and kael in elements; an array kael cannot describe (a dtype it lacks, a negative
// or fractional stride, a misaligned buffer, read-only memory) is refused with the reason,
// and kael.tensor(a) copies it instead.
#include <pybind11/numpy.h>

#include <memory>
#include <string>

#include "bindings.h"
#include "casters.h"

namespace kael::python {
namespace py = pybind11;
namespace {

py::dtype numpy_dtype(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return py::dtype::of<float>();
    case DType::F64:
        return py::dtype::of<double>();
    case DType::I64:
        return py::dtype::of<std::int64_t>();
    case DType::Bool:
        return py::dtype::of<bool>();
    }
    detail::unreachable();
}

// The kael dtype of a NumPy array, or TypeError naming the ones kael has.
DType kael_dtype(const py::array& array) {
    const py::dtype dtype = array.dtype();
    const char kind = dtype.kind();
    const auto size = dtype.itemsize();
    KAEL_CHECK_TYPE(dtype.attr("isnative").cast<bool>(),
                    "can't convert a NumPy array of non-native byte order; use a.astype(a.dtype.newbyteorder('='))");
    if (kind == 'f' && size == 4) {
        return DType::F32;
    }
    if (kind == 'f' && size == 8) {
        return DType::F64;
    }
    if (kind == 'i' && size == 8) {
        return DType::I64;
    }
    if (kind == 'b') {
        return DType::Bool;
    }
    throw TypeError("can't convert np.ndarray of type numpy." + dtype.attr("name").cast<std::string>() +
                    ". The only supported types are: float64, float32, int64, and bool; kael.tensor(a) converts "
                    "the others");
}

// A Python object that keeps `storage` alive until NumPy drops it: the array's base.
py::capsule storage_owner(std::shared_ptr<Storage> storage) {
    auto* held = new std::shared_ptr<Storage>(std::move(storage));
    return py::capsule(held, [](void* owner) { delete static_cast<std::shared_ptr<Storage>*>(owner); });
}

py::array to_numpy(const Tensor& t) {
    KAEL_CHECK_TYPE(t.device() == Device::CPU, "can't convert a " << t.device()
                                                                   << " tensor to numpy; use Tensor.cpu() to copy it "
                                                                      "to host memory first");
    KAEL_CHECK(!t.requires_grad(),
               "can't call numpy() on a tensor that requires grad; use tensor.detach().numpy() instead");
    std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
    std::vector<py::ssize_t> strides;
    for (const std::int64_t stride : t.strides()) {
        strides.push_back(static_cast<py::ssize_t>(stride * element_size(t.dtype())));
    }
    // The base holds the storage the tensor has now, not the tensor, whose storage may change.
    return py::array(numpy_dtype(t.dtype()), shape, strides, t.numel() == 0 ? nullptr : t.data_ptr_raw(),
                     storage_owner(t.impl()->storage));
}

// Bool tensors hold only the bytes 0 and 1 (the kernels rely on it), but a NumPy bool array
// may hold any byte, written through a view of another dtype. Sharing cannot normalise
// such an array without writing into the caller's memory, so it is refused.
void check_bool_bytes(const py::array& array) {
    const py::module_ numpy = py::module_::import("numpy");
    const py::object bytes = array.attr("view")(numpy.attr("uint8"));
    const bool stray = numpy.attr("any")(numpy.attr("greater")(bytes, 1)).cast<bool>();
    KAEL_CHECK_VALUE(!stray, "the NumPy bool array holds bytes other than 0 and 1, which a kael bool tensor "
                             "cannot share; kael.tensor(a) copies it as a != 0");
}

Tensor from_numpy(const py::object& object) {
    KAEL_CHECK_TYPE(py::isinstance<py::array>(object),
                    "expected np.ndarray (got " << std::string(py::str(py::type::of(object).attr("__name__"))) << ")");
    auto array = py::reinterpret_borrow<py::array>(object);
    const DType dtype = kael_dtype(array);
    const std::int64_t itemsize = element_size(dtype);
    if (dtype == DType::Bool) {
        check_bool_bytes(array);
    }
    KAEL_CHECK_VALUE(array.writeable(), "the NumPy array is read-only, and a tensor over it would let writes "
                                        "through; pass a.copy(), or kael.tensor(a) to copy it");
    Shape shape;
    Strides strides;
    for (py::ssize_t d = 0; d < array.ndim(); ++d) {
        const auto stride = static_cast<std::int64_t>(array.strides(d));
        KAEL_CHECK_VALUE(stride >= 0, "At least one stride in the given numpy array is negative, and tensors with "
                                      "negative strides are not supported; pass a.copy(), or kael.tensor(a)");
        KAEL_CHECK_VALUE(stride % itemsize == 0, "a stride of " << stride << " bytes is not a multiple of the element "
                                                                   "size " << itemsize << "; pass a.copy()");
        shape.push_back(static_cast<std::int64_t>(array.shape(d)));
        strides.push_back(stride / itemsize);
    }
    auto* data = static_cast<std::byte*>(array.mutable_data());
    KAEL_CHECK_VALUE(reinterpret_cast<std::uintptr_t>(data) % static_cast<std::uintptr_t>(itemsize) == 0,
                     "the NumPy array's data is not aligned to its " << itemsize << "-byte elements; pass a.copy()");
    // The owner is one reference to the array, dropped with the GIL held, from whatever
    // thread frees the last tensor over it.
    std::shared_ptr<void> owner(array.inc_ref().ptr(), [](void* held) {
        if (Py_IsInitialized() != 0) {
            const py::gil_scoped_acquire gil;
            Py_DECREF(static_cast<PyObject*>(held));
        }
    });
    return from_external(data, shape, strides, dtype, std::move(owner));
}

}  // namespace

void bind_numpy(py::module_& m, py::class_<PyTensor>& tensor) {
    tensor.def("numpy", &to_numpy)
        .def("__array__", [](const Tensor& self, const py::object& dtype) {
            const py::array array = to_numpy(self);
            return dtype.is_none() ? array : py::array(array.attr("astype")(dtype));
        }, py::arg("dtype") = py::none());
    m.def("from_numpy", &from_numpy, py::arg("array"),
          "A tensor sharing the memory of a NumPy array of float32, float64, int64 or bool");
}

}  // namespace kael::python
