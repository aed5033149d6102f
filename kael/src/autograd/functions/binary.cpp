// The differentiable arithmetic on two operands (ops/binary.cpp). Each gradient is computed
// at the output's shape and summed back to its operand's shape, which undoes broadcasting.
#include <cmath>
#include <utility>

#include "autograd/functions/function.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/compare.h"
#include "kael/ops/unary.h"
#include "ops/native.h"

namespace kael {
namespace {

using autograd::Grads;
using autograd::Node;
using autograd::SavedTensor;

// out = f(a, b) whose formula reads both operands: backward(grad, a, b, node) gives both
// gradients at the output's shape, and only those the node needs are summed back.
template <typename Compute, typename Backward>
//> until 14
//| Tensor with_operands_saved(const Tensor& a, const Tensor& b, const char* name, Compute&& compute, Backward backward) {
//< until 14
//> stage 14
Tensor with_operands_saved(const Tensor& a, const Tensor& b, const char* name, Compute&& compute, Backward backward,
                           const std::source_location& caller = std::source_location::current()) {
//< stage 14
    return autograd::differentiable({a, b}, std::forward<Compute>(compute), [&](const Tensor& out) {
        autograd::record(out, name, {a, b}, [sa = SavedTensor(a), sb = SavedTensor(b), backward](const Tensor& grad,
                                                                                                Node& node) {
            const Tensor x = sa.unpack(node);
            const Tensor y = sb.unpack(node);
            auto [grad_x, grad_y] = backward(grad, x, y, node);
            Grads grads(2);
            if (node.needs_input_grad(0)) {
                grads[0] = autograd::sum_to(grad_x, x.shape());
            }
            if (node.needs_input_grad(1)) {
                grads[1] = autograd::sum_to(grad_y, y.shape());
            }
            return grads;
        });
//> until 14
//|     });
//< until 14
//> stage 14
    }, caller);
//< stage 14
}

// add and sub save nothing: each gradient is the output's, scaled and summed back. The
// operands' shapes are in the node's input metadata already, and capturing only the scale
// keeps the closure small enough for std::function to hold it without an allocation.
template <typename Compute>
//> until 14
//| Tensor sum_like(const Tensor& a, const Tensor& b, const char* name, double b_scale, Compute&& compute) {
//< until 14
//> stage 14
Tensor sum_like(const Tensor& a, const Tensor& b, const char* name, double b_scale, Compute&& compute,
                const std::source_location& caller = std::source_location::current()) {
//< stage 14
    return autograd::differentiable({a, b}, std::forward<Compute>(compute), [&](const Tensor& out) {
        autograd::record(out, name, {a, b}, [b_scale](const Tensor& grad, Node& node) {
            Grads grads(2);
            if (node.needs_input_grad(0)) {
                grads[0] = autograd::sum_to(grad, node.input_meta()[0].shape);
            }
            if (node.needs_input_grad(1)) {
                grads[1] = autograd::sum_to(b_scale == 1 ? grad : grad * b_scale, node.input_meta()[1].shape);
            }
            return grads;
        });
//> until 14
//|     });
//< until 14
//> stage 14
    }, caller);
//< stage 14
}

// PyTorch's subgradient for maximum and minimum: where the two are equal, each gets half.
std::pair<Tensor, Tensor> split_at_ties(const Tensor& grad, const Tensor& x_wins, const Tensor& tie) {
    const Tensor half = grad / 2;
    return {where(tie, half, where(x_wins, grad, 0)), where(tie, half, where(x_wins, 0, grad))};
}

}  // namespace

// ---- add, sub, mul ------------------------------------------------------------------------------

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
    return sum_like(a, b, "AddBackward", alpha.as<double>(), [&] { return native::add(a, b, alpha); });
}

Tensor add(const Tensor& t, Scalar s, Scalar alpha) {
    return autograd::linear(t, "AddBackward", [&] { return native::add(t, s, alpha); },
                            [](const Tensor& grad) { return grad; });
}

Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
    return sum_like(a, b, "SubBackward", -alpha.as<double>(), [&] { return native::sub(a, b, alpha); });
}

Tensor sub(const Tensor& t, Scalar s, Scalar alpha) {
    return autograd::linear(t, "SubBackward", [&] { return native::sub(t, s, alpha); },
                            [](const Tensor& grad) { return grad; });
}

Tensor sub(Scalar s, const Tensor& t, Scalar alpha) {
    return autograd::linear(t, "RsubBackward", [&] { return native::sub(s, t, alpha); },
                            [scale = -alpha.as<double>()](const Tensor& grad) { return grad * scale; });
}

Tensor mul(const Tensor& a, const Tensor& b) {
    return with_operands_saved(a, b, "MulBackward", [&] { return native::mul(a, b); },
                               [](const Tensor& grad, const Tensor& x, const Tensor& y, Node& node) {
                                   return std::pair{node.needs_input_grad(0) ? grad * y : grad,
                                                    node.needs_input_grad(1) ? grad * x : grad};
                               });
}

Tensor mul(const Tensor& t, Scalar s) {
    return autograd::linear(t, "MulBackward", [&] { return native::mul(t, s); },
                            [s](const Tensor& grad) { return grad * s; });
}

// ---- division ---------------------------------------------------------------------------------------

Tensor div(const Tensor& a, const Tensor& b) {
    return with_operands_saved(a, b, "DivBackward", [&] { return native::div(a, b); },
                               [](const Tensor& grad, const Tensor& x, const Tensor& y, Node& node) {
                                   return std::pair{grad / y, node.needs_input_grad(1) ? -grad * x / (y * y) : grad};
                               });
}

Tensor div(const Tensor& t, Scalar s) {
    return autograd::linear(t, "DivBackward", [&] { return native::div(t, s); },
                            [s](const Tensor& grad) { return grad / s; });
}

Tensor div(Scalar s, const Tensor& t) {
    return autograd::with_input_saved(t, "DivBackward", [&] { return native::div(s, t); },
                                      [s](const Tensor& grad, const Tensor& x) { return -grad * s / (x * x); });
}

// Floor division is a step function: PyTorch gives it no derivative, and neither does kael.
// The result still requires grad, so that a backward pass through it stops with an error
// that says why instead of silently treating the input as a constant.
Tensor floor_divide(const Tensor& a, const Tensor& b) {
    return autograd::differentiable({a, b}, [&] { return native::floor_divide(a, b); }, [&](const Tensor& out) {
        autograd::record(out, "FloorDivideBackward", {a, b}, [](const Tensor&, Node&) -> Grads {
            constexpr bool has_derivative = false;
            KAEL_CHECK(has_derivative, "the derivative for 'floor_divide' is not implemented: it is a step function, "
                                       "whose gradient is 0 wherever it exists; use div() for a differentiable "
                                       "quotient");
            return {};
        });
    });
}

// a - floor(a / b) * b: slope 1 in a and -floor(a / b) in b, as in PyTorch.
Tensor remainder(const Tensor& a, const Tensor& b) {
    return with_operands_saved(a, b, "RemainderBackward", [&] { return native::remainder(a, b); },
                               [](const Tensor& grad, const Tensor& x, const Tensor& y, Node& node) {
                                   return std::pair{grad, node.needs_input_grad(1) ? -grad * native::floor_divide(x, y)
                                                                                   : grad};
                               });
}

// ---- powers ------------------------------------------------------------------------------------------

// d/da a^b = b a^(b-1), 0 where b = 0; d/db a^b = a^b log(a), 0 where a = 0 and b >= 0
// (PyTorch's choices, so 0^0 and 0^b for b > 0 give finite gradients).
Tensor pow(const Tensor& a, const Tensor& b) {
    return with_operands_saved(a, b, "PowBackward", [&] { return native::pow(a, b); },
                               [](const Tensor& grad, const Tensor& x, const Tensor& y, Node& node) {
                                   Tensor grad_x = grad;
                                   Tensor grad_y = grad;
                                   if (node.needs_input_grad(0)) {
                                       grad_x = where(y == 0, 0, grad * y * pow(x, y - 1));
                                   }
                                   if (node.needs_input_grad(1)) {
                                       grad_y = where(logical_and(x == 0, y >= 0), 0, grad * pow(x, y) * log(x));
                                   }
                                   return std::pair{grad_x, grad_y};
                               });
}

Tensor pow(const Tensor& t, Scalar exponent) {
    const double e = exponent.as<double>();
    return autograd::with_input_saved(t, "PowBackward", [&] { return native::pow(t, exponent); },
                                      [e](const Tensor& grad, const Tensor& x) {
                                          return e == 0 ? zeros_like(grad) : grad * e * pow(x, e - 1);
                                      });
}

// d/dx b^x = b^x log(b); for b = 0 PyTorch's gradient is 0.
Tensor pow(Scalar base, const Tensor& t) {
    return autograd::with_output_saved(t, "PowBackward", [&] { return native::pow(base, t); },
                                       [base](const Tensor& grad, const Tensor& y) {
                                           const double b = base.as<double>();
                                           return b == 0 ? zeros_like(grad) : grad * y * std::log(b);
                                       });
}

// ---- maximum, minimum, atan2 --------------------------------------------------------------------------

Tensor maximum(const Tensor& a, const Tensor& b) {
    return with_operands_saved(a, b, "MaximumBackward", [&] { return native::maximum(a, b); },
                               [](const Tensor& grad, const Tensor& x, const Tensor& y, Node&) {
                                   return split_at_ties(grad, x > y, x == y);
                               });
}

Tensor minimum(const Tensor& a, const Tensor& b) {
    return with_operands_saved(a, b, "MinimumBackward", [&] { return native::minimum(a, b); },
                               [](const Tensor& grad, const Tensor& x, const Tensor& y, Node&) {
                                   return split_at_ties(grad, x < y, x == y);
                               });
}

// atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
Tensor atan2(const Tensor& a, const Tensor& b) {
    return with_operands_saved(a, b, "Atan2Backward", [&] { return native::atan2(a, b); },
                               [](const Tensor& grad, const Tensor& y, const Tensor& x, Node&) {
                                   const Tensor scale = grad / (x * x + y * y);
                                   return std::pair{scale * x, -scale * y};
                               });
}

}  // namespace kael
