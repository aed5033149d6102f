// Reductions over all elements and over dimensions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Tensor;
using kael::testing::message_of;
using kael::testing::values;

using I = std::int64_t;
const double kNan = std::nan("");
constexpr double kInf = std::numeric_limits<double>::infinity();

// [[1, 2, 3], [4, 5, 6]] as float64.
Tensor matrix() { return kael::arange(1, 7, 1, DType::F64).view({2, 3}); }

TEST(Reduce, SumOverAllAndOverDims) {
    const Tensor m = matrix();
    EXPECT_EQ(kael::sum(m).item<double>(), 21);
    EXPECT_EQ(kael::sum(m).dim(), 0);
    EXPECT_EQ(values<double>(kael::sum(m, {0})), (std::vector<double>{5, 7, 9}));
    EXPECT_EQ(values<double>(kael::sum(m, {1})), (std::vector<double>{6, 15}));
    EXPECT_EQ(values<double>(kael::sum(m, {-1})), (std::vector<double>{6, 15}));
    EXPECT_EQ(kael::sum(m, {0, 1}).item<double>(), 21);
    EXPECT_EQ(kael::sum(m, {1}, true).shape(), (Shape{2, 1}));
    EXPECT_EQ(kael::sum(m, {0, 1}, true).shape(), (Shape{1, 1}));
    EXPECT_EQ(kael::sum(m, {}).item<double>(), 21);  // an empty list reduces everything
}

TEST(Reduce, EveryLayoutGivesTheSameSums) {
    kael::manual_seed(4);
    const Tensor cube = kael::randint(-50, 50, {3, 4, 5}).to(DType::F64);
    // Reduce the middle dimension of the contiguous cube and of a transposed copy.
    const Tensor direct = kael::sum(cube, {1});
    const Tensor via_transpose = kael::sum(cube.transpose(0, 2).contiguous(), {1}).transpose(0, 1);
    EXPECT_EQ(values<double>(direct), values<double>(via_transpose));
    // Leading dimensions (the column path) against trailing ones of the transpose.
    EXPECT_EQ(values<double>(kael::sum(cube, {0, 1})),
              values<double>(kael::sum(cube.permute({2, 0, 1}).contiguous(), {1, 2})));
    // A strided view.
    const Tensor strided = cube.slice(2, 0, 5, 2);
    double expected = 0;
    for (I i = 0; i < 3; ++i) {
        for (I j = 0; j < 4; ++j) {
            for (I k = 0; k < 3; ++k) {
                expected += strided.at<double>({i, j, k});
            }
        }
    }
    EXPECT_EQ(kael::sum(strided).item<double>(), expected);
}

TEST(Reduce, IntegerAndBoolSumsAreInt64) {
    EXPECT_EQ(kael::sum(kael::from_vector({true, true, false})).dtype(), DType::I64);
    EXPECT_EQ(kael::sum(kael::from_vector({true, true, false})).item<I>(), 2);
    EXPECT_EQ(kael::sum(kael::from_vector({I{3}, I{4}})).item<I>(), 7);
    EXPECT_EQ(kael::prod(kael::from_vector({I{3}, I{4}})).item<I>(), 12);
    EXPECT_EQ(kael::sum(kael::from_vector({1.5f})).dtype(), DType::F32);
}

TEST(Reduce, FloatSumsAccumulateAccurately) {
    // 10^7 copies of 0.1f sum to 1000000.015. One running float total ends near 1087937,
    // 9% off: once the total is large, each 0.1 is rounded to the total's coarse spacing.
    // Blocked partial sums stay within 1e-5, like PyTorch's cascade summation.
    const Tensor t = kael::full({10'000'000}, 0.1f);
    EXPECT_NEAR(kael::sum(t).item<float>(), 1000000.015f, 10.0f);
}

TEST(Reduce, EmptyReductions) {
    EXPECT_EQ(kael::sum(kael::zeros({0})).item<float>(), 0.0f);
    EXPECT_EQ(kael::prod(kael::zeros({0})).item<float>(), 1.0f);
    EXPECT_TRUE(std::isnan(kael::mean(kael::zeros({0})).item<float>()));
    EXPECT_EQ(kael::sum(kael::zeros({2, 0}), {1}).shape(), (Shape{2}));
    EXPECT_EQ(values<float>(kael::sum(kael::zeros({2, 0}), {1})), (std::vector<float>{0, 0}));
    EXPECT_THROW((void)kael::amax(kael::zeros({2, 0}), {1}), kael::IndexError);
    EXPECT_THROW((void)kael::max(kael::zeros({0})), kael::IndexError);
    EXPECT_EQ(kael::amax(kael::zeros({0, 2}), {1}).shape(), (Shape{0}));  // nothing to reduce into
    EXPECT_FALSE(kael::any(kael::zeros({0})).item<std::uint8_t>());
    EXPECT_TRUE(kael::all(kael::zeros({0})).item<std::uint8_t>());
    EXPECT_EQ(kael::logsumexp(kael::zeros({1, 0}), {1}).item<float>(), -std::numeric_limits<float>::infinity());
}

// The message names the shape the user passed, not a rearrangement made for the loops.
TEST(Reduce, EmptyDimensionMessageShowsTheUsersShape) {
    const std::string message = message_of([] { (void)kael::max(kael::zeros({0, 3}), 0); });
    EXPECT_NE(message.find("shape [0, 3]"), std::string::npos) << message;
    EXPECT_EQ(kael::max(kael::zeros({3, 0}), 0).values.shape(), (Shape{0}));  // nothing to reduce into
}

// PyTorch has no argmax or argmin for bool tensors (max and min of a bool tensor work).
TEST(Reduce, ArgmaxRefusesBool) {
    const Tensor flags = kael::from_vector({false, true});
    EXPECT_THROW((void)kael::argmax(flags), kael::TypeError);
    EXPECT_THROW((void)kael::argmin(flags, 0), kael::TypeError);
    EXPECT_EQ(kael::max(flags, 0).indices.item<I>(), 1);
    EXPECT_EQ(kael::argmax(flags.to(DType::I64)).item<I>(), 1);
}

// Reductions read strided inputs in place, in memory order; the results equal those of the
// same values laid out contiguously.
TEST(Reduce, StridedInputsGiveTheContiguousResults) {
    const Tensor base = kael::randn({6, 5, 4}, DType::F64);
    const Tensor permuted = base.permute({2, 0, 1});               // [4, 6, 5]
    const Tensor stepped = base.slice(0, 0, 6, 2).slice(2, 1, 4);  // [3, 5, 3], strides [40, 4, 1]
    const Tensor broadcast = kael::randn({5, 1}, DType::F64).expand({5, 7});
    for (const Tensor& t : {permuted, stepped, broadcast}) {
        const Tensor dense = t.contiguous();
        for (const kael::Dims& dims : {kael::Dims{0}, kael::Dims{1}, kael::Dims{0, 1}, kael::Dims{}, kael::Dims{-1}}) {
            const auto near = [&](const Tensor& a, const Tensor& b) {
                ASSERT_EQ(a.shape(), b.shape());
                const auto x = values<double>(a);
                const auto y = values<double>(b);
                for (std::size_t i = 0; i < x.size(); ++i) {
                    EXPECT_NEAR(x[i], y[i], 1e-12) << "dims " << kael::to_string(dims);
                }
            };
            near(kael::sum(t, dims), kael::sum(dense, dims));
            near(kael::mean(t, dims, true), kael::mean(dense, dims, true));
            near(kael::amax(t, dims), kael::amax(dense, dims));
            near(kael::prod(t, dims), kael::prod(dense, dims));
        }
    }
}

TEST(Reduce, MeanNeedsFloatingPoint) {
    EXPECT_EQ(values<double>(kael::mean(matrix(), {0})), (std::vector<double>{2.5, 3.5, 4.5}));
    EXPECT_THROW((void)kael::mean(kael::from_vector({I{1}})), kael::TypeError);
    EXPECT_NE(message_of([] { (void)kael::mean(kael::from_vector({I{1}})); }).find("to(DType::F32)"), std::string::npos);
}

TEST(Reduce, ExtremesPropagateNan) {
    const Tensor x = kael::from_vector({1.0, kNan, 3.0});
    EXPECT_TRUE(std::isnan(kael::max(x).item<double>()));
    EXPECT_TRUE(std::isnan(kael::amin(x).item<double>()));
    EXPECT_EQ(kael::argmax(x).item<I>(), 1);  // the first NaN counts as the maximum
    EXPECT_EQ(kael::max(kael::from_vector({-kInf, -kInf})).item<double>(), -kInf);
    EXPECT_EQ(values<double>(kael::amax(matrix(), {0})), (std::vector<double>{4, 5, 6}));
    EXPECT_EQ(values<double>(kael::amin(matrix(), {1})), (std::vector<double>{1, 4}));
}

TEST(Reduce, MaxAndMinAlongADimensionReturnIndices) {
    const Tensor t = kael::from_vector({1.0, 5.0, 5.0, 1.0}, {2, 2});
    const kael::ValuesIndices best = kael::max(t, 1);
    EXPECT_EQ(values<double>(best.values), (std::vector<double>{5, 5}));
    EXPECT_EQ(values<I>(best.indices), (std::vector<I>{1, 0}));
    const kael::ValuesIndices least = kael::min(t, 0, true);
    EXPECT_EQ(least.values.shape(), (Shape{1, 2}));
    EXPECT_EQ(values<I>(least.indices), (std::vector<I>{0, 1}));
    // Ties pick the first position.
    EXPECT_EQ(kael::argmax(kael::from_vector({I{3}, I{1}, I{3}})).item<I>(), 0);
    EXPECT_EQ(values<I>(kael::argmin(matrix(), 0)), (std::vector<I>{0, 0, 0}));
    EXPECT_EQ(kael::argmax(matrix()).item<I>(), 5);
    EXPECT_THROW((void)kael::max(matrix(), 2), kael::IndexError);
}

TEST(Reduce, VarianceAndStandardDeviation) {
    const Tensor m = matrix();
    EXPECT_DOUBLE_EQ(kael::var(m).item<double>(), 3.5);
    EXPECT_EQ(values<double>(kael::var(m, {1})), (std::vector<double>{1, 1}));
    EXPECT_EQ(values<double>(kael::std(m, {0}, 0)), (std::vector<double>{1.5, 1.5, 1.5}));
    EXPECT_TRUE(std::isnan(kael::var(kael::from_vector({5.0})).item<double>()));  // N - 1 = 0
    EXPECT_EQ(kael::var(kael::from_vector({5.0}), {}, 0).item<double>(), 0.0);
    EXPECT_THROW((void)kael::var(kael::from_vector({I{1}, I{2}})), kael::TypeError);
    // Large offsets: the two-pass formula keeps the variance exact.
    EXPECT_DOUBLE_EQ(kael::var(kael::from_vector({1e9 + 1, 1e9 + 2, 1e9 + 3})).item<double>(), 1.0);
}

TEST(Reduce, LogsumexpIsStable) {
    EXPECT_NEAR(values<double>(kael::logsumexp(matrix(), {1}))[0], 3.4076059644443806, 1e-12);
    const Tensor huge = kael::from_vector({1000.0, 1000.0});
    EXPECT_NEAR(kael::logsumexp(huge, {0}).item<double>(), 1000 + std::log(2.0), 1e-12);
    EXPECT_EQ(kael::logsumexp(kael::from_vector({-kInf, -kInf}), {0}).item<double>(), -kInf);
    EXPECT_EQ(kael::logsumexp(kael::from_vector({kInf, 1.0}), {0}).item<double>(), kInf);
    EXPECT_EQ(kael::logsumexp(kael::from_vector({I{0}, I{0}}), {0}).dtype(), DType::F32);
}

TEST(Reduce, AnyAndAll) {
    const Tensor t = kael::from_vector({0.0, 0.0, 2.0, 0.0}, {2, 2});
    EXPECT_TRUE(kael::any(t).item<std::uint8_t>());
    EXPECT_FALSE(kael::all(t).item<std::uint8_t>());
    EXPECT_EQ(values<std::uint8_t>(kael::any(t, {1})), (std::vector<std::uint8_t>{0, 1}));
    EXPECT_EQ(values<std::uint8_t>(kael::all(kael::ones({2, 2}), {0})), (std::vector<std::uint8_t>{1, 1}));
    EXPECT_EQ(kael::any(t).dtype(), DType::Bool);
}

TEST(Reduce, DimensionsAreCheckedAndMustNotRepeat) {
    EXPECT_THROW((void)kael::sum(matrix(), {2}), kael::IndexError);
    EXPECT_THROW((void)kael::sum(matrix(), {0, -2}), kael::ValueError);
    EXPECT_EQ(kael::sum(kael::scalar(4.0), {0}).item<float>(), 4.0f);  // 0-d accepts dim 0
}

TEST(Reduce, Cumsum) {
    EXPECT_EQ(values<double>(kael::cumsum(matrix(), 1)), (std::vector<double>{1, 3, 6, 4, 9, 15}));
    EXPECT_EQ(values<double>(kael::cumsum(matrix(), 0)), (std::vector<double>{1, 2, 3, 5, 7, 9}));
    const Tensor bools = kael::cumsum(kael::from_vector({true, true, false}), 0);
    EXPECT_EQ(bools.dtype(), DType::I64);
    EXPECT_EQ(values<I>(bools), (std::vector<I>{1, 2, 2}));
    EXPECT_EQ(kael::cumsum(kael::scalar(3.0), 0).item<float>(), 3.0f);
    EXPECT_THROW((void)kael::cumsum(matrix(), 2), kael::IndexError);
}

TEST(Reduce, MethodsForwardToTheFunctions) {
    const Tensor m = matrix();
    EXPECT_EQ(m.sum().item<double>(), 21);
    EXPECT_EQ(values<double>(m.sum({0}, true)), (std::vector<double>{5, 7, 9}));
    EXPECT_EQ(m.mean().item<double>(), 3.5);
    EXPECT_EQ(m.max().item<double>(), 6);
    EXPECT_EQ(m.min().item<double>(), 1);
    EXPECT_EQ(values<I>(m.argmax(1)), (std::vector<I>{2, 2}));
}

}  // namespace
