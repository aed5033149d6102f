#pragma once
/// \file
/// \brief The pieces every element-wise kernel is made of: the result dtype of its
/// operands, and run_typed, which runs a typed lambda over a TensorIterator.
///
/// A kernel reads: pick the result dtype, cast the inputs to it, build the iterator, and
/// dispatch to a lambda that calls run_typed with the element function:
///
///     dispatch(dtype, [&]<typename T>() {
///         run_typed<T, T, T>(iter, [](T a, T b) { return a + b; });
///     });

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <utility>

#include "kael/dtype.h"
#include "kael/iterator.h"
#include "kael/scalar.h"
#include "kael/tensor.h"

namespace kael {

/// Combines the dtype from a higher-priority group of operands with the one from a lower
/// group, as PyTorch does: the lower group only matters when it is of a higher category
/// (Bool < integer < floating), or when the higher group is Bool.
constexpr DType combine_categories(DType higher, DType lower) {
    if (is_floating_point(higher)) {
        return higher;
    }
    if (higher == DType::Bool || is_floating_point(lower)) {
        return promote_types(higher, lower);
    }
    return higher;
}

/// The dtype of an element-wise result. Tensors with dimensions decide the dtype; 0-d
/// tensors only change it when their category is higher: int64 [3] + float64 0-d gives
/// float64, but float32 [3] + float64 0-d stays float32.
[[nodiscard]] DType result_dtype(std::span<const Tensor> tensors);

/// result_dtype of two tensors.
[[nodiscard]] DType result_dtype(const Tensor& a, const Tensor& b);

/// The dtype of `tensor op scalar`: promote_with_scalar of the tensor's dtype.
[[nodiscard]] inline DType result_dtype(const Tensor& t, Scalar s) {
    return promote_with_scalar(t.dtype(), s);
}

namespace detail {

// The three inner loops below are flattened ([[gnu::flatten]]): every call inside them,
// the element function and whatever it calls, is inlined, so the loop body holds no call
// and the compiler can vectorize it. Left to its own heuristics, GCC stops inlining in a
// translation unit with many kernels, and a loop that calls its element function once
// per element runs several times slower.

/// One run of the inner loop for operands with any byte strides: element k of operand i
/// is at data[i] + k * strides[i].
template <typename Out, typename... In, typename F, std::size_t... I>
[[gnu::flatten]] void strided_run(std::byte** data, const std::int64_t* strides, std::int64_t n, F& f,
                 std::index_sequence<I...>) {
    for (std::int64_t k = 0; k < n; ++k) {
        *reinterpret_cast<Out*>(data[0] + k * strides[0]) =
            f(*reinterpret_cast<const In*>(data[I + 1] + k * strides[I + 1])...);
    }
}

/// One run of the inner loop when every operand is contiguous: plain indexing, which the
/// compiler turns into vector instructions.
template <typename Out, typename... In, typename F, std::size_t... I>
[[gnu::flatten]] void contiguous_run(std::byte** data, std::int64_t n, F& f, std::index_sequence<I...>) {
    Out* out = reinterpret_cast<Out*>(data[0]);
    const std::tuple<const In*...> in{reinterpret_cast<const In*>(data[I + 1])...};
    for (std::int64_t k = 0; k < n; ++k) {
        out[k] = f(std::get<I>(in)[k]...);
    }
}

/// One run of the inner loop when the output is contiguous and every input is either
/// contiguous or broadcast along the run (stride 0: one value repeated). Which inputs are
/// broadcast is fixed for the whole run, so the compiler makes one vectorized copy of the
/// loop per case instead of stepping through byte strides.
template <typename Out, typename... In, typename F, std::size_t... I>
[[gnu::flatten]] void broadcast_run(std::byte** data, const std::int64_t* strides, std::int64_t n, F& f,
                   std::index_sequence<I...>) {
    Out* out = reinterpret_cast<Out*>(data[0]);
    const std::tuple<const In*...> in{reinterpret_cast<const In*>(data[I + 1])...};
    [[maybe_unused]] const std::array<bool, sizeof...(In)> repeated{(strides[I + 1] == 0)...};
    for (std::int64_t k = 0; k < n; ++k) {
        out[k] = f((repeated[I] ? std::get<I>(in)[0] : std::get<I>(in)[k])...);
    }
}

}  // namespace detail

/// Runs `f` over every element of the iterator: output element = f(input elements...).
/// Out and In... are the C++ types of the output and of each input, which must match the
/// operands' dtypes (the output may differ from the inputs: comparisons write Bool).
template <typename Out, typename... In, typename F>
void run_typed(const TensorIterator& iter, F&& f) {
    KAEL_CHECK(iter.num_operands() == sizeof...(In) + 1,
               "run_typed got " << sizeof...(In) << " input types for " << iter.num_operands() - 1
                                << " inputs");
    KAEL_CHECK(iter.output().dtype() == dtype_of_v<Out>,
               "run_typed: output type " << dtype_of_v<Out> << " does not match the output dtype "
                                         << iter.output().dtype());
    constexpr std::array<DType, sizeof...(In)> input_dtypes{dtype_of_v<In>...};
    for (std::size_t i = 0; i < input_dtypes.size(); ++i) {
        KAEL_CHECK(iter.operand(i + 1).dtype() == input_dtypes[i],
                   "run_typed: input type " << input_dtypes[i] << " does not match input " << i
                                            << " of dtype " << iter.operand(i + 1).dtype());
    }
    constexpr auto inputs = std::index_sequence_for<In...>{};
    const auto run = [&](std::byte** data, const std::int64_t* strides, std::int64_t n) {
        const bool out_contiguous = strides[0] == static_cast<std::int64_t>(sizeof(Out));
        bool contiguous = out_contiguous;
        bool contiguous_or_repeated = out_contiguous;
        std::size_t i = 1;
        ((contiguous = contiguous && strides[i] == static_cast<std::int64_t>(sizeof(In)),
          contiguous_or_repeated = contiguous_or_repeated &&
                                   (strides[i] == 0 || strides[i] == static_cast<std::int64_t>(sizeof(In))),
          ++i),
         ...);
        if (contiguous) {
            detail::contiguous_run<Out, In...>(data, n, f, inputs);
        } else if (contiguous_or_repeated) {
            detail::broadcast_run<Out, In...>(data, strides, n, f, inputs);
        } else {
            detail::strided_run<Out, In...>(data, strides, n, f, inputs);
        }
    };
//> until 13
//|     iter.for_each(run);
//< until 13
//> stage 13
    // Large loops run on several threads: 32768 elements is about 10 microseconds of the
    // cheapest kernel, several times what waking a worker costs.
    constexpr std::int64_t kGrainSize = 32768;
    iter.parallel_for_each(kGrainSize, run);
//< stage 13
}

}  // namespace kael
