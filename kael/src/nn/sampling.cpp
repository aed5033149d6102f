// Sampling the next token (chapter 11): the filters of Hugging Face's generate(), applied
// to one row of logits at a time in double on the host, with plain loops over the row
// rather than a chain of tensor operations with sorts and scatters.
//
// A server samples a row for every sequence at every step (chapter 13), so the filters
// must cost little beside the model's step: no filter sorts the whole vocabulary. Top-k
// finds its threshold with a selection; top-p sorts only as many of the most likely tokens
// as its nucleus turns out to need; with neither, nothing is sorted at all. A row of float
// logits is read as it is, each value widened to double where it is used: a copy of the
// row in double, and a copy of that for the selection, cost more than the filters did.
#include "kael/nn/sampling.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

#include "kael/dtype.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/random.h"

namespace kael::nn {
namespace {

// The tokens a top-p nucleus is first looked for among; each miss looks among eight
// times as many. A language model's nucleus at top_p = 0.9 is mostly a few dozen tokens.
constexpr std::size_t kFirstCandidates = 64;

// Up to this k, top-k's threshold comes from a heap of the k largest logits seen so far,
// which most logits pass by with one comparison against its smallest; past it, from a
// selection over a copy of the row.
constexpr std::int64_t kLargestHeapLimit = 1024;

// The largest logit of a row that top-k keeps: the k-th largest, counting equal logits one
// by one (ties with it stay too, as the threshold of torch.topk in Hugging Face's
// TopKLogitsWarper keeps them).
template <typename T> double kth_largest(const T* logits, std::int64_t vocabulary, std::int64_t k) {
    if (k > kLargestHeapLimit) {
        std::vector<T> copy(logits, logits + vocabulary);
        const auto kth = copy.begin() + (k - 1);
        std::nth_element(copy.begin(), kth, copy.end(), std::greater<>());
        return static_cast<double>(*kth);
    }
    // A min-heap of the k largest so far: a logit enters only when it beats the smallest.
    std::vector<T> largest(logits, logits + k);
    std::make_heap(largest.begin(), largest.end(), std::greater<>());
    for (std::int64_t i = k; i < vocabulary; ++i) {
        if (logits[i] > largest.front()) {
            std::pop_heap(largest.begin(), largest.end(), std::greater<>());
            largest.back() = logits[i];
            std::push_heap(largest.begin(), largest.end(), std::greater<>());
        }
    }
    return static_cast<double>(largest.front());
}

// The `count` most likely tokens, most likely first and equals in the order of their
// indices: the first `count` of a stable sort of the whole row, found without one.
std::vector<std::size_t> most_likely(const std::vector<double>& probabilities, std::size_t count) {
    std::vector<std::size_t> order(probabilities.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                      [&](std::size_t a, std::size_t b) {
                          return probabilities[a] > probabilities[b] || (probabilities[a] == probabilities[b] && a < b);
                      });
    order.resize(count);
    return order;
}

// Zeroes every probability outside the smallest set of most likely tokens whose sum
// reaches top_p of the total (the token that crosses it is kept).
void keep_nucleus(std::vector<double>& probabilities, double top_p) {
    const double target = top_p * std::accumulate(probabilities.begin(), probabilities.end(), 0.0);
    for (std::size_t count = std::min(kFirstCandidates, probabilities.size());; 
         count = std::min(count * 8, probabilities.size())) {
        const std::vector<std::size_t> order = most_likely(probabilities, count);
        double kept = 0;
        std::size_t size = 0;
        while (size < count && kept < target) {
            kept += probabilities[order[size++]];
        }
        // Rounding can leave the sum of every token a hair below the target: all stay then.
        if (kept >= target || count == probabilities.size()) {
            std::vector<double> nucleus(probabilities.size(), 0.0);
            for (std::size_t i = 0; i < size; ++i) {
                nucleus[order[i]] = probabilities[order[i]];
            }
            probabilities = std::move(nucleus);
            return;
        }
    }
}

// The tokens a row can still draw after temperature, top-k and top-p, with their
// probabilities, not yet normalised (multinomial normalises by their total), in the order of
// their ids. A filtered row keeps only its candidates: the draw over them is the draw over the
// whole row with zeros elsewhere, since adding zeros changes no partial sum.
struct Candidates {
    std::vector<std::int64_t> tokens;  // empty: every token, in order
    std::vector<double> weights;
};

template <typename T>
Candidates filtered_probabilities(const T* logits, std::int64_t vocabulary, double largest,
                                  const SamplingOptions& options) {
    // exp((x - max) / T): the largest becomes 1, so nothing overflows.
    const auto probability = [&](std::int64_t i) {
        return std::exp((static_cast<double>(logits[i]) - largest) / options.temperature);
    };
    Candidates kept;
    if (options.top_k && *options.top_k < vocabulary) {
        // Top-k compares logits, before the exponential, as Hugging Face's warper does.
        const double lowest_kept = kth_largest(logits, vocabulary, *options.top_k);
        for (std::int64_t i = 0; i < vocabulary; ++i) {
            if (logits[i] >= lowest_kept) {
                kept.tokens.push_back(i);
                kept.weights.push_back(probability(i));
            }
        }
    } else {
        kept.weights.resize(static_cast<std::size_t>(vocabulary));
        for (std::int64_t i = 0; i < vocabulary; ++i) {
            kept.weights[static_cast<std::size_t>(i)] = probability(i);
        }
    }
    if (options.top_p < 1.0) {
        keep_nucleus(kept.weights, options.top_p);
    }
    return kept;
}

// A row must be drawable: no NaN or +inf, and one finite logit (-inf masks a token).
// Returns its largest logit, found in the same pass.
template <typename T> double check_row(const T* logits, std::int64_t vocabulary, std::int64_t row) {
    constexpr T kInfinity = std::numeric_limits<T>::infinity();
    T largest = -kInfinity;
    bool undrawable = false;  // a NaN or +inf seen: one test after the loop, which stays branch-free
    for (std::int64_t i = 0; i < vocabulary; ++i) {
        undrawable |= std::isnan(logits[i]) | (logits[i] == kInfinity);
        largest = std::max(largest, logits[i]);
    }
    const T* end = logits + vocabulary;
    const T* bad = undrawable ? std::find_if(logits, end, [](T x) { return std::isnan(x) || x == kInfinity; }) : end;
    KAEL_CHECK_VALUE(bad == end, "sample_next: logits must not hold NaN or +inf, got " << *bad << " in row " << row);
    KAEL_CHECK_VALUE(largest > -kInfinity,
                     "sample_next: every logit of row " << row << " is -inf; nothing can be drawn");
    return static_cast<double>(largest);
}

// One row's token: the first largest logit at temperature 0, otherwise a draw from the
// filtered probabilities.
template <typename T> std::int64_t sample_row(const T* row, std::int64_t vocabulary, std::int64_t index,
                                              const SamplingOptions& options) {
    const double largest = check_row(row, vocabulary, index);
    if (options.temperature == 0) {
        return std::max_element(row, row + vocabulary) - row;  // the first of equals
    }
    const Candidates candidates = filtered_probabilities(row, vocabulary, largest, options);
    const std::int64_t drawn = multinomial(from_vector(candidates.weights), 1, true).item<std::int64_t>();
    return candidates.tokens.empty() ? drawn : candidates.tokens[static_cast<std::size_t>(drawn)];
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
    // float and double rows are read as they are; any other dtype is widened to double.
    Tensor host = logits.detach().cpu();
    if (host.dtype() != DType::F32 && host.dtype() != DType::F64) {
        host = host.to(DType::F64);
    }
    host = host.contiguous();
    Tensor tokens = empty(logits.dim() == 1 ? Shape{} : Shape{rows}, DType::I64);
    std::int64_t* token = tokens.data_ptr<std::int64_t>();
    dispatch_floating(host.dtype(), "sample_next", [&]<typename T>() {
        const T* values = host.data_ptr<T>();
        for (std::int64_t r = 0; r < rows; ++r) {
            token[r] = sample_row(values + r * vocabulary, vocabulary, r, options);
        }
    });
    return tokens.to(logits.device());
}

}  // namespace kael::nn
