// Tests of exercise 13.1. Every test fails until matmul_flops and gflops_per_second are
// implemented. Most build ProfileEvent values by hand, one on each side of every rule; the
// last two profile real kael::matmul calls.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/linalg.h"
#include "kael/ops/unary.h"
#include "kael/profiler.h"
#include "kael/shape.h"
#include "kael/tensor.h"

namespace {

using exercise::gflops_per_second;
using exercise::matmul_flops;
using kael::ProfileEvent;
using kael::Shape;

// An event as the profiler records a call of `name` on inputs of `shapes`, `us` long.
ProfileEvent event(const std::string& name, std::vector<Shape> shapes, double us = 1.0) {
    ProfileEvent e;
    e.name = name;
    e.kind = "op";
    e.shapes = std::move(shapes);
    e.dtypes.assign(e.shapes.size(), kael::DType::F32);
    e.duration_us = us;
    e.self_us = us;
    return e;
}

// The flops of matmul(a, b), as the profiler would record it.
std::int64_t flops(const Shape& a, const Shape& b) { return matmul_flops(event("matmul", {a, b})); }

TEST(MatmulFlops, AMatrixProductCostsTwoOperationsPerOutputAndInnerStep) {
    // [M, K] x [K, N]: M * N outputs, each K multiplies and K adds.
    EXPECT_EQ(flops({4, 3}, {3, 5}), 2 * 4 * 5 * 3);
    EXPECT_EQ(flops({3, 5}, {5, 4}), 2 * 3 * 4 * 5);  // the same sizes in other places
    EXPECT_EQ(flops({1, 1}, {1, 1}), 2);
    EXPECT_EQ(flops({2, 7}, {7, 1}), 28);
    EXPECT_EQ(flops({1, 7}, {7, 2}), 28);
}

TEST(MatmulFlops, TwoVectorsMakeADotProduct) {
    // [K] x [K]: one row times one column, one output.
    EXPECT_EQ(flops({5}, {5}), 10);
    EXPECT_EQ(flops({1}, {1}), 2);
    EXPECT_THROW((void)flops({5}, {4}), kael::ValueError);
    EXPECT_THROW((void)flops({5}, {6}), kael::ValueError);
}

TEST(MatmulFlops, AVectorOnTheLeftIsOneRow) {
    // [K] x [K, N] is [1, K] x [K, N].
    EXPECT_EQ(flops({3}, {3, 5}), 2 * 1 * 5 * 3);
    EXPECT_EQ(flops({1}, {1, 5}), 10);
    EXPECT_THROW((void)flops({3}, {5, 3}), kael::ValueError);  // not [K, 1]: its rows must match
    EXPECT_THROW((void)flops({3}, {4, 5}), kael::ValueError);
    // Against a batch, the row meets every matrix of it.
    EXPECT_EQ(flops({3}, {2, 3, 5}), 2 * 2 * 1 * 5 * 3);
}

TEST(MatmulFlops, AVectorOnTheRightIsOneColumn) {
    // [M, K] x [K] is [M, K] x [K, 1].
    EXPECT_EQ(flops({4, 3}, {3}), 2 * 4 * 1 * 3);
    EXPECT_EQ(flops({4, 1}, {1}), 8);
    EXPECT_THROW((void)flops({4, 3}, {4}), kael::ValueError);  // not [1, K]: its columns must match
    EXPECT_THROW((void)flops({4, 3}, {2}), kael::ValueError);
    EXPECT_EQ(flops({2, 4, 3}, {3}), 2 * 2 * 4 * 1 * 3);
}

TEST(MatmulFlops, BatchDimensionsBroadcastAndEachMatrixCounts) {
    const std::int64_t one = 2 * 4 * 5 * 3;  // one [4, 3] x [3, 5] product
    EXPECT_EQ(flops({2, 4, 3}, {2, 3, 5}), 2 * one);
    // A batch times one matrix: the matrix is used for each of the batch.
    EXPECT_EQ(flops({6, 4, 3}, {3, 5}), 6 * one);
    EXPECT_EQ(flops({4, 3}, {6, 3, 5}), 6 * one);
    // Size 1 stretches; batches of different ranks align at their last dimension.
    EXPECT_EQ(flops({1, 4, 3}, {6, 3, 5}), 6 * one);
    EXPECT_EQ(flops({2, 1, 4, 3}, {7, 3, 5}), 2 * 7 * one);
    EXPECT_EQ(flops({2, 1, 4, 3}, {1, 7, 3, 5}), 2 * 7 * one);
    // Sizes that are neither equal nor 1 do not broadcast.
    EXPECT_THROW((void)flops({2, 4, 3}, {3, 3, 5}), kael::ValueError);
    EXPECT_THROW((void)flops({2, 1, 4, 3}, {3, 7, 3, 5}), kael::ValueError);
    // An empty batch holds no matrix.
    EXPECT_EQ(flops({0, 4, 3}, {3, 5}), 0);
    EXPECT_EQ(flops({0, 4, 3}, {1, 3, 5}), 0);
}

TEST(MatmulFlops, AnEmptyInnerDimensionCostsNothing) {
    // K = 0 is a valid product (a [4, 5] of zeros) that does no arithmetic; K = 1 does.
    EXPECT_EQ(flops({4, 0}, {0, 5}), 0);
    EXPECT_EQ(flops({4, 1}, {1, 5}), 40);
    EXPECT_EQ(flops({0}, {0}), 0);
    EXPECT_EQ(flops({2, 4, 0}, {0, 5}), 0);
    // So does an empty output.
    EXPECT_EQ(flops({0, 3}, {3, 5}), 0);
    EXPECT_EQ(flops({4, 3}, {3, 0}), 0);
    // K = 0 on one side only is still a mismatch.
    EXPECT_THROW((void)flops({4, 0}, {1, 5}), kael::ValueError);
    EXPECT_THROW((void)flops({4, 1}, {0, 5}), kael::ValueError);
}

TEST(MatmulFlops, MismatchedInnerSizesAreAValueError) {
    EXPECT_EQ(flops({4, 3}, {3, 5}), 120);
    EXPECT_THROW((void)flops({4, 3}, {2, 5}), kael::ValueError);
    EXPECT_THROW((void)flops({4, 3}, {4, 5}), kael::ValueError);
    EXPECT_THROW((void)flops({4, 3}, {5, 3}), kael::ValueError);  // the shapes of b^T, not of b
    EXPECT_THROW((void)flops({2, 4, 3}, {2, 4, 5}), kael::ValueError);
}

TEST(MatmulFlops, AMatmulEventWithoutTwoOperandsIsAValueError) {
    EXPECT_THROW((void)matmul_flops(event("matmul", {})), kael::ValueError);
    EXPECT_THROW((void)matmul_flops(event("matmul", {{4, 3}})), kael::ValueError);
    // 0-d tensors cannot be multiplied as matrices.
    EXPECT_THROW((void)flops({}, {3, 5}), kael::ValueError);
    EXPECT_THROW((void)flops({4, 3}, {}), kael::ValueError);
    EXPECT_THROW((void)flops({}, {}), kael::ValueError);
}

TEST(MatmulFlops, MmAndBmmCountAsMatmulDoes) {
    EXPECT_EQ(matmul_flops(event("mm", {{4, 3}, {3, 5}})), 120);
    EXPECT_EQ(matmul_flops(event("bmm", {{2, 4, 3}, {2, 3, 5}})), 240);
    EXPECT_THROW((void)matmul_flops(event("mm", {{4, 3}, {4, 5}})), kael::ValueError);
    EXPECT_THROW((void)matmul_flops(event("bmm", {{2, 4, 3}, {2, 4, 5}})), kael::ValueError);
}

TEST(MatmulFlops, OtherOperationsCountNothing) {
    EXPECT_EQ(matmul_flops(event("add", {{4, 3}, {4, 3}})), 0);
    EXPECT_EQ(matmul_flops(event("exp", {{4, 3}})), 0);
    EXPECT_EQ(matmul_flops(event("Linear", {{8, 3}})), 0);
    EXPECT_EQ(matmul_flops(event("MmBackward", {{4, 5}})), 0);
    // kael::matmul of two vectors calls kael::dot inside, and both are recorded: counting
    // the dot as well would count that product twice.
    EXPECT_EQ(matmul_flops(event("dot", {{5}, {5}})), 0);
    // The name must be one of the three, not merely contain one.
    EXPECT_EQ(matmul_flops(event("matmul_", {{4, 3}, {3, 5}})), 0);
    EXPECT_EQ(matmul_flops(event("Matmul", {{4, 3}, {3, 5}})), 0);
    EXPECT_EQ(matmul_flops(event("addmm", {{4, 5}, {4, 3}, {3, 5}})), 0);
    // Shapes that could not be multiplied are no error for an operation that does not.
    EXPECT_EQ(matmul_flops(event("cat", {{2, 3}, {5, 3}})), 0);
    EXPECT_EQ(matmul_flops(event("sum", {{}})), 0);
    EXPECT_EQ(matmul_flops(event("randn", {})), 0);
}

TEST(MatmulFlops, LargeCountsAreExactBeyondThirtyTwoBits) {
    // 2 * 4096^3 is about 1.4e11: an int would have wrapped long before.
    EXPECT_EQ(flops({4096, 4096}, {4096, 4096}), std::int64_t{137438953472});
    EXPECT_EQ(flops({32, 2048, 4096}, {4096, 2048}), std::int64_t{2} * 32 * 2048 * 2048 * 4096);
}

TEST(GflopsPerSecond, IsAllMatmulFlopsOverAllMatmulTime) {
    // 2 * 1000^3 flops in one second: 2 GFLOP/s.
    EXPECT_DOUBLE_EQ(gflops_per_second({event("matmul", {{1000, 1000}, {1000, 1000}}, 1e6)}), 2.0);
    // Two products: the totals are divided, not the rates averaged. 2e9 flops in 1 s and
    // 2e9 more in 3 s are 4e9 in 4 s, 1 GFLOP/s (the mean of the rates would be 1.33).
    EXPECT_DOUBLE_EQ(gflops_per_second({event("matmul", {{1000, 1000}, {1000, 1000}}, 1e6),
                                        event("mm", {{1000, 1000}, {1000, 1000}}, 3e6)}),
                     1.0);
    // A product without arithmetic still took its time: 2000 flops in 2 microseconds.
    EXPECT_DOUBLE_EQ(gflops_per_second({event("matmul", {{10, 10}, {10, 10}}, 1.0),
                                        event("bmm", {{1, 10, 0}, {1, 0, 10}}, 1.0)}),
                     1.0);
    // Fractions of a microsecond count as they are.
    EXPECT_DOUBLE_EQ(gflops_per_second({event("matmul", {{1, 1}, {1, 1}}, 0.5)}), 4e-3);
}

TEST(GflopsPerSecond, TheTimeOfOtherOperationsIsLeftOut) {
    const std::vector<ProfileEvent> events{
        event("add", {{1000, 1000}, {1000, 1000}}, 5e6),
        event("matmul", {{1000, 1000}, {1000, 1000}}, 1e6),
        event("Linear", {{1000, 1000}}, 9e6),
        event("dot", {{1000}, {1000}}, 2e6),
    };
    EXPECT_DOUBLE_EQ(gflops_per_second(events), 2.0);
}

TEST(GflopsPerSecond, WithoutMatmulTimeTheRateIsZero) {
    EXPECT_EQ(gflops_per_second({}), 0.0);
    EXPECT_EQ(gflops_per_second({event("add", {{4, 3}, {4, 3}}, 10.0), event("exp", {{4, 3}}, 3.0)}), 0.0);
    // Products that took no measurable time: 0, not infinity or NaN.
    EXPECT_EQ(gflops_per_second({event("matmul", {{4, 3}, {3, 5}}, 0.0)}), 0.0);
    EXPECT_EQ(gflops_per_second({event("matmul", {{4, 3}, {3, 5}}, 0.0), event("add", {{4, 5}, {4, 5}}, 7.0)}),
              0.0);
    // As little as one microsecond of it is enough for a rate.
    EXPECT_GT(gflops_per_second({event("matmul", {{4, 3}, {3, 5}}, 1.0)}), 0.0);
}

TEST(GflopsPerSecond, AMatmulThatCannotBeMultipliedIsAValueError) {
    EXPECT_THROW((void)gflops_per_second({event("matmul", {{4, 3}, {3, 5}}), event("matmul", {{4, 3}, {4, 5}})}),
                 kael::ValueError);
    // The same shapes under another name are left out, not refused.
    EXPECT_EQ(gflops_per_second({event("matmul", {{1000, 1000}, {1000, 1000}}, 1e6), event("add", {{4, 3}, {4, 5}})}),
              2.0);
}

// The products of the profiled run below: the operands' shapes and their flops, worked out
// by hand from 2 * batch * M * N * K.
struct Product {
    Shape a;
    Shape b;
    std::int64_t flops;
};

const std::vector<Product> kProducts{
    {{4, 3}, {3, 5}, 2 * 4 * 5 * 3},
    {{6}, {6}, 2 * 6},
    {{6}, {6, 2}, 2 * 2 * 6},
    {{3, 6}, {6}, 2 * 3 * 6},
    {{2, 3, 4}, {4, 5}, 2 * 2 * 3 * 5 * 4},
    {{2, 1, 3, 4}, {5, 4, 2}, 2 * (2 * 5) * 3 * 2 * 4},
    {{4, 0}, {0, 3}, 0},
    {{64, 64}, {64, 64}, 2 * 64 * 64 * 64},
};

TEST(ProfiledMatmul, EveryRecordedProductCountsItsFormula) {
    std::vector<std::pair<kael::Tensor, kael::Tensor>> operands;
    for (const Product& product : kProducts) {
        operands.emplace_back(kael::ones(product.a), kael::ones(product.b));
    }
    kael::Profiler profiler;
    for (const auto& [a, b] : operands) {
        (void)kael::matmul(a, b);
    }
    profiler.stop();

    std::vector<ProfileEvent> products;
    for (const ProfileEvent& e : profiler.events()) {
        if (e.name == "matmul") {
            products.push_back(e);
        } else {
            // Whatever else the run recorded (the dot inside a product of two vectors)
            // counts nothing.
            EXPECT_EQ(matmul_flops(e), 0) << e.name;
        }
    }
    ASSERT_EQ(products.size(), kProducts.size());
    for (std::size_t i = 0; i < kProducts.size(); ++i) {
        EXPECT_EQ(products[i].shapes, (std::vector<Shape>{kProducts[i].a, kProducts[i].b})) << i;
        EXPECT_EQ(matmul_flops(products[i]), kProducts[i].flops) << i;
    }
}

TEST(ProfiledMatmul, TheRateOfARunIsItsFlopsOverItsMatmulTime) {
    const kael::Tensor a = kael::ones({96, 64});
    const kael::Tensor b = kael::ones({64, 80});
    const kael::Tensor batch = kael::ones({3, 80, 32});
    kael::Profiler profiler;
    for (int i = 0; i < 4; ++i) {
        const kael::Tensor c = kael::matmul(a, b);  // [96, 80]
        (void)kael::matmul(c, batch);               // [3, 96, 32]
        (void)kael::exp(c);
    }
    profiler.stop();
    const std::vector<ProfileEvent> events = profiler.events();

    const std::int64_t expected_flops = 4 * (2 * 96 * 80 * 64 + 2 * 3 * 96 * 32 * 80);
    std::int64_t counted = 0;
    double microseconds = 0;
    for (const ProfileEvent& e : events) {
        counted += matmul_flops(e);
        if (e.name == "matmul") {
            microseconds += e.duration_us;
        }
    }
    EXPECT_EQ(counted, expected_flops);
    ASSERT_GT(microseconds, 0.0);
    const double expected = static_cast<double>(expected_flops) / microseconds / 1e3;
    EXPECT_NEAR(gflops_per_second(events), expected, expected * 1e-12);
}

}  // namespace
