// The differentiable join (ops/join.cpp): stack, split and chunk are built from cat and
// views, so cat is the one that needs a formula.
#include <vector>

#include "autograd/functions/function.h"
#include "kael/factory.h"
#include "kael/ops/join.h"
#include "ops/native.h"

namespace kael {

// Each input's gradient is its slice of the output's; the empty 1-d inputs cat skipped
// get zeros.
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim) {
    std::vector<const Tensor*> inputs;
    inputs.reserve(tensors.size());
    for (const Tensor& t : tensors) {
        inputs.push_back(&t);
    }
    if (!autograd::should_record_all(inputs)) {
        return autograd::below_autograd([&] { return native::cat(tensors, dim); });
    }
    Tensor out = autograd::below_autograd([&] { return native::cat(tensors, dim); });
    const std::int64_t d = wrap_dim(dim, out.dim());
    autograd::record(out, "CatBackward", inputs, [d](const Tensor& grad, autograd::Node& node) {
        const std::vector<autograd::InputMeta>& shapes = node.input_meta();
        autograd::Grads grads(shapes.size());
        std::int64_t start = 0;
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            const Shape& shape = shapes[i].shape;
            const bool skipped = shape.size() == 1 && shape[0] == 0;
            const std::int64_t length = skipped ? 0 : shape[static_cast<std::size_t>(d)];
            if (node.needs_input_grad(i)) {
                grads[i] = skipped ? zeros(shape, grad.dtype(), grad.device()) : grad.narrow(d, start, length);
            }
            start += length;
        }
        return grads;
    });
    return out;
}

}  // namespace kael
