// The penalties, the logit bias and the log-probabilities of OpenAI's API (chapter 13), on
// one row of logits on the host.
#include "kael/serve/token_scores.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kael/error.h"

namespace kael::serve {
namespace {

// One row of logits as contiguous values of type T on the host.
Tensor host_row(const Tensor& logits, DType dtype) {
    KAEL_CHECK_VALUE(logits.dim() == 1 || (logits.dim() == 2 && logits.size(0) == 1),
                     "expected one row of logits, [V] or [1, V], got " << to_string(logits.shape()));
    return logits.detach().reshape({logits.size(-1)}).cpu().to(dtype).contiguous();
}

}  // namespace

Tensor adjusted_logits(const Tensor& logits, const std::unordered_map<std::int64_t, std::int64_t>& counts,
                       const LogitAdjustments& adjustments) {
    Tensor row = host_row(logits, DType::F32).clone();  // the caller's logits stay as they are
    float* values = row.data_ptr<float>();
    const std::int64_t vocabulary = row.numel();
    for (const auto& [token, count] : counts) {
        KAEL_CHECK_VALUE(token >= 0 && token < vocabulary, "a drawn token " << token << " is outside the vocabulary");
        const double penalty = static_cast<double>(count) * adjustments.frequency_penalty +
                               (count > 0 ? adjustments.presence_penalty : 0.0);
        values[token] = static_cast<float>(values[token] - penalty);
    }
    for (const auto& [token, bias] : adjustments.logit_bias) {
        KAEL_CHECK_VALUE(token >= 0 && token < vocabulary,
                         "logit_bias names token " << token << ", outside the vocabulary [0, " << vocabulary << ")");
        values[token] = static_cast<float>(values[token] + bias);
    }
    return row;
}

TokenLogprobs token_logprobs(const Tensor& logits, std::int64_t token, std::int64_t top) {
    const Tensor row = host_row(logits, DType::F64);
    const double* values = row.data_ptr<double>();
    const std::int64_t vocabulary = row.numel();
    KAEL_CHECK_VALUE(token >= 0 && token < vocabulary,
                     "token " << token << " is outside the vocabulary [0, " << vocabulary << ")");
    KAEL_CHECK_VALUE(top >= 0, "the number of top log-probabilities must be >= 0, got " << top);
    // log_softmax: x - max - log(sum(exp(x - max))), the largest term 1, so nothing overflows.
    const double largest = *std::max_element(values, values + vocabulary);
    double total = 0;
    for (std::int64_t i = 0; i < vocabulary; ++i) {
        total += std::exp(values[i] - largest);
    }
    const double shift = largest + std::log(total);
    TokenLogprobs result;
    result.token = token;
    result.logprob = values[token] - shift;
    const auto count = static_cast<std::size_t>(std::min(top, vocabulary));
    std::vector<std::int64_t> order(static_cast<std::size_t>(vocabulary));
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                      [&](std::int64_t a, std::int64_t b) {
                          return values[a] > values[b] || (values[a] == values[b] && a < b);
                      });
    for (std::size_t i = 0; i < count; ++i) {
        result.top.emplace_back(order[i], values[order[i]] - shift);
    }
    return result;
}

}  // namespace kael::serve
