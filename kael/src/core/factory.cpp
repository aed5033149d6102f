#include "kael/factory.h"

#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "core/device_backend.h"
#include "kael/checked_math.h"
//> stage 11
#include "kael/storage.h"
#include "kael/tensor_impl.h"
//< stage 11

namespace kael {
namespace {

bool fits_int64(double value) { return value >= -0x1p63 && value < 0x1p63; }

}  // namespace

Tensor empty(const Shape& shape, DType dtype, Device device) {
    // numel can fit in int64 while numel * element_size does not: [2^61, 2] in float64.
    const std::int64_t bytes =
        detail::checked_mul(numel(shape), element_size(dtype), "tensor size in bytes");

    auto impl = std::make_shared<TensorImpl>();
    impl->storage = std::make_shared<Storage>(bytes, device);
    impl->shape = shape;
    impl->strides = contiguous_strides(shape);
    impl->dtype = dtype;
    impl->device = device;
    return Tensor::from_impl(std::move(impl));
}

//> until 5
//| Tensor full(const Shape& shape, double value, DType dtype, Device device) {
//< until 5
//> stage 5
Tensor full(const Shape& shape, Scalar value, DType dtype, Device device) {
//< stage 5
    Tensor t = empty(shape, dtype, device);
    dispatch(dtype, [&]<typename T>() {
//> until 5
//|         const T converted = convert_value<T>(value);
//< until 5
//> stage 5
        const T converted = value.as<T>();
//< stage 5
        if (device == Device::CPU) {
            std::fill_n(t.data_ptr<T>(), t.numel(), converted);
        } else {
            device::fill(dtype, t.device_data(), t.numel(), &converted);
        }
    });
    return t;
}

Tensor zeros(const Shape& shape, DType dtype, Device device) { return full(shape, 0, dtype, device); }

Tensor ones(const Shape& shape, DType dtype, Device device) { return full(shape, 1, dtype, device); }

Tensor empty_like(const Tensor& like) { return empty(like.shape(), like.dtype(), like.device()); }

Tensor zeros_like(const Tensor& like) { return zeros(like.shape(), like.dtype(), like.device()); }

Tensor ones_like(const Tensor& like) { return ones(like.shape(), like.dtype(), like.device()); }

Tensor arange(double end, DType dtype) { return arange(0.0, end, 1.0, dtype); }

Tensor arange(double start, double end, double step, DType dtype) {
    return dispatch_no_bool(dtype, "arange", [&]<typename T>() {
        KAEL_CHECK_VALUE(std::isfinite(start) && std::isfinite(end) && std::isfinite(step),
                         "arange needs finite arguments, got start=" << start << ", end=" << end
                                                                      << ", step=" << step);
        KAEL_CHECK_VALUE(step != 0.0, "arange step must be non-zero");
        KAEL_CHECK_VALUE((step > 0.0 && end >= start) || (step < 0.0 && end <= start),
                         "arange step " << step << " points away from end " << end
                                        << " (start " << start << ")");
        const double count = std::ceil((end - start) / step);
        // Doubles at or above 2^63 do not fit in int64; empty() rejects anything that large
        // anyway, so cap here only to keep the cast defined.
        KAEL_CHECK_VALUE(count < 0x1p62, "arange would produce " << count << " values");
        Tensor t = empty({static_cast<std::int64_t>(count)}, dtype);
        T* out = t.data_ptr<T>();
        const std::int64_t n = t.numel();
        if constexpr (std::is_integral_v<T>) {
            // Every value lies between start and end, so bounds that fit in int64 keep the
            // integer arithmetic below free of overflow.
            KAEL_CHECK_VALUE(fits_int64(start) && fits_int64(end),
                             "arange bounds " << start << " and " << end
                                              << " do not fit in int64");
            // Integer results step exactly from start and step truncated toward zero. A
            // step that truncates to 0 would repeat the first value `count` times; PyTorch
            // refuses it as a zero step, and so does kael.
            const auto first = saturating_cast<T>(start);
            const auto delta = saturating_cast<T>(step);
            KAEL_CHECK_VALUE(delta != 0, "arange step " << step
                                                        << " truncates to 0 for an integer dtype");
            for (std::int64_t i = 0; i < n; ++i) {
                out[i] = first + static_cast<T>(i) * delta;
            }
        } else {
            // start + i * step, not an accumulated sum, which would add one rounding error
            // per element.
            for (std::int64_t i = 0; i < n; ++i) {
                out[i] = static_cast<T>(start + static_cast<double>(i) * step);
            }
        }
        return t;
    });
}

Tensor linspace(double start, double end, std::int64_t steps, DType dtype) {
    return dispatch_floating(dtype, "linspace", [&]<typename T>() {
        KAEL_CHECK_VALUE(steps >= 0, "linspace needs a non-negative number of steps, got "
                                         << steps);
        Tensor t = empty({steps}, dtype);
        T* out = t.data_ptr<T>();
        if (steps == 1) {
            out[0] = static_cast<T>(start);
        } else if (steps > 1) {
            const auto first = static_cast<T>(start);
            const auto last = static_cast<T>(end);
            const T delta = (last - first) / static_cast<T>(steps - 1);
            // As PyTorch does: the first half counts up from start and the second half
            // counts down from end, so both ends are exact and the error stays symmetric.
            const std::int64_t halfway = steps / 2;
            for (std::int64_t i = 0; i < steps; ++i) {
                out[i] = i < halfway ? first + delta * static_cast<T>(i)
                                     : last - delta * static_cast<T>(steps - 1 - i);
            }
        }
        return t;
    });
}

Tensor eye(std::int64_t n, DType dtype) {
    KAEL_CHECK_VALUE(n >= 0, "eye needs a non-negative size, got " << n);
    Tensor t = zeros({n, n}, dtype);
    dispatch(dtype, [&]<typename T>() {
        T* out = t.data_ptr<T>();
        for (std::int64_t i = 0; i < n; ++i) {
            out[i * n + i] = T{1};
        }
    });
    return t;
}

//> until 5
//| Tensor scalar(double value, DType dtype) { return full({}, value, dtype); }
//< until 5
//> stage 5
Tensor scalar(Scalar value, DType dtype) { return full({}, value, dtype); }
//< stage 5

namespace detail {

Tensor empty_for_values(std::int64_t count, const Shape& shape, DType dtype) {
    const std::int64_t expected = numel(shape);
    KAEL_CHECK_VALUE(count == expected, "from_vector got " << count << " values for shape "
                                                           << to_string(shape) << " with "
                                                           << expected << " elements");
    return empty(shape, dtype);
}

}  // namespace detail

Tensor from_vector(const std::vector<bool>& data, const Shape& shape) {
    Tensor t = detail::empty_for_values(static_cast<std::int64_t>(data.size()), shape, DType::Bool);
    std::copy(data.begin(), data.end(), t.data_ptr<std::uint8_t>());  // bool -> 0 or 1
    return t;
}

Tensor from_vector(const std::vector<bool>& data) {
    return from_vector(data, Shape{static_cast<std::int64_t>(data.size())});
}

Tensor from_vector(std::initializer_list<bool> data, const Shape& shape) {
    return from_vector(std::vector<bool>(data), shape);
}

Tensor from_vector(std::initializer_list<bool> data) { return from_vector(std::vector<bool>(data)); }
//> stage 11

Tensor from_external(std::byte* data, const Shape& shape, const Strides& strides, DType dtype,
                     std::shared_ptr<void> owner) {
    // From the first element to the end of the last: the last starts at sum((size - 1) * stride).
    std::int64_t last = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] > 0) {
            last = detail::checked_add(last, detail::checked_mul(shape[d] - 1, strides[d], "external tensor extent"),
                                       "external tensor extent");
        }
    }
    const std::int64_t nbytes =
        numel(shape) == 0 ? 0
                          : detail::checked_mul(detail::checked_add(last, 1, "external tensor extent"),
                                                element_size(dtype), "external tensor extent");
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = std::make_shared<Storage>(Storage::external(data, nbytes, std::move(owner)));
    impl->shape = shape;
    impl->strides = strides;
    impl->dtype = dtype;
    impl->device = Device::CPU;
    return Tensor::from_impl(std::move(impl));
}
//< stage 11

}  // namespace kael
