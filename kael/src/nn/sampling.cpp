// Sampling the next token (chapter 11): the filters of Hugging Face's generate(), applied
// to one row of logits at a time in double on the host. A generation step samples a few
// rows of a vocabulary's size, so this is never the slow part, and plain loops over a row
// read more clearly than a chain of tensor operations with sorts and scatters.
#include "kael/nn/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "kael/error.h"
#include "kael/factory.h"
#include "kael/random.h"

namespace kael::nn {
namespace {

// The probabilities of one row after temperature, top-k and top-p, not yet normalised
// (multinomial normalises by the row's total).
std::vector<double> filtered_probabilities(const double* logits, std::int64_t vocabulary,
                                           const SamplingOptions& options) {
    const auto size = static_cast<std::size_t>(vocabulary);
    const double largest = *std::max_element(logits, logits + vocabulary);
    // exp((x - max) / T): the largest becomes 1, so nothing overflows.
    std::vector<double> probabilities(size);
    for (std::size_t i = 0; i < size; ++i) {
        probabilities[i] = std::exp((logits[i] - largest) / options.temperature);
    }
    std::vector<std::size_t> order(size);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return probabilities[a] > probabilities[b]; });
    if (options.top_k && static_cast<std::size_t>(*options.top_k) < size) {
        const double kth = probabilities[order[static_cast<std::size_t>(*options.top_k) - 1]];
        for (double& p : probabilities) {
            p = p >= kth ? p : 0.0;  // ties with the k-th stay, as torch.topk's threshold keeps them
        }
    }
    if (options.top_p < 1.0) {
        const double total = std::accumulate(probabilities.begin(), probabilities.end(), 0.0);
        double kept = 0;
        for (const std::size_t index : order) {
            if (kept >= options.top_p * total) {
                probabilities[index] = 0;  // the nucleus is already complete
            } else {
                kept += probabilities[index];  // the token that crosses top_p is kept
            }
        }
    }
    return probabilities;
}

// A row must be drawable: no NaN or +inf, and one finite logit (-inf masks a token).
void check_row(const double* logits, std::int64_t vocabulary, std::int64_t row) {
    bool finite = false;
    for (std::int64_t i = 0; i < vocabulary; ++i) {
        KAEL_CHECK_VALUE(!std::isnan(logits[i]) && logits[i] != std::numeric_limits<double>::infinity(),
                         "sample_next: logits must not hold NaN or +inf, got " << logits[i] << " in row " << row);
        finite = finite || std::isfinite(logits[i]);
    }
    KAEL_CHECK_VALUE(finite, "sample_next: every logit of row " << row << " is -inf; nothing can be drawn");
}

}  // namespace

void check_sampling_options(const SamplingOptions& options) {
    KAEL_CHECK_VALUE(std::isfinite(options.temperature) && options.temperature >= 0,
                     "sampling temperature must be finite and non-negative (0 is greedy), got "
                         << options.temperature);
    KAEL_CHECK_VALUE(!options.top_k || *options.top_k >= 1,
                     "top_k must be at least 1 (leave it unset to keep every token), got " << *options.top_k);
    KAEL_CHECK_VALUE(options.top_p > 0 && options.top_p <= 1, "top_p must be in (0, 1], got " << options.top_p);
}

Tensor sample_next(const Tensor& logits, const SamplingOptions& options) {
    check_sampling_options(options);
    KAEL_CHECK_VALUE(logits.dim() == 1 || logits.dim() == 2,
                     "sample_next needs logits of shape [V] or [B, V], got " << to_string(logits.shape()));
    const std::int64_t vocabulary = logits.size(-1);
    KAEL_CHECK_VALUE(vocabulary >= 1, "sample_next needs a vocabulary of at least one token");
    const std::int64_t rows = logits.dim() == 1 ? 1 : logits.size(0);
    const Tensor host = logits.detach().cpu().to(DType::F64).contiguous();
    const double* values = host.data_ptr<double>();
    Tensor tokens = empty(logits.dim() == 1 ? Shape{} : Shape{rows}, DType::I64);
    std::int64_t* token = tokens.data_ptr<std::int64_t>();
    for (std::int64_t r = 0; r < rows; ++r) {
        const double* row = values + r * vocabulary;
        check_row(row, vocabulary, r);
        if (options.temperature == 0) {
            token[r] = std::max_element(row, row + vocabulary) - row;  // the first of equals
            continue;
        }
        const std::vector<double> probabilities = filtered_probabilities(row, vocabulary, options);
        token[r] = multinomial(from_vector(probabilities), 1, true).item<std::int64_t>();
    }
    return tokens.to(logits.device());
}

}  // namespace kael::nn
