// The differentiable copies: Tensor::to and Tensor::clone come here
// (autograd/tensor_methods.cpp).
#include "autograd/functions/function.h"
#include "ops/native.h"

namespace kael {

// The gradient of a conversion converts back: to the source's dtype and device.
Tensor to_copy(const Tensor& t, DType target) {
    return autograd::linear(t, "ToCopyBackward", [&] { return native::to_copy(t, target); },
                            [dtype = t.dtype()](const Tensor& grad) { return grad.to(dtype); });
}

Tensor to_copy(const Tensor& t, Device target) {
    return autograd::linear(t, "ToCopyBackward", [&] { return native::to_copy(t, target); },
                            [device = t.device()](const Tensor& grad) { return grad.to(device); });
}

// A copy passes its gradient through unchanged.
Tensor clone(const Tensor& t) {
    return autograd::linear(t, "CloneBackward", [&] { return native::clone(t); },
                            [](const Tensor& grad) { return grad; });
}

}  // namespace kael
