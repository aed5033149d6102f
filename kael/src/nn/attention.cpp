// Attention as a composition (chapter 11): what a reader writes first, and what the fused
// operation must agree with.
#include "kael/nn/attention.h"

#include <cmath>
#include <limits>

#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/compare.h"
#include "kael/ops/indexing.h"
#include "kael/ops/linalg.h"
#include "kael/ops/nn.h"

namespace kael::nn {

Tensor attention_composed(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal,
                          std::optional<double> scale) {
    KAEL_CHECK_VALUE(q.dim() >= 2 && k.dim() >= 2, "attention needs q [..., T, D] and k [..., S, D]");
    const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
    Tensor scores = mul(matmul(q, k.mT()), s);
    if (is_causal) {
        // Query i may see keys 0 .. i: everything above the diagonal of [T, S] is masked.
        const Tensor future = eq(tril(ones({q.size(-2), k.size(-2)}, DType::Bool, q.device())), false);
        scores = masked_fill(scores, future, -std::numeric_limits<double>::infinity());
    }
    return matmul(softmax(scores, -1), v);
}

}  // namespace kael::nn
