#pragma once
/// \file
/// \brief Scalar: a plain number with a dtype category, as accepted by factories and by
/// operations with a constant operand (`t + 1`, `full({2}, 2.5)`).

#include <concepts>
#include <cstdint>
#include <variant>

#include "kael/dtype.h"

namespace kael {

/// A number passed where a tensor element is expected. Integers are kept exactly as
/// std::int64_t and floating values as double; the conversion to the element type happens
/// once, where the value is used.
class Scalar {
public:
    // The constructors are implicit so that literals convert at the call site. The bool
    // constructor is a non-template, so true and false prefer it over the std::integral
    // template (bool satisfies std::integral).

    /// A boolean scalar; dtype() is Bool.
    constexpr Scalar(bool value) : value_(std::int64_t{value ? 1 : 0}), dtype_(DType::Bool) {}

    /// An integer scalar, stored exactly; dtype() is I64.
    template <std::integral T>
    constexpr Scalar(T value) : value_(static_cast<std::int64_t>(value)), dtype_(DType::I64) {}

    /// A floating scalar, stored as double; dtype() is F32, the default floating dtype.
    template <std::floating_point T>
    constexpr Scalar(T value) : value_(static_cast<double>(value)), dtype_(DType::F32) {}

    /// The default dtype of the scalar's category: Bool, I64 or F32. It is a category, not
    /// a precision: a floating scalar never raises a float32 tensor to float64.
    [[nodiscard]] constexpr DType dtype() const noexcept { return dtype_; }

    /// True for a scalar built from a floating value.
    [[nodiscard]] constexpr bool is_floating_point() const noexcept {
        return std::holds_alternative<double>(value_);
    }

    /// The value converted to element type T with convert_value.
    template <typename T> [[nodiscard]] constexpr T as() const {
        return std::visit([](auto value) { return convert_value<T>(value); }, value_);
    }

private:
    std::variant<std::int64_t, double> value_;
    DType dtype_;
};

/// The dtype of `tensor op scalar`. The scalar wins only when its category is higher than
/// the tensor's: F32 + 2.5 stays F32, I64 + 2.5 becomes F32, Bool + 3 becomes I64.
constexpr DType promote_with_scalar(DType tensor_dtype, Scalar scalar) {
    return dtype_category(scalar.dtype()) > dtype_category(tensor_dtype) ? scalar.dtype()
                                                                         : tensor_dtype;
}

}  // namespace kael
