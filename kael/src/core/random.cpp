#include "kael/random.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "kael/factory.h"

namespace kael {
namespace {

constexpr std::uint64_t kDefaultSeed = 0;

// A function-local static is created on first use, so it cannot be touched before it is
// constructed by another translation unit's static initializer.
std::mt19937_64& global_generator() {
    static std::mt19937_64 generator(kDefaultSeed);
    return generator;
}

// Draws every element as a double from `distribution` and rounds it to the tensor's dtype,
// so F32 and F64 tensors see the same sequence for the same seed.
template <typename Distribution>
Tensor sample_floating(const Shape& shape, DType dtype, const char* op, Distribution distribution) {
    return dispatch_floating(dtype, op, [&]<typename T>() {
        Tensor t = empty(shape, dtype);
        std::generate_n(t.data_ptr<T>(), t.numel(),
                        [&] { return static_cast<T>(distribution(global_generator())); });
        return t;
    });
}

}  // namespace

void manual_seed(std::uint64_t seed) { global_generator().seed(seed); }

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
    std::generate_n(t.data_ptr<std::int64_t>(), t.numel(),
                    [&] { return distribution(global_generator()); });
    return t;
}

Tensor randperm(std::int64_t n) {
    KAEL_CHECK_VALUE(n >= 0, "randperm needs a non-negative size, got " << n);
    Tensor t = arange(0.0, static_cast<double>(n), 1.0, DType::I64);
    std::int64_t* values = t.data_ptr<std::int64_t>();
    std::shuffle(values, values + n, global_generator());
    return t;
}

Tensor bernoulli(const Shape& shape, double p, DType dtype) {
    KAEL_CHECK_VALUE(p >= 0.0 && p <= 1.0, "bernoulli needs 0 <= p <= 1, got " << p);
    Tensor t = empty(shape, dtype);
    std::uniform_real_distribution<double> uniform(0, 1);
    dispatch(dtype, [&]<typename T>() {
        // uniform < p is true with probability p: never for p = 0, always for p = 1.
        std::generate_n(t.data_ptr<T>(), t.numel(), [&] {
            return convert_value<T>(uniform(global_generator()) < p ? 1 : 0);
        });
    });
    return t;
}

}  // namespace kael
