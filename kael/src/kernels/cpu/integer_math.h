#pragma once
// Integer arithmetic with defined results everywhere. Signed overflow is undefined
// behavior in C++, so these compute in unsigned arithmetic, which wraps around modulo
// 2^64, and convert back (well defined since C++20). For floating types they are the
// plain operators. Chapter 05 explains the rules; tests/test_integer_overflow.cpp pins them.

#include <cstdint>
#include <limits>
#include <type_traits>

namespace kael::detail {

template <typename T> constexpr T wrapping_add(T a, T b) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
        return static_cast<T>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    } else {
        return static_cast<T>(a + b);
    }
}

template <typename T> constexpr T wrapping_sub(T a, T b) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
        return static_cast<T>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
    } else {
        return static_cast<T>(a - b);
    }
}

template <typename T> constexpr T wrapping_mul(T a, T b) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
        return static_cast<T>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    } else {
        return static_cast<T>(a * b);
    }
}

template <typename T> constexpr T wrapping_neg(T a) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
        return wrapping_sub(T{0}, a);
    } else {
        return -a;  // keeps the sign of zero: -(0.0) is -0.0
    }
}

/// Floor division of integers: the quotient rounded toward negative infinity. The caller
/// has ruled out b == 0. INT64_MIN // -1 wraps to INT64_MIN instead of trapping.
constexpr std::int64_t floor_divide_int(std::int64_t a, std::int64_t b) {
    if (b == -1) {
        return wrapping_neg(a);
    }
    const std::int64_t quotient = a / b;  // truncates toward zero
    const bool inexact = quotient * b != a;
    return inexact && ((a < 0) != (b < 0)) ? quotient - 1 : quotient;
}

/// The remainder with the sign of the divisor. The caller has ruled out b == 0.
constexpr std::int64_t remainder_int(std::int64_t a, std::int64_t b) {
    if (b == -1) {
        return 0;  // a % -1 is 0, but INT64_MIN % -1 traps on x86
    }
    const std::int64_t r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

/// a^b by repeated squaring, wrapping on overflow. A negative exponent gives 0, except for
/// bases 1 and -1, as in PyTorch.
constexpr std::int64_t pow_int(std::int64_t base, std::int64_t exponent) {
    if (exponent < 0) {
        if (base == 1) {
            return 1;
        }
        if (base == -1) {
            return exponent % 2 == 0 ? 1 : -1;
        }
        return 0;
    }
    std::int64_t result = 1;
    while (exponent > 0) {
        if (exponent & 1) {
            result = wrapping_mul(result, base);
        }
        base = wrapping_mul(base, base);
        exponent >>= 1;
    }
    return result;
}

}  // namespace kael::detail
