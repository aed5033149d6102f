// scaled_dot_product_attention with its own backward (chapter 11): ops/attention.cpp
// computes both directions; this records the node between them.
#include "autograd/functions/function.h"
#include "kael/autograd/grad_mode.h"
#include "kael/ops/attention.h"
#include "ops/native.h"

namespace kael {

using autograd::Grads;
using autograd::Node;
using autograd::SavedTensor;

namespace {

// Attention with the causal bound at `causal_offset` (none: no bound), recorded as one node.
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, std::optional<std::int64_t> causal_offset,
                 std::optional<double> scale) {
    const double s = native::attention_scale(q, scale);
    std::optional<Tensor> probabilities;
    return autograd::differentiable({q, k, v},
                                    [&] {
                                        native::AttentionForward forward = native::attention_forward(q, k, v, causal_offset, s);
                                        probabilities = forward.probabilities;
                                        return forward.out;
                                    },
                                    [&](const Tensor& out) {
        autograd::record(out, "ScaledDotProductAttentionBackward", {q, k, v},
                         [sq = SavedTensor(q), sk = SavedTensor(k), sv = SavedTensor(v),
                          sp = SavedTensor(*probabilities), s](const Tensor& grad, Node& node) {
                             // The formula is native code, not recorded operations: a graph
                             // of it could not be differentiated, so refuse to build one.
                             KAEL_CHECK(!autograd::is_grad_enabled(),
                                        "scaled_dot_product_attention's backward cannot be differentiated again "
                                        "(create_graph); compose attention from matmul and softmax instead");
                             const native::AttentionGrads grads =
                                 native::attention_backward(grad, sq.unpack(node), sk.unpack(node), sv.unpack(node),
                                                            sp.unpack(node), s);
                             return Grads{grads.q, grads.k, grads.v};
                         });
    });
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal,
                                    std::optional<double> scale) {
    return attention(q, k, v, is_causal ? std::optional<std::int64_t>(0) : std::nullopt, scale);
}
//> stage 13

Tensor causal_attention_lower_right(const Tensor& q, const Tensor& k, const Tensor& v, std::optional<double> scale) {
    KAEL_CHECK_VALUE(q.dim() >= 2 && k.dim() >= 2 && k.size(-2) >= q.size(-2),
                     "causal_attention_lower_right needs at least as many keys as queries, got q "
                         << to_string(q.shape()) << " and k " << to_string(k.shape()));
    return attention(q, k, v, k.size(-2) - q.size(-2), scale);
}
//< stage 13

}  // namespace kael
