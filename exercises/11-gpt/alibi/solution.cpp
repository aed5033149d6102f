// Reference solution of exercise 11.2.
#include <cmath>
#include <cstddef>
#include <limits>

#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/linalg.h"
#include "kael/ops/nn.h"

namespace exercise {

std::vector<double> alibi_slopes(std::int64_t heads) {
    // A power of two has exactly one bit set: clearing the lowest set bit leaves nothing.
    KAEL_CHECK_VALUE(heads >= 1 && (heads & (heads - 1)) == 0,
                     "ALiBi's slopes are defined for a number of heads that is a power of two, got " << heads);
    std::vector<double> slopes(static_cast<std::size_t>(heads));
    for (std::int64_t h = 1; h <= heads; ++h) {
        // -8 h / heads is an integer whenever heads divides 8 h, and exp2 of an integer is
        // an exact power of two: 1/2 .. 1/256 for eight heads, to the last bit.
        slopes[static_cast<std::size_t>(h - 1)] =
            std::exp2(-8.0 * static_cast<double>(h) / static_cast<double>(heads));
    }
    return slopes;
}

kael::Tensor alibi_bias(const std::vector<double>& slopes, std::int64_t queries, std::int64_t keys,
                        kael::DType dtype) {
    KAEL_CHECK_VALUE(!slopes.empty(), "alibi_bias needs one slope per head, got none");
    KAEL_CHECK_VALUE(queries >= 0 && keys >= 0,
                     "alibi_bias needs non-negative sizes, got " << queries << " queries and " << keys << " keys");
    KAEL_CHECK_VALUE(queries <= keys, "alibi_bias: the " << queries << " queries must be the last of the " << keys
                                                         << " key positions, so there cannot be more of them");
    KAEL_CHECK_TYPE(kael::is_floating_point(dtype), "alibi_bias needs a floating dtype for its -inf mask");

    const auto heads = static_cast<std::int64_t>(slopes.size());
    const std::int64_t first = keys - queries;  // the position of query 0
    std::vector<double> values(static_cast<std::size_t>(heads * queries * keys));
    std::size_t n = 0;
    for (const double slope : slopes) {
        for (std::int64_t t = 0; t < queries; ++t) {
            const std::int64_t i = first + t;
            for (std::int64_t j = 0; j < keys; ++j) {
                values[n++] = j <= i ? -slope * static_cast<double>(i - j)
                                     : -std::numeric_limits<double>::infinity();
            }
        }
    }
    return kael::from_vector(values, {heads, queries, keys}).to(dtype);
}

kael::Tensor alibi_attention(const kael::Tensor& q, const kael::Tensor& k, const kael::Tensor& v,
                             const kael::Tensor& bias, std::optional<double> scale) {
    KAEL_CHECK_VALUE(q.dim() >= 3, "alibi_attention needs q [..., H, T, D], got " << kael::to_string(q.shape()));
    KAEL_CHECK_VALUE(k.dim() >= 2, "alibi_attention needs k [..., H, S, D], got " << kael::to_string(k.shape()));
    KAEL_CHECK_VALUE(bias.dim() == 3 && bias.size(0) == q.size(-3) && bias.size(1) == q.size(-2) &&
                         bias.size(2) == k.size(-2),
                     "alibi_attention: a bias of shape " << kael::to_string(bias.shape()) << " does not fit q "
                                                         << kael::to_string(q.shape()) << " and k "
                                                         << kael::to_string(k.shape()) << "; it must be [H, T, S]");
    const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
    // [..., H, T, S] + [H, T, S]: the bias broadcasts over the batch. Its -inf entries turn
    // into zero weights in the softmax, and every row keeps at least its own position.
    const kael::Tensor scores =
        kael::add(kael::mul(kael::matmul(q, k.mT()), s), bias.to(q.dtype()).to(q.device()));
    return kael::matmul(kael::softmax(scores, -1), v);
}

}  // namespace exercise
