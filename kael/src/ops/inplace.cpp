// In-place operations. Each one checks that its tensor can be written, protects its inputs
// from partial aliasing, runs the ordinary kernel with this tensor as the output, and
// bumps the storage's version counter so that autograd (chapter 06) can tell.
#include "kael/ops/inplace.h"

#include "ops/native.h"
#include "ops/inplace.h"

#include "kernels/cpu/clamp.h"
#include "ops/elementwise.h"
#include "kernels/cpu/integer_math.h"
#include "kael/broadcast.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/unary.h"
//> stage 14
#include "kael/profiler.h"
//< stage 14
#include "kael/view.h"
//> stage 10
#include "ops/device.h"
//< stage 10

namespace kael {
namespace detail {

void check_writable(const Tensor& t, const char* op) {
//> until 10
//|     KAEL_CHECK(t.device() == Device::CPU, op << ": the CPU kernels cannot write a tensor on " << t.device());
//< until 10
    KAEL_CHECK(has_internal_overlap(t) != MemOverlap::Yes,
               op << ": some elements of the tensor being written share one memory location (it is "
                     "expanded, with shape " << to_string(t.shape()) << " and strides "
                  << to_string(t.strides()) << "); clone() it first");
}

Tensor without_partial_aliasing(const Tensor& out, const Tensor& operand) {
    return may_partially_overlap(out, operand) ? native::clone(operand) : operand;
}

void check_can_cast(DType result, const Tensor& out, const char* op) {
    KAEL_CHECK_TYPE(can_cast(result, out.dtype()), op << ": result type " << result
                                                      << " can't be cast to the desired output type "
                                                      << out.dtype());
}

}  // namespace detail

namespace {

using detail::Dtypes;

// The shared frame of every in-place operation: guard, compute into self, count the write.
template <typename Compute>
Tensor& in_place(Tensor& self, const char* op, DType result, Compute compute) {
//> stage 14
    const profiler::Scope operation(op, "in-place", {&self});  // one branch while no Profiler records
//< stage 14
    detail::check_writable(self, op);
    detail::check_can_cast(result, self, op);
    compute();
    self.impl()->storage->bump_version();
    return self;
}

}  // namespace

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the operations below autograd: kael::add_, which Tensor::add_
// calls, is the autograd layer's (autograd/functions/inplace.cpp). It runs native::add_ when
// no graph is involved and rebases the tensor's history when one is.
namespace kael::native {
//< stage 7

Tensor& add_(Tensor& self, const Tensor& other, Scalar alpha) {
    return in_place(self, "add_", result_dtype(self, other), [&] {
        const Tensor operand = detail::without_partial_aliasing(self, other);
//> stage 10
        if (detail::on_device(self) || detail::on_device(operand)) {
            detail::device_binary_into<Dtypes::All>(cuda::BinaryOp::Add, self, operand, "add_", alpha);
            return;
        }
//< stage 10
        (void)detail::binary_kernel<Dtypes::All>(self, operand, self.dtype(), "add_", [&]<typename T>() {
            return [scale = alpha.as<T>()](T x, T y) {
                if constexpr (std::is_same_v<T, std::uint8_t>) {
                    return static_cast<T>(x | (scale & y));
                } else {
                    return static_cast<T>(detail::wrapping_add(x, detail::wrapping_mul(scale, y)));
                }
            };
        }, self);
    });
}

Tensor& sub_(Tensor& self, const Tensor& other, Scalar alpha) {
    detail::check_no_bool_operand(self.dtype(), other.dtype());
    return in_place(self, "sub_", result_dtype(self, other), [&] {
        const Tensor operand = detail::without_partial_aliasing(self, other);
//> stage 10
        if (detail::on_device(self) || detail::on_device(operand)) {
            detail::device_binary_into<Dtypes::NoBool>(cuda::BinaryOp::Sub, self, operand, "sub_", alpha);
            return;
        }
//< stage 10
        (void)detail::binary_kernel<Dtypes::NoBool>(self, operand, self.dtype(), "sub_", [&]<typename T>() {
            return [scale = alpha.as<T>()](T x, T y) {
                return detail::wrapping_sub(x, detail::wrapping_mul(scale, y));
            };
        }, self);
    });
}

Tensor& mul_(Tensor& self, const Tensor& other) {
    return in_place(self, "mul_", result_dtype(self, other), [&] {
        const Tensor operand = detail::without_partial_aliasing(self, other);
//> stage 10
        if (detail::on_device(self) || detail::on_device(operand)) {
            detail::device_binary_into<Dtypes::All>(cuda::BinaryOp::Mul, self, operand, "mul_");
            return;
        }
//< stage 10
        (void)detail::binary_kernel<Dtypes::All>(self, operand, self.dtype(), "mul_", []<typename T>() {
            return [](T x, T y) {
                if constexpr (std::is_same_v<T, std::uint8_t>) {
                    return static_cast<T>(x & y);
                } else {
                    return detail::wrapping_mul(x, y);
                }
            };
        }, self);
    });
}

Tensor& div_(Tensor& self, const Tensor& other) {
    // True division always produces floating point, so an integer tensor cannot hold it.
    return in_place(self, "div_", detail::floating_result(result_dtype(self, other)), [&] {
        const Tensor operand = detail::without_partial_aliasing(self, other);
//> stage 10
        if (detail::on_device(self) || detail::on_device(operand)) {
            detail::device_binary_into<Dtypes::Floating>(cuda::BinaryOp::Div, self, operand, "div_");
            return;
        }
//< stage 10
        (void)detail::binary_kernel<Dtypes::Floating>(self, operand, self.dtype(), "div_", []<typename T>() {
            return [](T x, T y) { return x / y; };
        }, self);
    });
}

Tensor& fill_(Tensor& self, Scalar value) {
    return in_place(self, "fill_", self.dtype(), [&] {
//> stage 10
        if (detail::on_device(self)) {
            // One element made on the device and broadcast over self by the copy kernel.
            detail::device_copy_into(self, native::expand(full({}, value, self.dtype(), self.device()), self.shape()));
            return;
        }
//< stage 10
        dispatch(self.dtype(), [&]<typename T>() {
            const TensorIterator iter = TensorIteratorConfig().add_output(self).build();
            run_typed<T>(iter, [converted = value.as<T>()] { return converted; });
        });
    });
}

Tensor& copy_(Tensor& self, const Tensor& src) {
    return in_place(self, "copy_", self.dtype(), [&] {
        const Tensor source = detail::without_partial_aliasing(self, src);
//> stage 10
        if (detail::on_device(self) || detail::on_device(source)) {
            detail::device_copy_into(self, source);
            return;
        }
//< stage 10
        detail::run_conversion(TensorIteratorConfig().add_output(self).add_input(source).build());
    });
}

Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
    KAEL_CHECK_TYPE(self.dtype() != DType::Bool, "clamp_ does not support dtype bool");
    return in_place(self, "clamp_", detail::clamp_dtype(self.dtype(), min, max), [&] {
        // The clamp kernel with this tensor as its output computes in our dtype.
        (void)detail::clamp_kernel(self, self.dtype(), min, max, self);
    });
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, Scalar value) {
    KAEL_CHECK_TYPE(mask.dtype() == DType::Bool, "masked_fill_ expects a bool mask, got dtype " << mask.dtype());
    return in_place(self, "masked_fill_", self.dtype(), [&] {
        const Tensor condition = detail::without_partial_aliasing(self, mask);
        dispatch(self.dtype(), [&]<typename T>() {
            const TensorIterator iter = TensorIteratorConfig()
                                            .add_output(self)
                                            .add_input(self)
                                            .add_input(condition)
                                            .allow_mixed_input_dtypes()
                                            .build();
            run_typed<T, T, std::uint8_t>(iter, [fill = value.as<T>()](T x, std::uint8_t m) {
                return m != 0 ? fill : x;
            });
        });
    });
}

Tensor& neg_(Tensor& self) {
    KAEL_CHECK_TYPE(self.dtype() != DType::Bool, "neg_: negation of a bool tensor is not supported");
    return in_place(self, "neg_", self.dtype(), [&] {
        (void)detail::unary_kernel<Dtypes::NoBool>(self, self.dtype(), "neg_", []<typename T>() {
            return [](T x) { return detail::wrapping_neg(x); };
        }, self);
    });
}

}  // namespace
