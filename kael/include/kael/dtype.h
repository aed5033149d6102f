#pragma once
/// \file
/// \brief Element types and devices: the DType and Device enums, their tables, the traits
/// between DType and C++ types, value conversion, promotion, and the dispatch family.
///
/// A tensor's element type is a runtime value (ADR 0001). Code that touches elements gets
/// the C++ type back through dispatch(), which calls a templated lambda with it.

#include <cstdint>
#include <limits>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "kael/error.h"

namespace kael {

/// The element type of a tensor.
// Bool is stored as one std::uint8_t holding 0 or 1: sizeof(bool) is implementation
// defined, and std::vector<bool> packs bits, so it cannot hand out element pointers.
enum class DType { F32, F64, I64, Bool };

/// Where a tensor's bytes live.
enum class Device { CPU, CUDA };

// Every switch over DType or Device below lists all enumerators and has no default branch:
// -Wswitch (part of -Wall) then names each switch that a new enumerator must extend.

/// Bytes per element: 4 for F32, 8 for F64 and I64, 1 for Bool.
constexpr std::int64_t element_size(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return 4;
    case DType::F64:
    case DType::I64:
        return 8;
    case DType::Bool:
        return 1;
    }
    detail::unreachable();
}

/// The dtype's name as PyTorch spells it: "float32", "float64", "int64", "bool".
constexpr std::string_view to_string(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return "float32";
    case DType::F64:
        return "float64";
    case DType::I64:
        return "int64";
    case DType::Bool:
        return "bool";
    }
    detail::unreachable();
}

/// The device's name: "cpu" or "cuda".
constexpr std::string_view to_string(Device device) {
    switch (device) {
    case Device::CPU:
        return "cpu";
    case Device::CUDA:
        return "cuda";
    }
    detail::unreachable();
}

/// Writes the dtype's name, so `std::cout << DType::I64` prints "int64".
inline std::ostream& operator<<(std::ostream& os, DType dtype) { return os << to_string(dtype); }

/// Writes the device's name.
inline std::ostream& operator<<(std::ostream& os, Device device) {
    return os << to_string(device);
}

/// True for F32 and F64.
constexpr bool is_floating_point(DType dtype) {
    switch (dtype) {
    case DType::F32:
    case DType::F64:
        return true;
    case DType::I64:
    case DType::Bool:
        return false;
    }
    detail::unreachable();
}

/// The kind of number a dtype holds, ordered: 0 for Bool, 1 for I64, 2 for F32 and F64.
/// Scalars and 0-d tensors only change a result's dtype when their category is higher.
constexpr int dtype_category(DType dtype) {
    switch (dtype) {
    case DType::Bool:
        return 0;
    case DType::I64:
        return 1;
    case DType::F32:
    case DType::F64:
        return 2;
    }
    detail::unreachable();
}

/// The dtype two operands promote to: the higher of the two in Bool < I64 < F32 < F64.
constexpr DType promote_types(DType a, DType b) {
    // The rank is spelled out instead of using the enumerators' numeric values, so that
    // reordering the enum can never silently change promotion.
    constexpr auto rank = [](DType dtype) {
        switch (dtype) {
        case DType::Bool:
            return 0;
        case DType::I64:
            return 1;
        case DType::F32:
            return 2;
        case DType::F64:
            return 3;
        }
        detail::unreachable();
    };
    return rank(a) >= rank(b) ? a : b;
}

//> stage 6
/// True when a result of dtype `from` may be written into a tensor of dtype `to` by an
/// in-place operation: never from floating point to an integer or Bool, and never from a
/// number to Bool (PyTorch's can_cast).
constexpr bool can_cast(DType from, DType to) {
    if (is_floating_point(from) && !is_floating_point(to)) {
        return false;
    }
    return from == DType::Bool || to != DType::Bool;
}

//< stage 6
// ---------------------------------------------------------------------------------------
// Traits between DType values and C++ element types.

/// Maps a C++ element type to its DType: dtype_of_v<float> is DType::F32. Only the four
/// element types have a definition, so dtype_of_v<int> does not compile.
template <typename T> struct dtype_of;
/// \cond SPECIALIZATIONS
template <> struct dtype_of<float> {
    static constexpr DType value = DType::F32;
};
template <> struct dtype_of<double> {
    static constexpr DType value = DType::F64;
};
template <> struct dtype_of<std::int64_t> {
    static constexpr DType value = DType::I64;
};
template <> struct dtype_of<std::uint8_t> {
    static constexpr DType value = DType::Bool;
};
/// \endcond
/// Shorthand for dtype_of<T>::value.
template <typename T> inline constexpr DType dtype_of_v = dtype_of<T>::value;

/// True for the four C++ types that a kael tensor can hold.
template <typename T>
concept ElementType = requires { dtype_of<T>::value; };

/// Maps a DType to its C++ element type: cpp_type_t<DType::I64> is std::int64_t.
template <DType D> struct cpp_type;
/// \cond SPECIALIZATIONS
template <> struct cpp_type<DType::F32> {
    using type = float;
};
template <> struct cpp_type<DType::F64> {
    using type = double;
};
template <> struct cpp_type<DType::I64> {
    using type = std::int64_t;
};
template <> struct cpp_type<DType::Bool> {
    using type = std::uint8_t;
};
/// \endcond
/// Shorthand for cpp_type<D>::type.
template <DType D> using cpp_type_t = typename cpp_type<D>::type;

// ---------------------------------------------------------------------------------------
// Converting values between element types.

/// Converts a floating value to an integer type without undefined behavior: NaN becomes 0,
/// values below the range become the minimum and values above it the maximum (the rules of
/// Rust's `as`). In range, the value is truncated toward zero.
template <typename To, typename From> constexpr To saturating_cast(From value) {
    static_assert(std::is_integral_v<To> && std::is_floating_point_v<From>);
    if (value != value) {  // only NaN differs from itself; std::isnan is not constexpr
        return To{0};
    }
    // The minimum of a signed integer type is minus a power of two, which every floating
    // type represents exactly, and so is its negation. The maximum (2^63 - 1 for int64) is
    // not representable: it would round up to 2^63 and let 2^63 slip through to the cast.
    constexpr From lowest = static_cast<From>(std::numeric_limits<To>::min());
    if (value <= lowest) {
        return std::numeric_limits<To>::min();
    }
    if (value >= -lowest) {
        return std::numeric_limits<To>::max();
    }
    return static_cast<To>(value);
}

/// Converts one value to the element type `To`. Every value that enters a tensor passes
/// through here: a Bool target stores 1 for any non-zero value (a plain cast would turn 2.5
/// into the invalid byte 2), and a floating value going to an integer type saturates.
template <typename To, typename From> constexpr To convert_value(From value) {
    if constexpr (std::is_same_v<To, std::uint8_t>) {
        return value != From{0} ? To{1} : To{0};
    } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
        return saturating_cast<To>(value);
    } else {
        return static_cast<To>(value);
    }
}

// ---------------------------------------------------------------------------------------
// Dispatch: from a runtime dtype back to a compile-time C++ type.

/// Calls `f.template operator()<T>()` with T the C++ type of `dtype`, and returns its
/// result. `f` is a lambda with a template parameter list: `[&]<typename T>() { ... }`.
/// All four instantiations must return the same type (void is fine).
template <typename F> decltype(auto) dispatch(DType dtype, F&& f) {
    switch (dtype) {
    case DType::F32:
        return f.template operator()<float>();
    case DType::F64:
        return f.template operator()<double>();
    case DType::I64:
        return f.template operator()<std::int64_t>();
    case DType::Bool:
        return f.template operator()<std::uint8_t>();
    }
    detail::unreachable();
}

/// Like dispatch, but instantiates only float and double. Other dtypes throw TypeError:
/// "<op> only supports floating point dtypes, got <dtype>".
template <typename F> decltype(auto) dispatch_floating(DType dtype, std::string_view op, F&& f) {
    switch (dtype) {
    case DType::F32:
        return f.template operator()<float>();
    case DType::F64:
        return f.template operator()<double>();
    case DType::I64:
    case DType::Bool:
        break;
    }
    KAEL_CHECK_TYPE(is_floating_point(dtype),
                    op << " only supports floating point dtypes, got " << dtype);
    detail::unreachable();
}

/// Like dispatch, but instantiates float, double and std::int64_t. Bool throws TypeError:
/// "<op> does not support dtype bool".
template <typename F> decltype(auto) dispatch_no_bool(DType dtype, std::string_view op, F&& f) {
    switch (dtype) {
    case DType::F32:
        return f.template operator()<float>();
    case DType::F64:
        return f.template operator()<double>();
    case DType::I64:
        return f.template operator()<std::int64_t>();
    case DType::Bool:
        break;
    }
    KAEL_CHECK_TYPE(dtype != DType::Bool, op << " does not support dtype " << dtype);
    detail::unreachable();
}

}  // namespace kael
