#pragma once
/// \file
/// \brief Element types and devices: the DType and Device enums, their tables, the traits
/// between DType and C++ types, value conversion, promotion, and the dispatch family.
///
/// A tensor's element type is a runtime value (ADR 0001). Code that touches elements gets
/// the C++ type back through dispatch(), which calls a templated lambda with it.

#include <cstddef>
#include <cstdint>
#include <iterator>
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

// ---------------------------------------------------------------------------------------
// The dtype table: the one place that lists what each dtype is. A fifth dtype is one more
// enumerator, one more row here, its C++ type in the traits below, and one more case in
// detail::dispatch_accepted at the end of this file.

namespace detail {

/// What one dtype is: a row of kDTypeTable.
struct DTypeRow {
    DType dtype;            ///< the enumerator this row describes
    std::string_view name;  ///< the name as PyTorch spells it
    std::int64_t size;      ///< bytes per element
    bool floating;          ///< true for the floating-point dtypes
    int category;           ///< the kind of number: Bool 0 < integer 1 < floating 2 (chapter 04)
    int rank;               ///< promote_types picks the operand of higher rank
};

/// One row per dtype, in the order of the enumerators (checked below).
inline constexpr DTypeRow kDTypeTable[] = {
    {DType::F32, "float32", 4, true, 2, 2},
    {DType::F64, "float64", 8, true, 2, 3},
    {DType::I64, "int64", 8, false, 1, 1},
    {DType::Bool, "bool", 1, false, 0, 0},
};

/// True when row i of kDTypeTable describes the enumerator with value i.
constexpr bool table_follows_the_enum() {
    for (std::size_t i = 0; i < std::size(kDTypeTable); ++i) {
        if (static_cast<std::size_t>(kDTypeTable[i].dtype) != i) {
            return false;
        }
    }
    return true;
}
static_assert(table_follows_the_enum(), "kDTypeTable must list the dtypes in enum order");

/// The row of `dtype`. A value outside the enumerators (a bad cast) is unreachable().
constexpr const DTypeRow& row(DType dtype) {
    const auto index = static_cast<std::size_t>(dtype);
    if (index >= std::size(kDTypeTable)) {
        unreachable();  // a corrupted value (a bad cast), never a real dtype
    }
    return kDTypeTable[index];
}

}  // namespace detail

/// Bytes per element: 4 for F32, 8 for F64 and I64, 1 for Bool.
constexpr std::int64_t element_size(DType dtype) { return detail::row(dtype).size; }

/// The dtype's name as PyTorch spells it: "float32", "float64", "int64", "bool".
constexpr std::string_view to_string(DType dtype) { return detail::row(dtype).name; }

/// The device's name: "cpu" or "cuda".
// Every switch over DType or Device lists all enumerators and has no default branch:
// -Wswitch (part of -Wall) then names each switch that a new enumerator must extend.
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
constexpr bool is_floating_point(DType dtype) { return detail::row(dtype).floating; }

/// The kind of number a dtype holds, ordered: 0 for Bool, 1 for I64, 2 for F32 and F64.
/// Scalars and 0-d tensors only change a result's dtype when their category is higher.
constexpr int dtype_category(DType dtype) { return detail::row(dtype).category; }

/// The dtype two operands promote to: the higher of the two in Bool < I64 < F32 < F64.
// The rank is a column of the table rather than the enumerators' numeric values, so that
// reordering the enum can never silently change promotion.
constexpr DType promote_types(DType a, DType b) { return detail::row(a).rank >= detail::row(b).rank ? a : b; }

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

namespace detail {

/// dispatch() instantiates its lambda for every element type.
struct AnyElement {
    /// Every element type is accepted.
    template <typename T> static constexpr bool accepts = true;
};
/// dispatch_floating() instantiates its lambda for float and double only.
struct FloatingElement {
    /// True for float and double.
    template <typename T> static constexpr bool accepts = std::is_floating_point_v<T>;
};
/// dispatch_no_bool() instantiates its lambda for every type but Bool's.
struct NumericElement {
    /// False only for std::uint8_t, the storage of Bool.
    template <typename T> static constexpr bool accepts = !std::is_same_v<T, std::uint8_t>;
};

/// The one switch from a runtime dtype to a C++ type, behind the three dispatch functions.
/// Only the types `Accepted` accepts instantiate `f`, so a lambda that makes no sense for
/// Bool is never compiled for it; the callers refuse the other dtypes before they get here.
template <typename Accepted, typename F> decltype(auto) dispatch_accepted(DType dtype, F&& f) {
    switch (dtype) {
    case DType::F32:
        if constexpr (Accepted::template accepts<float>) {
            return f.template operator()<float>();
        }
        break;
    case DType::F64:
        if constexpr (Accepted::template accepts<double>) {
            return f.template operator()<double>();
        }
        break;
    case DType::I64:
        if constexpr (Accepted::template accepts<std::int64_t>) {
            return f.template operator()<std::int64_t>();
        }
        break;
    case DType::Bool:
        if constexpr (Accepted::template accepts<std::uint8_t>) {
            return f.template operator()<std::uint8_t>();
        }
        break;
    }
    unreachable();
}

}  // namespace detail

/// Calls `f.template operator()<T>()` with T the C++ type of `dtype`, and returns its
/// result. `f` is a lambda with a template parameter list: `[&]<typename T>() { ... }`.
/// All four instantiations must return the same type (void is fine).
template <typename F> decltype(auto) dispatch(DType dtype, F&& f) {
    return detail::dispatch_accepted<detail::AnyElement>(dtype, f);
}

/// Like dispatch, but instantiates only float and double. Other dtypes throw TypeError:
/// "<op> only supports floating point dtypes, got <dtype>".
template <typename F> decltype(auto) dispatch_floating(DType dtype, std::string_view op, F&& f) {
    KAEL_CHECK_TYPE(is_floating_point(dtype), op << " only supports floating point dtypes, got " << dtype);
    return detail::dispatch_accepted<detail::FloatingElement>(dtype, f);
}

/// Like dispatch, but instantiates float, double and std::int64_t. Bool throws TypeError:
/// "<op> does not support dtype bool".
template <typename F> decltype(auto) dispatch_no_bool(DType dtype, std::string_view op, F&& f) {
    KAEL_CHECK_TYPE(dtype != DType::Bool, op << " does not support dtype " << dtype);
    return detail::dispatch_accepted<detail::NumericElement>(dtype, f);
}

}  // namespace kael
