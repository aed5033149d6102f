#include "kael/tensor_impl.h"

#include "kael/checked_math.h"

namespace kael {
//> stage 7

TensorImpl::TensorImpl() = default;
TensorImpl::TensorImpl(TensorImpl&&) noexcept = default;
TensorImpl& TensorImpl::operator=(TensorImpl&&) noexcept = default;
TensorImpl::~TensorImpl() = default;

TensorImpl::TensorImpl(const TensorImpl& other)
    : storage(other.storage), shape(other.shape), strides(other.strides), offset(other.offset),
      dtype(other.dtype), device(other.device) {}

TensorImpl& TensorImpl::operator=(const TensorImpl& other) {
    if (this != &other) {
        *this = TensorImpl(other);
    }
    return *this;
}
//< stage 7

namespace {

// With non-negative strides, the furthest element a layout reaches has every index at its
// maximum: offset + sum of (shape[i] - 1) * strides[i]. Every step is overflow-checked, so
// absurd strides cannot wrap around to a small number that passes the comparison.
void check_fits_in_storage(const TensorImpl& impl) {
    std::int64_t last_element = impl.offset;
    for (std::size_t i = 0; i < impl.shape.size(); ++i) {
        const std::int64_t extent =
            detail::checked_mul(impl.shape[i] - 1, impl.strides[i], "tensor extent");
        last_element = detail::checked_add(last_element, extent, "tensor extent");
    }
    const std::int64_t bytes_needed =
        detail::checked_mul(detail::checked_add(last_element, 1, "tensor extent"),
                            element_size(impl.dtype), "tensor extent in bytes");
    KAEL_CHECK(bytes_needed <= impl.storage->nbytes(),
               "tensor with shape " << to_string(impl.shape) << ", strides "
                                    << to_string(impl.strides) << ", offset " << impl.offset
                                    << " and dtype " << impl.dtype << " needs " << bytes_needed
                                    << " bytes but storage has " << impl.storage->nbytes());
}

}  // namespace

bool TensorImpl::is_contiguous() const {
    if (numel() == 0) {
        return true;  // nothing to lay out
    }
    std::int64_t expected_stride = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        // A size-1 dimension is never stepped along, so its stride does not matter.
        if (shape[i] == 1) {
            continue;
        }
        if (strides[i] != expected_stride) {
            return false;
        }
        expected_stride *= shape[i];
    }
    return true;
}

void TensorImpl::validate() const {
    // The order matters: each rule establishes what the next one relies on, and the fit
    // check at the end reads the storage, every stride, and assumes no negative terms.
    KAEL_CHECK(storage != nullptr, "tensor has no storage");
    validate_shape(shape);
    KAEL_CHECK_VALUE(shape.size() == strides.size(),
                     "shape " << to_string(shape) << " and strides " << to_string(strides)
                              << " have different numbers of dimensions");
    for (std::size_t i = 0; i < strides.size(); ++i) {
        KAEL_CHECK_VALUE(strides[i] >= 0, "negative stride " << strides[i] << " at dimension "
                                                             << i << " in strides "
                                                             << to_string(strides));
    }
    KAEL_CHECK_VALUE(offset >= 0, "negative storage offset " << offset);
    KAEL_CHECK(device == storage->device(), "tensor device " << device
                                                             << " does not match storage device "
                                                             << storage->device());
    // An empty tensor reads nothing, so it needs no bytes; the extent formula would also
    // compute shape[i] - 1 = -1 for its zero dimension.
    if (numel() > 0) {
        check_fits_in_storage(*this);
    }
}

}  // namespace kael
