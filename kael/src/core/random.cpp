#include "kael/random.h"

#include <algorithm>
#include <cmath>
//> stage 12
#include <numeric>
//< stage 12
#include <random>
//> stage 13
#include <mutex>
//< stage 13
//> stage 14
#include <utility>
//< stage 14
//> stage 13

#include <pthread.h>
//< stage 13
//> stage 12
#include <vector>
//< stage 12

#include "core/native.h"
#include "kael/factory.h"
//> stage 14
#include "kael/generator.h"
//< stage 14

namespace kael {
namespace {

constexpr std::uint64_t kDefaultSeed = 0;
//> stage 14

// The engine of the Generator a GeneratorGuard lent to this thread, or null (chapter 13).
thread_local std::mt19937_64* lent_engine = nullptr;
//< stage 14

// A function-local static is created on first use, so it cannot be touched before it is
// constructed by another translation unit's static initializer.
std::mt19937_64& global_generator() {
    static std::mt19937_64 generator(kDefaultSeed);
//> stage 14
    if (lent_engine != nullptr) {
        return *lent_engine;  // a request's own stream, not the process's
    }
//< stage 14
    return generator;
}
//> stage 13

// The generator is one for the process, so threads that draw at once take turns: each
// draw holds the lock from its first number to its last, so a tensor's values are
// consecutive numbers of the sequence whatever other threads do (chapter 12). fork() copies
// only the forking thread; the handlers keep the lock while it forks, so a child never
// starts with the lock held by a thread it does not have.
std::mutex& generator_mutex() {
    static std::mutex mutex;
    static const bool handlers = [] {
        pthread_atfork([] { mutex.lock(); }, [] { mutex.unlock(); }, [] { mutex.unlock(); });
        return true;
    }();
    (void)handlers;
    return mutex;
}

[[nodiscard]] std::unique_lock<std::mutex> lock_generator() { return std::unique_lock(generator_mutex()); }
//< stage 13

// Draws every element as a double from `distribution` and rounds it to the tensor's dtype,
// so F32 and F64 tensors see the same sequence for the same seed.
template <typename Distribution>
Tensor sample_floating(const Shape& shape, DType dtype, const char* op, Distribution distribution) {
    return dispatch_floating(dtype, op, [&]<typename T>() {
        Tensor t = empty(shape, dtype);
//> stage 13
        const auto lock = lock_generator();
//< stage 13
        std::generate_n(t.data_ptr<T>(), t.numel(),
                        [&] { return static_cast<T>(distribution(global_generator())); });
        return t;
    });
}

}  // namespace

void manual_seed(std::uint64_t seed) {
//> stage 13
    const auto lock = lock_generator();
//< stage 13
//> stage 14
    // The global generator, even inside a GeneratorGuard, as torch.manual_seed.
    std::mt19937_64* const lent = std::exchange(lent_engine, nullptr);
//< stage 14
    global_generator().seed(seed);
//> stage 14
    lent_engine = lent;
//< stage 14
}

Tensor rand(const Shape& shape, DType dtype) {
    Tensor t = sample_floating(shape, dtype, "rand", std::uniform_real_distribution<double>(0, 1));
    if (dtype == DType::F32) {
        // A double just below 1 can round up to 1.0f, which is outside [0, 1).
        float* values = t.data_ptr<float>();
        std::replace(values, values + t.numel(), 1.0f, std::nextafter(1.0f, 0.0f));
    }
    return t;
}

Tensor randn(const Shape& shape, DType dtype) {
    return sample_floating(shape, dtype, "randn", std::normal_distribution<double>(0, 1));
}

Tensor randint(std::int64_t low, std::int64_t high, const Shape& shape) {
    KAEL_CHECK_VALUE(low < high, "randint needs low < high, got low=" << low << " and high="
                                                                       << high);
    Tensor t = empty(shape, DType::I64);
    std::uniform_int_distribution<std::int64_t> distribution(low, high - 1);
//> stage 13
    const auto lock = lock_generator();
//< stage 13
    std::generate_n(t.data_ptr<std::int64_t>(), t.numel(),
                    [&] { return distribution(global_generator()); });
    return t;
}

Tensor randperm(std::int64_t n) {
    KAEL_CHECK_VALUE(n >= 0, "randperm needs a non-negative size, got " << n);
    Tensor t = arange(0.0, static_cast<double>(n), 1.0, DType::I64);
    std::int64_t* values = t.data_ptr<std::int64_t>();
//> stage 13
    const auto lock = lock_generator();
//< stage 13
    std::shuffle(values, values + n, global_generator());
    return t;
}

Tensor bernoulli(const Shape& shape, double p, DType dtype) {
    KAEL_CHECK_VALUE(p >= 0.0 && p <= 1.0, "bernoulli needs 0 <= p <= 1, got " << p);
    Tensor t = empty(shape, dtype);
    std::uniform_real_distribution<double> uniform(0, 1);
//> stage 13
    const auto lock = lock_generator();
//< stage 13
    dispatch(dtype, [&]<typename T>() {
        // uniform < p is true with probability p: never for p = 0, always for p = 1.
        std::generate_n(t.data_ptr<T>(), t.numel(), [&] {
            return convert_value<T>(uniform(global_generator()) < p ? 1 : 0);
        });
    });
    return t;
}
//> stage 12

Tensor multinomial(const Tensor& weights, std::int64_t samples, bool replacement) {
    KAEL_CHECK_VALUE(weights.dim() == 1 || weights.dim() == 2,
                     "multinomial needs weights of 1 or 2 dimensions, got shape " << to_string(weights.shape()));
    KAEL_CHECK_VALUE(weights.size(-1) >= 1, "multinomial needs at least one category, got shape "
                                                << to_string(weights.shape()));
    KAEL_CHECK_VALUE(samples >= 1, "multinomial needs a positive number of samples, got " << samples);
    const std::int64_t rows = weights.dim() == 1 ? 1 : weights.size(0);
    const std::int64_t categories = weights.size(-1);
    // The weights in double on the host, one row after the other.
    const Tensor host = native::contiguous(native::to(native::to(weights, Device::CPU), DType::F64));
    const double* all = host.data_ptr<double>();
    Tensor picks = empty(weights.dim() == 1 ? Shape{samples} : Shape{rows, samples}, DType::I64);
    std::int64_t* pick = picks.data_ptr<std::int64_t>();
    std::uniform_real_distribution<double> uniform(0, 1);
//> stage 13
    const auto lock = lock_generator();
//< stage 13
    std::vector<double> row(static_cast<std::size_t>(categories));
    std::vector<double> cumulative(row.size());
    for (std::int64_t r = 0; r < rows; ++r) {
        std::copy_n(all + r * categories, categories, row.begin());
        std::int64_t positive = 0;
        for (const double w : row) {
            KAEL_CHECK_VALUE(std::isfinite(w) && w >= 0,
                             "multinomial needs finite, non-negative weights, got " << w << " in row " << r);
            positive += w > 0 ? 1 : 0;
        }
        KAEL_CHECK_VALUE(positive > 0, "multinomial needs a positive weight in every row; row " << r << " has none");
        KAEL_CHECK_VALUE(replacement || samples <= positive,
                         "multinomial without replacement cannot draw " << samples << " samples from row " << r
                                                                        << ", which has " << positive
                                                                        << " positive weights");
        for (std::int64_t s = 0; s < samples; ++s) {
            std::partial_sum(row.begin(), row.end(), cumulative.begin());
            const double point = uniform(global_generator()) * cumulative.back();
            auto chosen = std::upper_bound(cumulative.begin(), cumulative.end(), point) - cumulative.begin();
            // point < total, so some cumulative value lies above it, unless rounding put the
            // point on the total itself: then the last positive weight is the one drawn.
            while (chosen == categories || row[static_cast<std::size_t>(chosen)] == 0) {
                --chosen;
            }
            pick[r * samples + s] = chosen;
            if (!replacement) {
                row[static_cast<std::size_t>(chosen)] = 0;
            }
        }
    }
    return native::to(picks, weights.device());
}
//< stage 12

//> stage 14

GeneratorGuard::GeneratorGuard(Generator& generator) noexcept
    : previous_(std::exchange(lent_engine, &generator.engine_)) {}

GeneratorGuard::~GeneratorGuard() { lent_engine = previous_; }
//< stage 14

}  // namespace kael
