#pragma once
// The shared shape of every element-wise operation: pick the result dtype, cast the inputs
// to it, build a TensorIterator (or take the flat fast path), dispatch on the dtype, and
// run one element function. The loops themselves are the kernels layer's
// (kernels/cpu/elementwise.h, and kael/kernels.h for the iterator's).
//
// A kernel passes `make`, a templated lambda that returns the element function for the
// C++ type T. Only the dtypes the kernel's Dtypes allow are instantiated.

#include <optional>
#include <string_view>

#include "core/native.h"
#include "kael/iterator.h"
#include "kael/factory.h"
#include "kael/kernels.h"
#include "kernels/cpu/elementwise.h"

namespace kael::detail {

/// Which dtypes a kernel is compiled for.
enum class Dtypes { All, NoBool, Floating };

/// Runs a one-input iterator as a conversion: each output element is its input element
/// converted with convert_value. copy_ and cast_keeping_layout share it.
inline void run_conversion(const TensorIterator& iter) {
    dispatch(iter.output().dtype(), [&]<typename Out>() {
        dispatch(iter.operand(1).dtype(), [&]<typename In>() {
            run_typed<Out, In>(iter, [](In x) { return convert_value<Out>(x); });
        });
    });
}

/// `t` converted to `dtype` for a kernel's loop. Like `to`, except that the memory order of
/// a non-contiguous `t` is kept, as PyTorch's conversions keep it: a transposed float32
/// input promoted to float64 stays transposed, so the result of the operation is
/// transposed too, as it would have been without the promotion. The new tensor is laid
/// out by the iterator's own rule for new outputs.
inline Tensor cast_keeping_layout(const Tensor& t, DType dtype) {
    if (t.dtype() == dtype || t.is_contiguous()) {
        return native::to(t, dtype);
    }
    const TensorIterator iter = TensorIteratorConfig().declare_output(dtype).add_input(t).build();
    run_conversion(iter);
    return iter.output();
}

/// Throws TypeError when either operand of a subtraction is Bool. PyTorch refuses these
/// too, for sub and sub_ alike: for masks, logical_xor or logical_not says what is meant.
void check_no_bool_operand(DType a, DType b);

template <Dtypes kinds, typename F>
decltype(auto) dispatch_for(DType dtype, std::string_view op, F&& f) {
    if constexpr (kinds == Dtypes::All) {
        return dispatch(dtype, f);
    } else if constexpr (kinds == Dtypes::NoBool) {
        return dispatch_no_bool(dtype, op, f);
    } else {
        return dispatch_floating(dtype, op, f);
    }
}

/// The dtype a floating function computes in: integer and Bool inputs use float32.
inline DType floating_result(DType dtype) { return is_floating_point(dtype) ? dtype : DType::F32; }

/// True for an operand the flat fast path can read directly: contiguous, on the CPU,
/// already of `dtype`, and of exactly `shape` (nothing to broadcast).
inline bool reads_flat(const Tensor& t, const Shape& shape, DType dtype) {
    return t.dtype() == dtype && t.device() == Device::CPU && t.shape() == shape && t.is_contiguous();
}

/// The fast path of the common case: every operand contiguous with one shape and dtype.
/// No iterator is built; the loop runs over the elements as one flat array, which the
/// compiler vectorizes. Most operations on activations and parameters take it, and for
/// tiny tensors it removes most of the fixed cost of an operation.
template <typename T, typename F> Tensor flat_run(DType dtype, F f, const Tensor& a) {
    Tensor out = empty(a.shape(), dtype);
    flat_loop(out.data_ptr<T>(), a.data_ptr<T>(), out.numel(), f);
    return out;
}

template <typename T, typename F> Tensor flat_run(DType dtype, F f, const Tensor& a, const Tensor& b) {
    Tensor out = empty(a.shape(), dtype);
    flat_loop(out.data_ptr<T>(), a.data_ptr<T>(), b.data_ptr<T>(), out.numel(), f);
    return out;
}

/// An iterator configuration whose output is `out` when given, else a new tensor of `dtype`.
inline TensorIteratorConfig output_config(const std::optional<Tensor>& out, DType dtype) {
    TensorIteratorConfig config;
    if (out) {
        config.add_output(*out);
    } else {
        config.declare_output(dtype);
    }
    return config;
}

/// out = f(t) elementwise in `dtype`; into `out` when given (its dtype wins), else into a
/// new tensor.
template <Dtypes kinds, typename Make>
Tensor unary_kernel(const Tensor& t, DType dtype, std::string_view op, Make&& make,
                    const std::optional<Tensor>& out = std::nullopt) {
    const DType compute = out ? out->dtype() : dtype;
    if (!out && reads_flat(t, t.shape(), compute)) {
        return dispatch_for<kinds>(compute, op, [&]<typename T>() {
            return flat_run<T>(compute, make.template operator()<T>(), t);
        });
    }
    return dispatch_for<kinds>(compute, op, [&]<typename T>() {
        const TensorIterator iter = output_config(out, compute).add_input(cast_keeping_layout(t, compute)).build();
        run_typed<T, T>(iter, make.template operator()<T>());
        return iter.output();
    });
}

/// out = f(a, b) elementwise in `dtype`, with a and b broadcast.
template <Dtypes kinds, typename Make>
Tensor binary_kernel(const Tensor& a, const Tensor& b, DType dtype, std::string_view op,
                     Make&& make, const std::optional<Tensor>& out = std::nullopt) {
    const DType compute = out ? out->dtype() : dtype;
    if (!out && reads_flat(a, a.shape(), compute) && reads_flat(b, a.shape(), compute)) {
        return dispatch_for<kinds>(compute, op, [&]<typename T>() {
            return flat_run<T>(compute, make.template operator()<T>(), a, b);
        });
    }
    return dispatch_for<kinds>(compute, op, [&]<typename T>() {
        const TensorIterator iter = output_config(out, compute)
                                        .add_input(cast_keeping_layout(a, compute))
                                        .add_input(cast_keeping_layout(b, compute))
                                        .build();
        run_typed<T, T, T>(iter, make.template operator()<T>());
        return iter.output();
    });
}

/// out = f(a, b) with a Bool output: comparisons. a and b are cast to `dtype` first.
template <typename Make>
Tensor compare_kernel(const Tensor& a, const Tensor& b, DType dtype, std::string_view op, Make&& make) {
    return dispatch_for<Dtypes::All>(dtype, op, [&]<typename T>() {
        const TensorIterator iter = TensorIteratorConfig()
                                        .declare_output(DType::Bool)
                                        .add_input(cast_keeping_layout(a, dtype))
                                        .add_input(cast_keeping_layout(b, dtype))
                                        .build();
        run_typed<std::uint8_t, T, T>(iter, make.template operator()<T>());
        return iter.output();
    });
}

}  // namespace kael::detail
