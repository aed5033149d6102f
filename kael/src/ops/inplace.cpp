// In-place operations. Each one checks that its tensor can be written, protects its inputs
// from partial aliasing, runs the ordinary kernel with this tensor as the output, and
// bumps the storage's version counter so that autograd (chapter 06) can tell.
#include "ops/inplace.h"

#include "kernels/cpu/clamp.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/integer_math.h"
#include "kael/broadcast.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/unary.h"
#include "kael/view.h"
//> stage 7
#include "autograd/inplace.h"
#include "kael/ops/compare.h"
#include "kael/ops/indexing.h"
//< stage 7

namespace kael {
namespace detail {

void check_writable(const Tensor& t, const char* op) {
    KAEL_CHECK(t.device() == Device::CPU, op << ": the CPU kernels cannot write a tensor on " << t.device());
    KAEL_CHECK(has_internal_overlap(t) != MemOverlap::Yes,
               op << ": some elements of the tensor being written share one memory location (it is "
                     "expanded, with shape " << to_string(t.shape()) << " and strides "
                  << to_string(t.strides()) << "); clone() it first");
}

Tensor without_partial_aliasing(const Tensor& out, const Tensor& operand) {
    return may_partially_overlap(out, operand) ? operand.clone() : operand;
}

void check_can_cast(DType result, const Tensor& out, const char* op) {
    KAEL_CHECK_TYPE(can_cast(result, out.dtype()), op << ": result type " << result
                                                      << " can't be cast to the desired output type "
                                                      << out.dtype());
}

}  // namespace detail

namespace {

using detail::Dtypes;

// The shared frame of every in-place operation: guard, compute into *this, record.
template <typename Compute>
Tensor& in_place(Tensor& self, const char* op, DType result, Compute compute) {
    detail::check_writable(self, op);
    detail::check_can_cast(result, self, op);
    compute();
    self.impl()->storage->bump_version();
    return self;
}

}  // namespace

Tensor& Tensor::add_(const Tensor& other, Scalar alpha) {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {other})) {
        return autograd::inplace_through_graph(*this, "add_", [&](const Tensor& before) { return kael::add(before, other, alpha); });
    }
//< stage 7
    return in_place(*this, "add_", result_dtype(*this, other), [&] {
        const Tensor operand = detail::without_partial_aliasing(*this, other);
        (void)detail::binary_kernel<Dtypes::All>(*this, operand, dtype(), "add_", [&]<typename T>() {
            return [scale = alpha.as<T>()](T x, T y) {
                if constexpr (std::is_same_v<T, std::uint8_t>) {
                    return static_cast<T>(x | (scale & y));
                } else {
                    return static_cast<T>(detail::wrapping_add(x, detail::wrapping_mul(scale, y)));
                }
            };
        }, *this);
    });
}

Tensor& Tensor::add_(Scalar value, Scalar alpha) {
    return add_(scalar(value, promote_with_scalar(dtype(), value)), alpha);
}

Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {other})) {
        return autograd::inplace_through_graph(*this, "sub_", [&](const Tensor& before) { return kael::sub(before, other, alpha); });
    }
//< stage 7
    detail::check_no_bool_operand(dtype(), other.dtype());
    return in_place(*this, "sub_", result_dtype(*this, other), [&] {
        const Tensor operand = detail::without_partial_aliasing(*this, other);
        (void)detail::binary_kernel<Dtypes::NoBool>(*this, operand, dtype(), "sub_", [&]<typename T>() {
            return [scale = alpha.as<T>()](T x, T y) {
                return detail::wrapping_sub(x, detail::wrapping_mul(scale, y));
            };
        }, *this);
    });
}

Tensor& Tensor::sub_(Scalar value, Scalar alpha) {
    detail::check_no_bool_operand(dtype(), value.dtype());
    return sub_(scalar(value, promote_with_scalar(dtype(), value)), alpha);
}

Tensor& Tensor::mul_(const Tensor& other) {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {other})) {
        return autograd::inplace_through_graph(*this, "mul_", [&](const Tensor& before) { return kael::mul(before, other); });
    }
//< stage 7
    return in_place(*this, "mul_", result_dtype(*this, other), [&] {
        const Tensor operand = detail::without_partial_aliasing(*this, other);
        (void)detail::binary_kernel<Dtypes::All>(*this, operand, dtype(), "mul_", []<typename T>() {
            return [](T x, T y) {
                if constexpr (std::is_same_v<T, std::uint8_t>) {
                    return static_cast<T>(x & y);
                } else {
                    return detail::wrapping_mul(x, y);
                }
            };
        }, *this);
    });
}

Tensor& Tensor::mul_(Scalar value) { return mul_(scalar(value, promote_with_scalar(dtype(), value))); }

Tensor& Tensor::div_(const Tensor& other) {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {other})) {
        return autograd::inplace_through_graph(*this, "div_", [&](const Tensor& before) { return kael::div(before, other); });
    }
//< stage 7
    // True division always produces floating point, so an integer tensor cannot hold it.
    return in_place(*this, "div_", detail::floating_result(result_dtype(*this, other)), [&] {
        const Tensor operand = detail::without_partial_aliasing(*this, other);
        (void)detail::binary_kernel<Dtypes::Floating>(*this, operand, dtype(), "div_", []<typename T>() {
            return [](T x, T y) { return x / y; };
        }, *this);
    });
}

Tensor& Tensor::div_(Scalar value) { return div_(scalar(value, promote_with_scalar(dtype(), value))); }

Tensor& Tensor::fill_(Scalar value) {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {})) {
        return autograd::inplace_through_graph(*this, "fill_", [&](const Tensor& before) { return kael::masked_fill(before, ones(before.shape(), DType::Bool), value); });
    }
//< stage 7
    return in_place(*this, "fill_", dtype(), [&] {
        dispatch(dtype(), [&]<typename T>() {
            const TensorIterator iter = TensorIteratorConfig().add_output(*this).build();
            run_typed<T>(iter, [converted = value.as<T>()] { return converted; });
        });
    });
}

Tensor& Tensor::zero_() { return fill_(0); }

Tensor& Tensor::copy_(const Tensor& src) {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {src})) {
        return autograd::inplace_through_graph(*this, "copy_", [&](const Tensor& before) { return where(ones(before.shape(), DType::Bool), src, before); });
    }
//< stage 7
    return in_place(*this, "copy_", dtype(), [&] {
        const Tensor source = detail::without_partial_aliasing(*this, src);
        detail::run_conversion(TensorIteratorConfig().add_output(*this).add_input(source).build());
    });
}

Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {})) {
        return autograd::inplace_through_graph(*this, "clamp_", [&](const Tensor& before) { return kael::clamp(before, min, max); });
    }
//< stage 7
    KAEL_CHECK_TYPE(dtype() != DType::Bool, "clamp_ does not support dtype bool");
    return in_place(*this, "clamp_", detail::clamp_dtype(dtype(), min, max), [&] {
        // The clamp kernel with this tensor as its output computes in our dtype.
        (void)detail::clamp_kernel(*this, dtype(), min, max, *this);
    });
}

Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {})) {
        return autograd::inplace_through_graph(*this, "masked_fill_", [&](const Tensor& before) { return kael::masked_fill(before, mask, value); });
    }
//< stage 7
    KAEL_CHECK_TYPE(mask.dtype() == DType::Bool, "masked_fill_ expects a bool mask, got dtype " << mask.dtype());
    return in_place(*this, "masked_fill_", dtype(), [&] {
        const Tensor condition = detail::without_partial_aliasing(*this, mask);
        dispatch(dtype(), [&]<typename T>() {
            const TensorIterator iter = TensorIteratorConfig()
                                            .add_output(*this)
                                            .add_input(*this)
                                            .add_input(condition)
                                            .allow_mixed_input_dtypes()
                                            .build();
            run_typed<T, T, std::uint8_t>(iter, [fill = value.as<T>()](T x, std::uint8_t m) {
                return m != 0 ? fill : x;
            });
        });
    });
}

Tensor& Tensor::neg_() {
//> stage 7
    if (autograd::inplace_needs_graph(*this, {})) {
        return autograd::inplace_through_graph(*this, "neg_", [&](const Tensor& before) { return kael::neg(before); });
    }
//< stage 7
    KAEL_CHECK_TYPE(dtype() != DType::Bool, "neg_: negation of a bool tensor is not supported");
    return in_place(*this, "neg_", dtype(), [&] {
        (void)detail::unary_kernel<Dtypes::NoBool>(*this, dtype(), "neg_", []<typename T>() {
            return [](T x) { return detail::wrapping_neg(x); };
        }, *this);
    });
}

}  // namespace kael
