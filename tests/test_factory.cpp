// Factories: every way to create a tensor from nothing or from C++ values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"

namespace {

using kael::testing::values;
using kael::testing::message_of;

using kael::DType;
using kael::Shape;
using kael::Tensor;



TEST(Factory, EmptyDefaultsToFloat32OnTheCpu) {
    const Tensor t = kael::empty({2, 3});
    EXPECT_EQ(t.dtype(), DType::F32);
    EXPECT_EQ(t.device(), kael::Device::CPU);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.strides(), (kael::Strides{3, 1}));
    EXPECT_EQ(t.offset(), 0);
    EXPECT_EQ(t.impl()->storage->nbytes(), 24);
}

TEST(Factory, NegativeDimensionThrows) {
    EXPECT_THROW((void)kael::empty({2, -1}), kael::ValueError);
    EXPECT_THROW((void)kael::zeros({-5}), kael::ValueError);
}

TEST(Factory, BytesOverflowThrows) {
    // [2^61, 2] has 2^62 elements, which fits in int64, but 2^65 bytes of float64.
    const Shape shape{std::int64_t{1} << 61, 2};
    EXPECT_EQ(kael::numel(shape), std::int64_t{1} << 62);
    const std::string message = message_of([&] { (void)kael::empty(shape, DType::F64); });
    EXPECT_NE(message.find("tensor size in bytes overflows int64 (4611686018427387904 * 8)"),
              std::string::npos)
        << message;
    EXPECT_THROW((void)kael::empty(shape, DType::F64), kael::ValueError);
}

TEST(Factory, ZeroSizedDimensionAllocatesNothing) {
    const Tensor t = kael::zeros({3, 0, 2});
    EXPECT_EQ(t.numel(), 0);
    EXPECT_EQ(t.impl()->storage->nbytes(), 0);
    EXPECT_EQ(t.impl()->storage->data(), nullptr);
    EXPECT_EQ(t.clone().numel(), 0);
}

TEST(Factory, ZerosOnesAndFull) {
    EXPECT_EQ(values<float>(kael::zeros({3})), (std::vector<float>{0, 0, 0}));
    EXPECT_EQ(values<double>(kael::ones({2}, DType::F64)), (std::vector<double>{1, 1}));
    EXPECT_EQ(values<std::int64_t>(kael::full({2}, 7, DType::I64)), (std::vector<std::int64_t>{7, 7}));
    EXPECT_EQ(values<float>(kael::full({2, 2}, 2.5)), (std::vector<float>{2.5, 2.5, 2.5, 2.5}));
}

TEST(Factory, FullWithBoolStoresOnes) {
    EXPECT_EQ(values<std::uint8_t>(kael::full({2}, 2.5, DType::Bool)),
              (std::vector<std::uint8_t>{1, 1}));
    EXPECT_EQ(values<std::uint8_t>(kael::full({2}, 0.0, DType::Bool)),
              (std::vector<std::uint8_t>{0, 0}));
}

TEST(Factory, FullTruncatesForIntegers) {
    EXPECT_EQ(values<std::int64_t>(kael::full({1}, -2.7, DType::I64)), (std::vector<std::int64_t>{-2}));
}

TEST(Factory, LikeVariantsCopyShapeDtypeAndDevice) {
    const Tensor like = kael::zeros({4, 1}, DType::I64);
    for (const Tensor& t : {kael::empty_like(like), kael::zeros_like(like), kael::ones_like(like)}) {
        EXPECT_EQ(t.shape(), like.shape());
        EXPECT_EQ(t.dtype(), DType::I64);
        EXPECT_EQ(t.device(), like.device());
        EXPECT_FALSE(t.shares_storage(like));
    }
    EXPECT_EQ(values<std::int64_t>(kael::ones_like(like)), (std::vector<std::int64_t>{1, 1, 1, 1}));
}

TEST(Factory, ArangeCountsCeilOfTheRange) {
    EXPECT_EQ(values<float>(kael::arange(0, 5, 2)), (std::vector<float>{0, 2, 4}));
    EXPECT_EQ(values<float>(kael::arange(5)), (std::vector<float>{0, 1, 2, 3, 4}));
    EXPECT_EQ(values<float>(kael::arange(1, 2, 0.25)), (std::vector<float>{1, 1.25, 1.5, 1.75}));
    EXPECT_EQ(values<float>(kael::arange(3, 0, -1)), (std::vector<float>{3, 2, 1}));
    EXPECT_EQ(kael::arange(2, 2).numel(), 0);  // start == end: empty
    EXPECT_EQ(kael::arange(0).numel(), 0);
}

TEST(Factory, ArangeTruncatesStartAndStepForIntegers) {
    // ceil(3.0 / 1.5) = 2 values; start truncates to 0 and step to 1.
    EXPECT_EQ(values<std::int64_t>(kael::arange(0.5, 3.5, 1.5, DType::I64)),
              (std::vector<std::int64_t>{0, 1}));
    EXPECT_EQ(values<std::int64_t>(kael::arange(-3, 3, 2, DType::I64)),
              (std::vector<std::int64_t>{-3, -1, 1}));
}

TEST(Factory, ArangeRejectsAStepThatTruncatesToZero) {
    // One past the limit: a step of 0.99 truncates to 0 and would repeat the first value.
    EXPECT_THROW((void)kael::arange(0, 3, 0.99, DType::I64), kael::ValueError);
    EXPECT_THROW((void)kael::arange(0, -3, -0.5, DType::I64), kael::ValueError);
    // Exactly at the limit: a step of 1 is the smallest an integer arange can take.
    EXPECT_EQ(values<std::int64_t>(kael::arange(0, 3, 1.0, DType::I64)),
              (std::vector<std::int64_t>{0, 1, 2}));
    // The same step is fine for floating results.
    EXPECT_EQ(kael::arange(0, 3, 0.99, DType::F64).numel(), 4);
}

TEST(Factory, ArangeComputesEachValueFromStart) {
    // Accumulating value += 0.1 a thousand times drifts; start + i * step does not.
    const Tensor t = kael::arange(0, 100, 0.1, DType::F64);
    EXPECT_EQ(t.numel(), 1000);
    EXPECT_EQ(t.at<double>({999}), 999 * 0.1);
}

TEST(Factory, ArangeRejectsBadArguments) {
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_THROW((void)kael::arange(0, 5, 0), kael::ValueError);
    EXPECT_THROW((void)kael::arange(0, 5, -1), kael::ValueError);
    EXPECT_THROW((void)kael::arange(5, 0, 1), kael::ValueError);
    EXPECT_THROW((void)kael::arange(0, inf), kael::ValueError);
    EXPECT_THROW((void)kael::arange(std::nan(""), 3), kael::ValueError);
    EXPECT_THROW((void)kael::arange(0, 3, std::nan("")), kael::ValueError);
    EXPECT_THROW((void)kael::arange(0, 1e300, 1e-300), kael::ValueError);
    EXPECT_THROW((void)kael::arange(0, 1e19, 1e18, DType::I64), kael::ValueError);
    EXPECT_THROW((void)kael::arange(0, 3, 1, DType::Bool), kael::TypeError);
}

TEST(Factory, LinspaceExamples) {
    EXPECT_EQ(values<float>(kael::linspace(0, 1, 5)), (std::vector<float>{0, 0.25, 0.5, 0.75, 1}));
    EXPECT_EQ(values<float>(kael::linspace(3, 7, 1)), (std::vector<float>{3}));
    EXPECT_EQ(kael::linspace(3, 7, 0).numel(), 0);
    EXPECT_EQ(values<double>(kael::linspace(1, -1, 3, DType::F64)), (std::vector<double>{1, 0, -1}));
}

TEST(Factory, LinspaceLastIsExactlyEnd) {
    for (const std::int64_t steps : {2, 3, 7, 10, 1001}) {
        const Tensor f = kael::linspace(0.1, 0.7, steps);
        EXPECT_EQ(f.at<float>({0}), 0.1f);
        EXPECT_EQ(f.at<float>({steps - 1}), 0.7f) << steps;
        const Tensor d = kael::linspace(0.1, 0.7, steps, DType::F64);
        EXPECT_EQ(d.at<double>({steps - 1}), 0.7) << steps;
    }
}

TEST(Factory, LinspaceCountsTheSecondHalfBackFromTheEnd) {
    // PyTorch computes the first half as start + i * delta and the second half as
    // end - (steps - 1 - i) * delta. For these arguments the two formulas give different
    // floats in the second half, so only the symmetric one matches.
    const float start = 0.1f;
    const float end = 0.7f;
    const std::int64_t steps = 7;
    const float delta = (end - start) / static_cast<float>(steps - 1);
    const auto v = values<float>(kael::linspace(start, end, steps));
    for (std::int64_t i = 0; i < steps; ++i) {
        const float expected = i < steps / 2 ? start + delta * static_cast<float>(i)
                                             : end - delta * static_cast<float>(steps - 1 - i);
        EXPECT_EQ(v[static_cast<std::size_t>(i)], expected) << i;
    }
    EXPECT_NE(v[4], start + delta * 4.0f);  // the forward formula is off here
}

TEST(Factory, LinspaceRejectsNegativeStepsAndIntegers) {
    EXPECT_THROW((void)kael::linspace(0, 1, -1), kael::ValueError);
    EXPECT_THROW((void)kael::linspace(0, 1, 3, DType::I64), kael::TypeError);
    EXPECT_THROW((void)kael::linspace(0, 1, 3, DType::Bool), kael::TypeError);
}

TEST(Factory, Eye) {
    EXPECT_EQ(values<float>(kael::eye(2)), (std::vector<float>{1, 0, 0, 1}));
    EXPECT_EQ(values<std::int64_t>(kael::eye(3, DType::I64)),
              (std::vector<std::int64_t>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
    EXPECT_EQ(kael::eye(0).shape(), (Shape{0, 0}));
    EXPECT_THROW((void)kael::eye(-1), kael::ValueError);
}

TEST(Factory, ScalarIsZeroDimensional) {
    const Tensor t = kael::scalar(4.5, DType::F64);
    EXPECT_EQ(t.shape(), Shape{});
    EXPECT_EQ(t.dim(), 0);
    EXPECT_EQ(t.numel(), 1);
    EXPECT_EQ(t.item<double>(), 4.5);
}

TEST(Factory, FromVectorDeducesTheDtype) {
    EXPECT_EQ(kael::from_vector({1.f, 2.f}).dtype(), DType::F32);
    EXPECT_EQ(kael::from_vector({1.0, 2.0}).dtype(), DType::F64);
    EXPECT_EQ(kael::from_vector({std::int64_t{1}}).dtype(), DType::I64);
    EXPECT_EQ(kael::from_vector(std::vector<std::uint8_t>{1}).dtype(), DType::Bool);
    EXPECT_EQ(kael::from_vector({true}).dtype(), DType::Bool);
}

TEST(Factory, FromVectorWithShape) {
    const Tensor t = kael::from_vector(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.at<double>({1, 0}), 4.0);
    const Tensor s = kael::from_vector({9.f}, {});
    EXPECT_EQ(s.dim(), 0);
    EXPECT_EQ(s.item<float>(), 9.f);
}

TEST(Factory, FromVectorCountMustMatchTheShape) {
    EXPECT_THROW((void)kael::from_vector({1.f, 2.f, 3.f}, {2, 2}), kael::ValueError);
    EXPECT_THROW((void)kael::from_vector({true, false}, {3}), kael::ValueError);
    EXPECT_NO_THROW((void)kael::from_vector(std::vector<float>{}, {0, 5}));
}

TEST(Factory, FromVectorNormalizesBoolBytes) {
    EXPECT_EQ(values<std::uint8_t>(kael::from_vector(std::vector<std::uint8_t>{2, 0, 255})),
              (std::vector<std::uint8_t>{1, 0, 1}));
}

TEST(Factory, FromVectorOfBools) {
    EXPECT_EQ(values<std::uint8_t>(kael::from_vector(std::vector<bool>{true, false, true})),
              (std::vector<std::uint8_t>{1, 0, 1}));
    EXPECT_EQ(values<std::uint8_t>(kael::from_vector({false, true, true, false}, {2, 2})),
              (std::vector<std::uint8_t>{0, 1, 1, 0}));
}

TEST(Factory, FromVectorCopiesTheData) {
    std::vector<float> source{1, 2};
    const Tensor t = kael::from_vector(source);
    source[0] = 9;
    EXPECT_EQ(t.at<float>({0}), 1.0f);
}

}  // namespace
