// The differentiable in-place operations (ops/inplace.cpp): Tensor::add_ and its siblings
// come here. Outside any graph they run the operation below as it is; inside one they
// rebase the tensor's history (autograd/inplace.h).
#include "autograd/functions/function.h"
#include "autograd/inplace.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "ops/native.h"

namespace kael {

using autograd::inplace_needs_graph;
using autograd::inplace_through_graph;

Tensor& add_(Tensor& self, const Tensor& other, Scalar alpha) {
    if (inplace_needs_graph(self, {other})) {
        return inplace_through_graph(self, "add_", [&](const Tensor& before) { return add(before, other, alpha); });
    }
    return native::add_(self, other, alpha);
}

Tensor& sub_(Tensor& self, const Tensor& other, Scalar alpha) {
    if (inplace_needs_graph(self, {other})) {
        return inplace_through_graph(self, "sub_", [&](const Tensor& before) { return sub(before, other, alpha); });
    }
    return native::sub_(self, other, alpha);
}

Tensor& mul_(Tensor& self, const Tensor& other) {
    if (inplace_needs_graph(self, {other})) {
        return inplace_through_graph(self, "mul_", [&](const Tensor& before) { return mul(before, other); });
    }
    return native::mul_(self, other);
}

Tensor& div_(Tensor& self, const Tensor& other) {
    if (inplace_needs_graph(self, {other})) {
        return inplace_through_graph(self, "div_", [&](const Tensor& before) { return div(before, other); });
    }
    return native::div_(self, other);
}

Tensor& fill_(Tensor& self, Scalar value) {
    if (inplace_needs_graph(self, {})) {
        return inplace_through_graph(self, "fill_", [&](const Tensor& before) {
            return masked_fill(before, ones(before.shape(), DType::Bool, before.device()), value);
        });
    }
    return native::fill_(self, value);
}

// The copied values come from src, so its gradient is the output's; the old values are
// gone, so theirs is 0.
Tensor& copy_(Tensor& self, const Tensor& src) {
    if (inplace_needs_graph(self, {src})) {
        return inplace_through_graph(self, "copy_", [&](const Tensor& before) {
            return where(ones(before.shape(), DType::Bool, before.device()), src, before);
        });
    }
    return native::copy_(self, src);
}

Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
    if (inplace_needs_graph(self, {})) {
        return inplace_through_graph(self, "clamp_", [&](const Tensor& before) { return clamp(before, min, max); });
    }
    return native::clamp_(self, min, max);
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, Scalar value) {
    if (inplace_needs_graph(self, {})) {
        return inplace_through_graph(self, "masked_fill_", [&](const Tensor& before) {
            return masked_fill(before, mask, value);
        });
    }
    return native::masked_fill_(self, mask, value);
}

Tensor& neg_(Tensor& self) {
    if (inplace_needs_graph(self, {})) {
        return inplace_through_graph(self, "neg_", [&](const Tensor& before) { return neg(before); });
    }
    return native::neg_(self);
}

}  // namespace kael
