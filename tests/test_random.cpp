// Random factories. Exact values depend on the standard library's distributions, so these
// tests compare runs with each other and check statistics, never hard-coded samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/random.h"

namespace {

using kael::testing::values;

using kael::DType;
using kael::Tensor;


double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

TEST(Random, SameSeedSameValues) {
    kael::manual_seed(42);
    const auto first = values<float>(kael::randn({100}));
    const auto first_ints = values<std::int64_t>(kael::randint(0, 1000, {50}));
    kael::manual_seed(42);
    EXPECT_EQ(values<float>(kael::randn({100})), first);
    EXPECT_EQ(values<std::int64_t>(kael::randint(0, 1000, {50})), first_ints);
}

TEST(Random, DifferentSeedsDiffer) {
    kael::manual_seed(1);
    const auto a = values<double>(kael::rand({64}, DType::F64));
    kael::manual_seed(2);
    EXPECT_NE(values<double>(kael::rand({64}, DType::F64)), a);
}

TEST(Random, ConsecutiveDrawsDiffer) {
    kael::manual_seed(3);
    EXPECT_NE(values<float>(kael::rand({16})), values<float>(kael::rand({16})));
}

TEST(Random, Float32AndFloat64SeeTheSameSequence) {
    for (const bool normal : {false, true}) {
        kael::manual_seed(7);
        const Tensor f = normal ? kael::randn({257}) : kael::rand({257});
        kael::manual_seed(7);
        const Tensor d = normal ? kael::randn({257}, DType::F64) : kael::rand({257}, DType::F64);
        for (std::int64_t i = 0; i < 257; ++i) {
            EXPECT_EQ(f.at<float>({i}), static_cast<float>(d.at<double>({i})));
        }
    }
}

TEST(Random, RandInUnitInterval) {
    kael::manual_seed(0);
    for (const DType dtype : {DType::F32, DType::F64}) {
        const auto v = values<double>(kael::rand({100000}, dtype).to(DType::F64));
        EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
        EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0);
        EXPECT_NEAR(mean(v), 0.5, 0.01);
    }
}

TEST(Random, RandnHasMeanZeroAndUnitDeviation) {
    kael::manual_seed(0);
    const auto v = values<double>(kael::randn({100000}, DType::F64));
    const double m = mean(v);
    double variance = 0;
    for (const double x : v) {
        variance += (x - m) * (x - m);
    }
    variance /= static_cast<double>(v.size() - 1);
    EXPECT_NEAR(m, 0.0, 0.02);
    EXPECT_NEAR(std::sqrt(variance), 1.0, 0.02);
}

TEST(Random, FloatingSamplersRejectOtherDtypes) {
    EXPECT_THROW((void)kael::rand({2}, DType::I64), kael::TypeError);
    EXPECT_THROW((void)kael::randn({2}, DType::Bool), kael::TypeError);
}

TEST(Random, RandintStaysInBounds) {
    kael::manual_seed(5);
    const auto v = values<std::int64_t>(kael::randint(-3, 4, {10000}));
    EXPECT_EQ(*std::min_element(v.begin(), v.end()), -3);  // both ends are reached
    EXPECT_EQ(*std::max_element(v.begin(), v.end()), 3);
    EXPECT_EQ(kael::randint(0, 5, {2, 3}).dtype(), DType::I64);
    EXPECT_EQ(values<std::int64_t>(kael::randint(9, 10, {4})), (std::vector<std::int64_t>{9, 9, 9, 9}));
}

TEST(Random, RandintRejectsEmptyRanges) {
    EXPECT_THROW((void)kael::randint(3, 3, {2}), kael::ValueError);
    EXPECT_THROW((void)kael::randint(4, 3, {2}), kael::ValueError);
}

TEST(Random, RandpermIsAPermutation) {
    kael::manual_seed(11);
    auto v = values<std::int64_t>(kael::randperm(100));
    EXPECT_NE(v[0] + v[1] * 100, 100);  // not the identity (probability 1/9900 of failing)
    std::sort(v.begin(), v.end());
    std::vector<std::int64_t> expected(100);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(v, expected);
    EXPECT_EQ(kael::randperm(0).numel(), 0);
    EXPECT_THROW((void)kael::randperm(-1), kael::ValueError);
}

TEST(Random, BernoulliExtremes) {
    EXPECT_EQ(values<float>(kael::bernoulli({5}, 0.0)), (std::vector<float>(5, 0.0f)));
    EXPECT_EQ(values<std::int64_t>(kael::bernoulli({5}, 1.0, DType::I64)),
              (std::vector<std::int64_t>(5, 1)));
}

TEST(Random, BernoulliFrequency) {
    kael::manual_seed(0);
    const auto v = values<std::uint8_t>(kael::bernoulli({100000}, 0.3, DType::Bool));
    const double ones = static_cast<double>(std::count(v.begin(), v.end(), 1));
    EXPECT_EQ(std::count(v.begin(), v.end(), 0) + std::count(v.begin(), v.end(), 1), 100000);
    EXPECT_NEAR(ones / 100000.0, 0.3, 0.01);
}

TEST(Random, BernoulliRejectsProbabilitiesOutsideTheUnitInterval) {
    EXPECT_THROW((void)kael::bernoulli({2}, -0.01), kael::ValueError);
    EXPECT_THROW((void)kael::bernoulli({2}, 1.01), kael::ValueError);
    EXPECT_THROW((void)kael::bernoulli({2}, std::nan("")), kael::ValueError);
}

}  // namespace
