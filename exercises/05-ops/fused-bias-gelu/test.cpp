// Tests of exercise 05.2. Every test fails until bias_gelu is implemented.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "exercise.h"
//> stage 9
#include "kael/allocator.h"
//< stage 9
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

// kael's storages come from the aligned form of operator new. This test program replaces
// that form (a replaceable allocation function) to count the blocks of at least
// `g_threshold` bytes that are requested while the count is armed.
namespace {
std::atomic<std::size_t> g_threshold{0};
std::atomic<int> g_large_blocks{0};
}  // namespace

void* operator new(std::size_t size, std::align_val_t alignment) {
    const std::size_t threshold = g_threshold.load();
    if (threshold > 0 && size >= threshold) {
        ++g_large_blocks;
    }
    const auto align = static_cast<std::size_t>(alignment);
    const std::size_t rounded = (size + align - 1) / align * align;
    void* block = std::aligned_alloc(align, rounded == 0 ? align : rounded);
    if (block == nullptr) {
        throw std::bad_alloc();
    }
    return block;
}

void operator delete(void* block, std::align_val_t) noexcept { std::free(block); }
void operator delete(void* block, std::size_t, std::align_val_t) noexcept { std::free(block); }

namespace {

using exercise::bias_gelu;
using kael::DType;
using kael::Shape;
using kael::Tensor;
using I = std::int64_t;

// The reference: two separate kael operations, each writing a full tensor.
Tensor composed(const Tensor& x, const Tensor& bias, std::string_view approximate = "none") {
    return kael::gelu(kael::add(x, bias), approximate);
}

template <typename Body> int large_blocks_during(std::size_t threshold, Body body) {
    g_large_blocks = 0;
    g_threshold = threshold;
    body();
    g_threshold = 0;
    return g_large_blocks.load();
}

TEST(BiasGelu, MatchesTheComposedOperations) {
    kael::manual_seed(21);
    const Tensor x = kael::randn({16, 64});
    const Tensor bias = kael::randn({64});
    const Tensor fused = bias_gelu(x, bias);
    EXPECT_EQ(fused.shape(), (Shape{16, 64}));
    EXPECT_EQ(fused.dtype(), DType::F32);
    EXPECT_TRUE(kael::allclose(fused, composed(x, bias), 1e-6, 1e-7));
}

TEST(BiasGelu, KnownValues) {
    // x + bias = [-1, 0, 1.5], whose GELU is v * Phi(v) = -0.158655253931457, 0 and
    // 1.399789198096713, with Phi the standard normal distribution function.
    const Tensor x = kael::from_vector({-3.0, 0.5, 1.0});
    const Tensor bias = kael::from_vector({2.0, -0.5, 0.5});
    const Tensor y = bias_gelu(x, bias);
    EXPECT_NEAR(y.at<double>({0}), -0.158655253931457, 1e-14);
    EXPECT_EQ(y.at<double>({1}), 0.0);
    EXPECT_NEAR(y.at<double>({2}), 1.399789198096713, 1e-14);
}

TEST(BiasGelu, Float64AndTheTanhApproximation) {
    kael::manual_seed(22);
    const Tensor x = kael::randn({5, 7}, DType::F64);
    const Tensor bias = kael::randn({7}, DType::F64);
    const Tensor exact = bias_gelu(x, bias);
    EXPECT_EQ(exact.dtype(), DType::F64);
    EXPECT_TRUE(kael::allclose(exact, composed(x, bias), 1e-12, 1e-14));
    const Tensor approx = bias_gelu(x, bias, "tanh");
    EXPECT_TRUE(kael::allclose(approx, composed(x, bias, "tanh"), 1e-12, 1e-14));
    EXPECT_FALSE(kael::allclose(approx, exact, 1e-12, 1e-14));  // the two forms differ
}

TEST(BiasGelu, BiasRepeatsOverEveryLeadingDimension) {
    const Tensor x = kael::zeros({2, 3, 4}, DType::F64);
    const Tensor bias = kael::from_vector({-1.0, 0.0, 1.0, 2.0});
    const Tensor y = bias_gelu(x, bias);
    EXPECT_EQ(y.shape(), (Shape{2, 3, 4}));
    for (I i = 0; i < 2; ++i) {
        for (I j = 0; j < 3; ++j) {
            for (I k = 0; k < 4; ++k) {
                const double b = bias.at<double>({k});
                EXPECT_NEAR(y.at<double>({i, j, k}), 0.5 * b * (1 + std::erf(b / std::sqrt(2.0))), 1e-15);
            }
        }
    }
}

TEST(BiasGelu, StridedInput) {
    kael::manual_seed(23);
    const Tensor x = kael::randn({6, 4}).T();  // [4, 6], columns contiguous
    const Tensor bias = kael::randn({6});
    const Tensor y = bias_gelu(x, bias);
    EXPECT_EQ(y.shape(), (Shape{4, 6}));
    EXPECT_TRUE(kael::allclose(y, composed(x, bias), 1e-6, 1e-7));
}

TEST(BiasGelu, AllocatesOnlyTheOutput) {
//> stage 9
    // From chapter 08 on a freed block is reused instead of requested again; with the cache
    // off, every tensor's block is a request this test can count.
    const bool cache_was_on = kael::caching_allocator_enabled();
    kael::set_caching_allocator_enabled(false);
//< stage 9
    const Tensor x = kael::ones({256, 1024});
    const Tensor bias = kael::ones({1024});
    const auto bytes = static_cast<std::size_t>(x.nbytes());
    // Two operations write two full-size tensors: the sum, then its GELU.
    EXPECT_EQ(large_blocks_during(bytes, [&] { (void)composed(x, bias); }), 2);
    // One fused pass writes only the result.
    int fused = -1;
    EXPECT_NO_THROW(fused = large_blocks_during(bytes, [&] { (void)bias_gelu(x, bias); }));
    EXPECT_EQ(fused, 1);
//> stage 9
    kael::set_caching_allocator_enabled(cache_was_on);
//< stage 9
}

TEST(BiasGelu, ShapeErrors) {
    const Tensor x = kael::zeros({2, 3});
    EXPECT_THROW((void)bias_gelu(x, kael::zeros({2})), kael::ValueError);
    EXPECT_THROW((void)bias_gelu(x, kael::zeros({1, 3})), kael::ValueError);
    EXPECT_THROW((void)bias_gelu(kael::scalar(1.0), kael::zeros({1})), kael::ValueError);
}

TEST(BiasGelu, DtypeErrors) {
    EXPECT_THROW((void)bias_gelu(kael::zeros({2}, DType::I64), kael::zeros({2}, DType::I64)), kael::TypeError);
    EXPECT_THROW((void)bias_gelu(kael::zeros({2}), kael::zeros({2}, DType::F64)), kael::TypeError);
}

TEST(BiasGelu, ApproximateMustBeNoneOrTanh) {
    EXPECT_THROW((void)bias_gelu(kael::zeros({2}), kael::zeros({2}), "fast"), kael::ValueError);
}

TEST(BiasGelu, EmptyInput) {
    const Tensor y = bias_gelu(kael::zeros({0, 3}), kael::zeros({3}));
    EXPECT_EQ(y.shape(), (Shape{0, 3}));
    EXPECT_EQ(y.dtype(), DType::F32);
}

}  // namespace
