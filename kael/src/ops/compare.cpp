// Comparisons, logical operations, where, and the NaN and closeness tests.
#include "kael/ops/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>

#include "ops/native.h"
#include "ops/elementwise.h"
#include "kael/factory.h"
//> stage 10
#include "ops/device.h"
//< stage 10

namespace kael {
namespace {

template <typename T> bool is_nan(T x) {
    if constexpr (std::is_floating_point_v<T>) {
        return x != x;
    } else {
        return false;
    }
}

//> stage 10
// The device's name for each comparison and logical function (logical_xor of truth values
// is their inequality).
template <typename Compare> constexpr cuda::CompareOp device_compare_op() {
    if constexpr (std::is_same_v<Compare, std::equal_to<>>) {
        return cuda::CompareOp::Eq;
    } else if constexpr (std::is_same_v<Compare, std::not_equal_to<>>) {
        return cuda::CompareOp::Ne;
    } else if constexpr (std::is_same_v<Compare, std::less<>>) {
        return cuda::CompareOp::Lt;
    } else if constexpr (std::is_same_v<Compare, std::less_equal<>>) {
        return cuda::CompareOp::Le;
    } else if constexpr (std::is_same_v<Compare, std::greater<>>) {
        return cuda::CompareOp::Gt;
    } else if constexpr (std::is_same_v<Compare, std::greater_equal<>>) {
        return cuda::CompareOp::Ge;
    } else if constexpr (std::is_same_v<Compare, std::logical_and<>>) {
        return cuda::CompareOp::And;
    } else {
        static_assert(std::is_same_v<Compare, std::logical_or<>>);
        return cuda::CompareOp::Or;
    }
}
//< stage 10

// Each comparison promotes its operands to their result dtype, then writes Bool.
template <typename Compare> Tensor compare(const Tensor& a, const Tensor& b, const char* op, Compare) {
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_compare(device_compare_op<Compare>(), a, b, result_dtype(a, b));
    }
//< stage 10
    return detail::compare_kernel(a, b, result_dtype(a, b), op, []<typename T>() {
        return [](T x, T y) { return static_cast<std::uint8_t>(Compare{}(x, y)); };
    });
}

template <typename Compare> Tensor compare(const Tensor& t, Scalar s, const char* op, Compare c) {
    return compare(t, scalar(s, result_dtype(t, s)), op, c);
}

// The truth value of each element as Bool: non-zero (and NaN) is true.
Tensor truth(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return native::to(t, DType::Bool);  // converted on the device, contiguous
    }
//< stage 10
    return detail::cast_keeping_layout(t, DType::Bool);
}

template <typename Logic> Tensor logical(const Tensor& a, const Tensor& b, const char* op, Logic) {
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_compare(device_compare_op<Logic>(), truth(a), truth(b), DType::Bool);
    }
//< stage 10
    return detail::compare_kernel(truth(a), truth(b), DType::Bool, op, []<typename T>() {
        return [](T x, T y) { return static_cast<std::uint8_t>(Logic{}(x != 0, y != 0)); };
    });
}

// A Bool answer about each element of any dtype.
template <typename Test> Tensor classify(const Tensor& t, Test test) {
    return dispatch(t.dtype(), [&]<typename T>() {
        const TensorIterator iter = TensorIteratorConfig().declare_output(DType::Bool).add_input(t).build();
        run_typed<std::uint8_t, T>(iter, [&](T x) { return static_cast<std::uint8_t>(test(x)); });
        return iter.output();
    });
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return compare(a, b, "eq", std::equal_to<>{}); }
Tensor eq(const Tensor& t, Scalar s) { return compare(t, s, "eq", std::equal_to<>{}); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare(a, b, "ne", std::not_equal_to<>{}); }
Tensor ne(const Tensor& t, Scalar s) { return compare(t, s, "ne", std::not_equal_to<>{}); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare(a, b, "lt", std::less<>{}); }
Tensor lt(const Tensor& t, Scalar s) { return compare(t, s, "lt", std::less<>{}); }
Tensor le(const Tensor& a, const Tensor& b) { return compare(a, b, "le", std::less_equal<>{}); }
Tensor le(const Tensor& t, Scalar s) { return compare(t, s, "le", std::less_equal<>{}); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare(a, b, "gt", std::greater<>{}); }
Tensor gt(const Tensor& t, Scalar s) { return compare(t, s, "gt", std::greater<>{}); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare(a, b, "ge", std::greater_equal<>{}); }
Tensor ge(const Tensor& t, Scalar s) { return compare(t, s, "ge", std::greater_equal<>{}); }

Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator==(const Tensor& t, Scalar s) { return eq(t, s); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator!=(const Tensor& t, Scalar s) { return ne(t, s); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<(const Tensor& t, Scalar s) { return lt(t, s); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator<=(const Tensor& t, Scalar s) { return le(t, s); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>(const Tensor& t, Scalar s) { return gt(t, s); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator>=(const Tensor& t, Scalar s) { return ge(t, s); }

Tensor logical_and(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_and", std::logical_and<>{}); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_or", std::logical_or<>{}); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_xor", std::not_equal_to<>{}); }

Tensor logical_not(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_classify(cuda::ClassifyOp::LogicalNot, t);
    }
//< stage 10
    return classify(t, []<typename T>(T x) { return x == T{0}; });
}

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on this is the operation below autograd: kael::where, what users call, is
// the autograd layer's (autograd/functions/compare.cpp). The comparisons and logical
// operations above return Bool, which never requires grad, so autograd leaves them alone.
namespace kael::native {
//< stage 7

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
    KAEL_CHECK_TYPE(condition.dtype() == DType::Bool,
                    "where expects a bool condition, got a tensor of dtype " << condition.dtype());
    const DType dtype = result_dtype(a, b);
//> stage 10
    if (detail::on_device(condition) || detail::on_device(a) || detail::on_device(b)) {
        return detail::device_where(condition, a, b, dtype);
    }
//< stage 10
    return dispatch(dtype, [&]<typename T>() {
        const TensorIterator iter = TensorIteratorConfig()
                                        .declare_output(dtype)
                                        .add_input(condition)
                                        .add_input(detail::cast_keeping_layout(a, dtype))
                                        .add_input(detail::cast_keeping_layout(b, dtype))
                                        .allow_mixed_input_dtypes()
                                        .build();
        run_typed<T, std::uint8_t, T, T>(iter, [](std::uint8_t c, T x, T y) { return c != 0 ? x : y; });
        return iter.output();
    });
}

}  // namespace

namespace kael {

Tensor isnan(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_classify(cuda::ClassifyOp::IsNan, t);
    }
//< stage 10
    return classify(t, []<typename T>(T x) { return is_nan(x); });
}

Tensor isinf(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_classify(cuda::ClassifyOp::IsInf, t);
    }
//< stage 10
    return classify(t, []<typename T>(T x) {
        if constexpr (std::is_floating_point_v<T>) {
            return std::isinf(x);
        } else {
            return false;
        }
    });
}

Tensor isfinite(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_classify(cuda::ClassifyOp::IsFinite, t);
    }
//< stage 10
    return classify(t, []<typename T>(T x) {
        if constexpr (std::is_floating_point_v<T>) {
            return std::isfinite(x);
        } else {
            return true;
        }
    });
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
    KAEL_CHECK_TYPE(a.dtype() == b.dtype(), "isclose expects both inputs to have the same dtype, got "
                                                << a.dtype() << " and " << b.dtype());
    KAEL_CHECK_VALUE(rtol >= 0 && atol >= 0, "isclose needs non-negative tolerances, got rtol="
                                                 << rtol << " and atol=" << atol);
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        const Device device = detail::device_of(a, b);
        const TensorIterator iter = TensorIteratorConfig()
                                        .declare_output(DType::Bool)
                                        .add_input(detail::input_on(a, device, a.dtype()))
                                        .add_input(detail::input_on(b, device, b.dtype()))
                                        .build();
        cuda::isclose(iter, rtol, atol, equal_nan);
        return iter.output();
    }
//< stage 10
    return detail::compare_kernel(a, b, a.dtype(), "isclose", [&]<typename T>() {
        return [rtol, atol, equal_nan](T x, T y) {
            if constexpr (std::is_same_v<T, std::uint8_t>) {
                return static_cast<std::uint8_t>(x == y);
            } else {
                if (x == y) {
                    return std::uint8_t{1};  // also equal infinities
                }
                if (is_nan(x) || is_nan(y)) {
                    return static_cast<std::uint8_t>(equal_nan && is_nan(x) && is_nan(y));
                }
                const double difference = std::abs(static_cast<double>(x) - static_cast<double>(y));
                const double tolerance = atol + rtol * std::abs(static_cast<double>(y));
                return static_cast<std::uint8_t>(std::isfinite(difference) && difference <= tolerance);
            }
        };
    });
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
//> until 10
//|     const Tensor close = native::contiguous(isclose(a, b, rtol, atol, equal_nan));
//< until 10
//> stage 10
    const Tensor close = native::contiguous(native::to(isclose(a, b, rtol, atol, equal_nan), Device::CPU));
//< stage 10
    const std::uint8_t* flags = close.data_ptr<std::uint8_t>();
    return std::all_of(flags, flags + close.numel(), [](std::uint8_t flag) { return flag != 0; });
}

}  // namespace kael
