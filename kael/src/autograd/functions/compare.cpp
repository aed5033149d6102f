// The differentiable selection by a mask (ops/compare.cpp). Comparisons and logical
// operations return Bool, which never requires grad, so they have no function here.
#include "autograd/functions/function.h"
#include "kael/ops/compare.h"
#include "ops/native.h"

namespace kael {

// Each operand gets the gradient where it was chosen, summed back to its own shape.
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
    return autograd::differentiable({a, b}, [&] { return native::where(condition, a, b); }, [&](const Tensor& out) {
        autograd::record(out, "WhereBackward", {a, b}, [saved = autograd::SavedTensor(condition)](const Tensor& grad,
                                                                                                autograd::Node& node) {
            const Tensor chosen = saved.unpack(node);
            autograd::Grads grads(2);
            if (node.needs_input_grad(0)) {
                grads[0] = autograd::sum_to(where(chosen, grad, 0), node.input_meta()[0].shape);
            }
            if (node.needs_input_grad(1)) {
                grads[1] = autograd::sum_to(where(chosen, 0, grad), node.input_meta()[1].shape);
            }
            return grads;
        });
    });
}

}  // namespace kael
