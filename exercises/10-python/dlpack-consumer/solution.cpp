// Reference solution of exercise 10.2.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "exercise.h"
#include "kael/checked_math.h"
#include "kael/error.h"
#include "kael/shape.h"
#include "kael/storage.h"
#include "kael/tensor_impl.h"

namespace exercise {
namespace {

// The kael dtype of a DLPack type: one lane of float32, float64 or int64. DLPack 0.6 has
// no bool, and kDLUInt 8 is uint8, whose values need not be 0 or 1.
kael::DType kael_dtype(const DLDataType& type) {
    KAEL_CHECK_TYPE(type.lanes == 1, "DLPack vector types (" << type.lanes << " lanes) have no kael dtype");
    if (type.code == kDLFloat && type.bits == 32) {
        return kael::DType::F32;
    }
    if (type.code == kDLFloat && type.bits == 64) {
        return kael::DType::F64;
    }
    if (type.code == kDLInt && type.bits == 64) {
        return kael::DType::I64;
    }
    throw kael::TypeError("DLPack dtype (code " + std::to_string(type.code) + ", " + std::to_string(type.bits) +
                          " bits) has no kael dtype; kael takes float32, float64 and int64");
}

// What the storage keeps alive: the loan, handed back to its producer exactly once, when
// the storage lets go of its last reference. It starts unarmed, so that a conversion that
// fails after creating it (an allocation, a validation) gives nothing back: the producer
// still owns what it lent.
struct Loan {
    DLManagedTensor* managed = nullptr;

    Loan() = default;
    Loan(const Loan&) = delete;
    Loan& operator=(const Loan&) = delete;
    ~Loan() {
        if (managed != nullptr && managed->deleter != nullptr) {
            managed->deleter(managed);  // frees `managed` too: nothing may touch it after
        }
    }
};

}  // namespace

kael::Tensor tensor_from_dlpack(DLManagedTensor* managed) {
    KAEL_CHECK_VALUE(managed != nullptr, "from_dlpack needs a DLManagedTensor, got a null pointer");
    const DLTensor& view = managed->dl_tensor;

    // What the memory is: host memory, of a dtype kael has.
    KAEL_CHECK_TYPE(view.device.device_type == kDLCPU,
                    "kael takes DLPack tensors in CPU memory, not of device type " << view.device.device_type
                                                                                   << "; copy it to the host first");
    const kael::DType dtype = kael_dtype(view.dtype);
    const std::int64_t itemsize = kael::element_size(dtype);

    // How it is laid out. Shape and strides are copied: the producer's arrays belong to it.
    KAEL_CHECK_VALUE(view.ndim >= 0, "a DLPack tensor of " << view.ndim << " dimensions");
    KAEL_CHECK_VALUE(view.ndim == 0 || view.shape != nullptr, "a DLPack tensor of " << view.ndim
                                                                                    << " dimensions without a shape");
    const auto ndim = static_cast<std::size_t>(view.ndim);
    kael::Shape shape = ndim == 0 ? kael::Shape{} : kael::Shape(view.shape, view.shape + ndim);
    kael::validate_shape(shape);
    kael::Strides strides = view.strides == nullptr ? kael::contiguous_strides(shape)
                            : ndim == 0             ? kael::Strides{}
                                                    : kael::Strides(view.strides, view.strides + ndim);
    for (const std::int64_t stride : strides) {
        KAEL_CHECK_VALUE(stride >= 0, "DLPack tensors with negative strides (" << kael::to_string(strides)
                                                                              << ") are not supported");
    }
    const bool empty = kael::numel(shape) == 0;

    // Where the first element is: byte_offset bytes past data, on a whole-element boundary.
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(view.data) + view.byte_offset;
    KAEL_CHECK_VALUE(address % static_cast<std::uintptr_t>(itemsize) == 0,
                     "the DLPack tensor's first element is not aligned to its " << itemsize << "-byte elements");
    KAEL_CHECK_VALUE(view.data != nullptr || empty, "a DLPack tensor of shape " << kael::to_string(shape)
                                                                               << " has no data");
    std::byte* data = view.data == nullptr ? nullptr
                                           : static_cast<std::byte*>(view.data) +
                                                 static_cast<std::size_t>(view.byte_offset);

    // The storage covers the first element to the end of the last, in elements and then
    // in bytes; an empty tensor covers nothing.
    std::int64_t nbytes = 0;
    if (!empty) {
        std::int64_t last = 0;
        for (std::size_t d = 0; d < ndim; ++d) {
            last = kael::detail::checked_add(last, kael::detail::checked_mul(shape[d] - 1, strides[d], "DLPack extent"),
                                             "DLPack extent");
        }
        nbytes = kael::detail::checked_mul(kael::detail::checked_add(last, 1, "DLPack extent"), itemsize,
                                           "DLPack extent");
    }

    auto loan = std::make_shared<Loan>();
    auto impl = std::make_shared<kael::TensorImpl>();
    impl->storage = std::make_shared<kael::Storage>(kael::Storage::external(data, nbytes, loan));
    impl->shape = std::move(shape);
    impl->strides = std::move(strides);
    impl->dtype = dtype;
    impl->device = kael::Device::CPU;
    kael::Tensor tensor = kael::Tensor::from_impl(std::move(impl));
    // Nothing can fail any more: from here the loan is kael's to give back.
    loan->managed = managed;
    return tensor;
}

}  // namespace exercise
