// The differentiable selection and placement by index (ops/indexing.cpp).
#include "autograd/functions/function.h"
#include "autograd/views.h"
#include "kael/factory.h"
#include "kael/ops/indexing.h"
#include "ops/native.h"

namespace kael {
namespace {

using autograd::Grads;
using autograd::Node;
using autograd::SavedTensor;

// `part` placed at the start of zeros of `shape` (part is no larger in any dimension).
Tensor embed_into(const Tensor& part, const Shape& shape) {
    if (part.shape() == shape) {
        return part;
    }
    const Shape extent = part.shape();
    return autograd::embed(part, shape, [extent](const Tensor& whole) {
        Tensor view = whole;
        for (std::size_t i = 0; i < extent.size(); ++i) {
            view = view.narrow(static_cast<std::int64_t>(i), 0, extent[i]);
        }
        return view;
    }, "ScatterAddBackwardBackward");
}

}  // namespace

// Each selected slice sends its gradient back to the slice it came from; an index that
// repeats collects the sum (embedding rows used twice in a batch).
Tensor index_select(const Tensor& t, std::int64_t dim, const Tensor& index) {
    return autograd::differentiable({t}, [&] { return native::index_select(t, dim, index); }, [&](const Tensor& out) {
        autograd::record(out, "IndexSelectBackward", {t}, [saved = SavedTensor(index), dim](const Tensor& grad,
                                                                                          Node& node) {
            const Shape& shape = node.input_meta()[0].shape;
            if (shape.empty()) {
                return Grads{grad.sum().reshape(shape)};
            }
            const std::int64_t d = wrap_dim(dim, static_cast<std::int64_t>(shape.size()));
            const Tensor positions = saved.unpack(node).reshape({-1});
            if (!autograd::is_grad_enabled()) {
                // Not recorded (no create_graph): added in place into fresh zeros, one pass.
                return Grads{native::index_select_backward(grad, shape, d, positions)};
            }
            Shape along(grad.shape().size(), 1);
            along[static_cast<std::size_t>(d)] = positions.numel();
            return Grads{scatter_add(zeros(shape, grad.dtype(), grad.device()), d, positions.view(along).expand(grad.shape()), grad)};
        });
    });
}

Tensor gather(const Tensor& t, std::int64_t dim, const Tensor& index) {
    return autograd::differentiable({t}, [&] { return native::gather(t, dim, index); }, [&](const Tensor& out) {
        autograd::record(out, "GatherBackward", {t}, [saved = SavedTensor(index), dim](const Tensor& grad, Node& node) {
            return Grads{scatter_add(zeros(node.input_meta()[0].shape, grad.dtype(), grad.device()), dim, saved.unpack(node), grad)};
        });
    });
}

// self's gradient passes unchanged; src's is the output gradient at the positions it was
// added to, and zero on the part of src outside the index's extent.
Tensor scatter_add(const Tensor& t, std::int64_t dim, const Tensor& index, const Tensor& src) {
    return autograd::differentiable({t, src}, [&] { return native::scatter_add(t, dim, index, src); },
                                    [&](const Tensor& out) {
        autograd::record(out, "ScatterAddBackward", {t, src}, [dim, saved = SavedTensor(index)](const Tensor& grad,
                                                                                             Node& node) {
            const Tensor positions = saved.unpack(node);
            Grads grads(2);
            if (node.needs_input_grad(0)) {
                grads[0] = grad;
            }
            if (node.needs_input_grad(1)) {
                grads[1] = positions.numel() == 0 ? zeros(node.input_meta()[1].shape, grad.dtype(), grad.device())
                                                  : embed_into(gather(grad, dim, positions), node.input_meta()[1].shape);
            }
            return grads;
        });
    });
}

Tensor tril(const Tensor& t, std::int64_t diagonal) {
    return autograd::linear(t, "TrilBackward", [&] { return native::tril(t, diagonal); },
                            [diagonal](const Tensor& grad) { return tril(grad, diagonal); });
}

Tensor triu(const Tensor& t, std::int64_t diagonal) {
    return autograd::linear(t, "TriuBackward", [&] { return native::triu(t, diagonal); },
                            [diagonal](const Tensor& grad) { return triu(grad, diagonal); });
}

}  // namespace kael
