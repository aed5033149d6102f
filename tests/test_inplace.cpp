// In-place operations and their guards: writable tensors, aliasing, dtypes, versions.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::testing::message_of;
using kael::testing::values;

using I = std::int64_t;

TEST(InPlace, WritesThroughEveryView) {
    Tensor base = kael::zeros({2, 3});
    base.slice(1, 1, 3).add_(1);
    EXPECT_EQ(values<float>(base), (std::vector<float>{0, 1, 1, 0, 1, 1}));
    base.transpose(0, 1)[0].fill_(7);
    EXPECT_EQ(values<float>(base), (std::vector<float>{7, 1, 1, 7, 1, 1}));
}

TEST(InPlace, ArithmeticWithTensorsAndScalars) {
    Tensor t = kael::from_vector({1.0, 2.0, 3.0});
    // ([1, 2, 3] + 2 * 1) * 2 - 1 = [5, 7, 9], then divided by [1, 2, 4].
    t.add_(kael::from_vector({1.0, 1.0, 1.0}), 2).mul_(2).sub_(1).div_(kael::from_vector({1.0, 2.0, 4.0}));
    EXPECT_EQ(values<double>(t), (std::vector<double>{5, 3.5, 2.25}));
    t.neg_();
    EXPECT_EQ(values<double>(t), (std::vector<double>{-5, -3.5, -2.25}));
    t.clamp_(-3.0, std::nullopt);
    EXPECT_EQ(values<double>(t), (std::vector<double>{-3, -3, -2.25}));
    t.zero_();
    EXPECT_EQ(values<double>(t), (std::vector<double>{0, 0, 0}));
}

TEST(InPlace, BroadcastsTheOperandButNeverTheTarget) {
    Tensor t = kael::zeros({2, 3});
    t.add_(kael::from_vector({1.f, 2.f, 3.f}));
    EXPECT_EQ(values<float>(t), (std::vector<float>{1, 2, 3, 1, 2, 3}));
    Tensor row = kael::zeros({3});
    EXPECT_THROW(row.add_(kael::zeros({2, 3})), kael::ValueError);
}

TEST(InPlace, ExpandedTensorThrows) {
    Tensor expanded = kael::zeros({3, 1}).expand({3, 4});
    EXPECT_THROW(expanded.add_(1), kael::Error);
    EXPECT_THROW(expanded.fill_(1), kael::Error);
    EXPECT_THROW(expanded.copy_(kael::ones({3, 4})), kael::Error);
    EXPECT_NE(message_of([&] { expanded.mul_(2); }).find("clone() it first"), std::string::npos);
    Tensor copy = expanded.clone();
    EXPECT_NO_THROW(copy.add_(1));
}

TEST(InPlace, ResultMustBeCastableToTheTarget) {
    Tensor ints = kael::from_vector({I{1}, I{2}});
    EXPECT_THROW(ints.add_(0.5), kael::TypeError);
    EXPECT_THROW(ints.div_(2), kael::TypeError);
    EXPECT_NE(message_of([&] { ints.add_(0.5); }).find("result type float32 can't be cast to the desired output type int64"),
              std::string::npos);
    EXPECT_NO_THROW(ints.add_(3));
    EXPECT_EQ(values<I>(ints), (std::vector<I>{4, 5}));
    Tensor floats = kael::zeros({2});
    EXPECT_NO_THROW(floats.add_(kael::from_vector({I{1}, I{2}})));  // int into float is fine
    EXPECT_EQ(values<float>(floats), (std::vector<float>{1, 2}));
    Tensor flags = kael::zeros({2}, DType::Bool);
    EXPECT_THROW(flags.add_(1), kael::TypeError);
    // Subtraction refuses a Bool operand on either side, in place as out of place.
    EXPECT_THROW(floats.sub_(kael::zeros({2}, DType::Bool)), kael::TypeError);
    EXPECT_THROW(floats.sub_(true), kael::TypeError);
    EXPECT_NO_THROW(floats.sub_(1));
    EXPECT_FALSE(kael::can_cast(DType::F32, DType::I64));
    EXPECT_FALSE(kael::can_cast(DType::I64, DType::Bool));
    EXPECT_TRUE(kael::can_cast(DType::Bool, DType::I64));
    EXPECT_TRUE(kael::can_cast(DType::F64, DType::F32));
}

TEST(InPlace, PartiallyOverlappingOperandIsCopiedFirst) {
    // t[1:] += t[:-1] must read the old values: [1, 2, 3, 4] -> [1, 3, 5, 7]. Read in
    // place, the second addition would already see the first one's result.
    Tensor t = kael::from_vector({1.0, 2.0, 3.0, 4.0});
    t.slice(0, 1).add_(t.slice(0, 0, 3));
    EXPECT_EQ(values<double>(t), (std::vector<double>{1, 3, 5, 7}));
    Tensor u = kael::from_vector({1.0, 2.0, 3.0, 4.0});
    u.slice(0, 0, 3).copy_(u.slice(0, 1));
    EXPECT_EQ(values<double>(u), (std::vector<double>{2, 3, 4, 4}));
}

TEST(InPlace, FullOverlapNeedsNoCopy) {
    Tensor t = kael::from_vector({1.0, 2.0});
    t.add_(t);
    EXPECT_EQ(values<double>(t), (std::vector<double>{2, 4}));
    t.mul_(t);
    EXPECT_EQ(values<double>(t), (std::vector<double>{4, 16}));
}

TEST(InPlace, BumpsTheStorageVersion) {
    Tensor t = kael::zeros({4});
    const Tensor view = t.slice(0, 2);
    const std::int64_t before = t.impl()->storage->version();
    t.add_(1);
    Tensor v = view;
    v.mul_(2);
    EXPECT_EQ(t.impl()->storage->version(), before + 2);
    EXPECT_EQ(view.impl()->storage->version(), before + 2);
    // A failed operation writes nothing and bumps nothing.
    EXPECT_THROW(t.add_(kael::zeros({5})), kael::ValueError);
    EXPECT_EQ(t.impl()->storage->version(), before + 2);
}

TEST(InPlace, CopyConvertsAndBroadcasts) {
    Tensor t = kael::zeros({2, 2}, DType::I64);
    t.copy_(kael::from_vector({1.9, -2.9}));
    EXPECT_EQ(values<I>(t), (std::vector<I>{1, -2, 1, -2}));
    Tensor flags = kael::zeros({2}, DType::Bool);
    flags.copy_(kael::from_vector({0.0, 3.0}));
    EXPECT_EQ(values<std::uint8_t>(flags), (std::vector<std::uint8_t>{0, 1}));
}

TEST(InPlace, MaskedFill) {
    Tensor t = kael::zeros({2, 2});
    t.masked_fill_(kael::from_vector({true, false}), 5);
    EXPECT_EQ(values<float>(t), (std::vector<float>{5, 0, 5, 0}));
    EXPECT_THROW(t.masked_fill_(kael::zeros({2}), 1), kael::TypeError);
}

}  // namespace
