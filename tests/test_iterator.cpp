// The TensorIterator that element-wise kernels run on.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "helpers.h"
#include "kael/broadcast.h"
#include "kael/factory.h"
#include "kael/iterator.h"
#include "kael/kernels.h"
#include "kael/view.h"

namespace {

using kael::testing::values;
using kael::testing::message_of;

using kael::DType;
using kael::Shape;
using kael::Strides;
using kael::Tensor;
using kael::TensorIterator;
using kael::TensorIteratorConfig;



// ---- the iterator ------------------------------------------------------------------------------

TEST(TensorIterator, ContiguousOperandsCoalesceToOneDimension) {
    const Tensor a = kael::zeros({2, 3, 4});
    TensorIterator iter = TensorIteratorConfig().declare_output(DType::F32).add_input(a).add_input(a).build();
    EXPECT_EQ(iter.shape(), (Shape{24}));
    EXPECT_EQ(iter.byte_strides(0), (Strides{4}));
    EXPECT_EQ(iter.byte_strides(1), (Strides{4}));
    EXPECT_EQ(iter.output().shape(), (Shape{2, 3, 4}));
    EXPECT_TRUE(iter.output().is_contiguous());
}

TEST(TensorIterator, BroadcastInputsGetStrideZero) {
    const Tensor matrix = kael::zeros({1000, 1000});
    const Tensor row = kael::zeros({1000});
    TensorIterator iter =
        TensorIteratorConfig().declare_output(DType::F32).add_input(matrix).add_input(row).build();
    EXPECT_EQ(iter.shape(), (Shape{1000, 1000}));
    EXPECT_EQ(iter.byte_strides(2), (Strides{0, 4}));
    EXPECT_EQ(iter.describe(),
              "loop shape [1000, 1000]; byte strides: out [4000, 4], in0 [4000, 4], in1 [0, 4]");
}

TEST(TensorIterator, TransposedIntoContiguousKeepsTwoDimensions) {
    // A contiguous output decides the order, so the transposed input is read across rows
    // and nothing merges.
    const Tensor t = kael::zeros({3, 4}).transpose(0, 1);
    TensorIterator iter = TensorIteratorConfig().add_output(kael::empty({4, 3})).add_input(t).build();
    EXPECT_EQ(iter.shape(), (Shape{4, 3}));
    EXPECT_EQ(iter.byte_strides(0), (Strides{12, 4}));
    EXPECT_EQ(iter.byte_strides(1), (Strides{4, 16}));
}

TEST(TensorIterator, DeclaredOutputFollowsTheInputsLayout) {
    // A declared output does not exist when the order is decided, so the inputs decide it
    // and the output is allocated in that order, as in PyTorch: a transposed input gives a
    // transposed result, and the whole loop is one run in memory order.
    const Tensor t = kael::zeros({3, 4}).transpose(0, 1);  // [4, 3], strides [1, 4]
    TensorIterator iter = TensorIteratorConfig().declare_output(DType::F32).add_input(t).build();
    EXPECT_EQ(iter.output().strides(), (Strides{1, 4}));
    EXPECT_EQ(iter.shape(), (Shape{12}));
    EXPECT_EQ(iter.byte_strides(0), (Strides{4}));
    EXPECT_EQ(iter.byte_strides(1), (Strides{4}));

    // With mixed layouts the first input that tells two dimensions apart decides.
    const Tensor b = kael::zeros({4, 3});
    const auto strides_of = [](const Tensor& x, const Tensor& y) {
        return TensorIteratorConfig().declare_output(DType::F32).add_input(x).add_input(y).build().output().strides();
    };
    EXPECT_EQ(strides_of(t, b), (Strides{1, 4}));
    EXPECT_EQ(strides_of(b, t), (Strides{3, 1}));

    // Contiguous and broadcast inputs give exactly the contiguous strides, size-1
    // dimensions included.
    EXPECT_EQ(strides_of(kael::zeros({2, 1, 3}), kael::zeros({3})), (Strides{3, 3, 1}));
    // Inputs that share one dense layout hand it to the output exactly, the stride of a
    // size-1 dimension included (PyTorch gives (1, 2, 2) too).
    const Tensor p = kael::zeros({3, 1, 2}).permute({2, 1, 0});  // [2, 1, 3], strides [1, 2, 2]
    EXPECT_EQ(strides_of(p, p), (Strides{1, 2, 2}));
    // Broadcasting against a permuted layout: the permuted input decides the order, the
    // broadcast one has no say (PyTorch: (1, 30, 6) for both).
    const Tensor q = kael::zeros({4, 5, 6}).permute({2, 0, 1});  // [6, 4, 5], strides [1, 30, 6]
    EXPECT_EQ(strides_of(q, kael::zeros({5})), (Strides{1, 30, 6}));
    EXPECT_EQ(strides_of(q, kael::zeros({6, 1, 1})), (Strides{1, 30, 6}));
}

TEST(TensorIterator, ReordersSoTheInnerLoopStepsTheLeastMemory) {
    // Writing into a transposed output: its smallest stride is along dimension 0, so that
    // dimension becomes the inner loop, and then both operands coalesce into one run.
    const Tensor storage = kael::zeros({4, 3});
    const Tensor out = storage.transpose(0, 1);  // [3, 4], strides [1, 3]
    const Tensor in = kael::zeros({4, 3}).transpose(0, 1);
    TensorIterator iter = TensorIteratorConfig().add_output(out).add_input(in).build();
    EXPECT_EQ(iter.shape(), (Shape{12}));
    EXPECT_EQ(iter.byte_strides(0), (Strides{4}));
}

TEST(TensorIterator, SizeOneDimensionsMerge) {
    // [3, 1, 2] with strides [4, 4, 1]: the size-1 dimension disappears, but the rows have
    // gaps, so two dimensions remain.
    const Tensor a = kael::zeros({3, 1, 4}).slice(2, 0, 2);
    TensorIterator iter = TensorIteratorConfig().declare_output(DType::F32).add_input(a).build();
    EXPECT_EQ(iter.shape(), (Shape{3, 2}));
    EXPECT_EQ(iter.byte_strides(1), (Strides{16, 4}));
}

TEST(TensorIterator, EvenlySpacedRowsMergeIntoOneRun) {
    // Every other column of [3, 4]: positions 0, 2, 4, ... 10 are evenly spaced, so the
    // two dimensions become one run with a stride of 2 elements.
    const Tensor a = kael::zeros({3, 4}).slice(1, 0, 4, 2);
    TensorIterator iter = TensorIteratorConfig().declare_output(DType::F32).add_input(a).build();
    EXPECT_EQ(iter.shape(), (Shape{6}));
    EXPECT_EQ(iter.byte_strides(1), (Strides{8}));
}

TEST(TensorIterator, ZeroDimensionalLoopRunsOnce) {
    int runs = 0;
    const Tensor s = kael::scalar(2.0);
    TensorIterator iter = TensorIteratorConfig().declare_output(DType::F32).add_input(s).build();
    iter.for_each([&](std::byte**, const std::int64_t*, std::int64_t n) { runs += static_cast<int>(n); });
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(iter.output().dim(), 0);
}

TEST(TensorIterator, EmptyLoopRunsNever) {
    int runs = 0;
    TensorIterator iter =
        TensorIteratorConfig().declare_output(DType::F32).add_input(kael::zeros({3, 0})).build();
    iter.for_each([&](std::byte**, const std::int64_t*, std::int64_t) { ++runs; });
    EXPECT_EQ(runs, 0);
    EXPECT_EQ(iter.output().shape(), (Shape{3, 0}));
}

TEST(TensorIterator, OutputShapeMustMatch) {
    const Tensor out = kael::zeros({3});
    EXPECT_THROW((void)TensorIteratorConfig().add_output(out).add_input(kael::zeros({2, 3})).build(),
                 kael::ValueError);
    const std::string message = message_of([&] {
        (void)TensorIteratorConfig().add_output(out).add_input(kael::zeros({2, 3})).build();
    });
    EXPECT_NE(message.find("output with shape [3] doesn't match the broadcast shape [2, 3]"),
              std::string::npos)
        << message;
}

TEST(TensorIterator, InputsMustShareADtypeUnlessAllowed) {
    const Tensor f = kael::zeros({2});
    const Tensor i = kael::zeros({2}, DType::I64);
    EXPECT_THROW((void)TensorIteratorConfig().declare_output(DType::F32).add_input(f).add_input(i).build(),
                 kael::TypeError);
    EXPECT_NO_THROW((void)TensorIteratorConfig()
                        .declare_output(DType::F32)
                        .add_input(f)
                        .add_input(i)
                        .allow_mixed_input_dtypes()
                        .build());
    EXPECT_THROW((void)TensorIteratorConfig().add_input(f).build(), kael::Error);
}

TEST(TensorIterator, RunTypedHandlesEveryLayout) {
    // out = a * 10 + b with a transposed and b broadcast along rows.
    const Tensor a = kael::arange(0, 6, 1, DType::I64).view({2, 3}).transpose(0, 1);  // [3, 2]
    const Tensor b = kael::from_vector({std::int64_t{100}, std::int64_t{200}});      // [2]
    TensorIterator iter =
        TensorIteratorConfig().declare_output(DType::I64).add_input(a).add_input(b).build();
    kael::run_typed<std::int64_t, std::int64_t, std::int64_t>(
        iter, [](std::int64_t x, std::int64_t y) { return x * 10 + y; });
    EXPECT_EQ(values<std::int64_t>(iter.output()),
              (std::vector<std::int64_t>{100, 230, 110, 240, 120, 250}));
}

TEST(TensorIterator, RunTypedRepeatsBroadcastValuesAlongTheRun) {
    // Inner runs where one input has stride 0: a column [3, 1] and a 0-d tensor, each
    // repeated along rows of a contiguous [3, 4].
    const Tensor matrix = kael::arange(0, 12, 1, DType::I64).view({3, 4});
    const Tensor column = kael::from_vector({std::int64_t{100}, std::int64_t{200}, std::int64_t{300}}, {3, 1});
    TensorIterator iter =
        TensorIteratorConfig().declare_output(DType::I64).add_input(matrix).add_input(column).build();
    EXPECT_EQ(iter.byte_strides(2), (Strides{8, 0}));
    kael::run_typed<std::int64_t, std::int64_t, std::int64_t>(iter, [](std::int64_t x, std::int64_t y) { return x + y; });
    EXPECT_EQ(values<std::int64_t>(iter.output()),
              (std::vector<std::int64_t>{100, 101, 102, 103, 204, 205, 206, 207, 308, 309, 310, 311}));
    const Tensor scale = kael::scalar(10, DType::I64);
    TensorIterator scaled =
        TensorIteratorConfig().declare_output(DType::I64).add_input(scale).add_input(matrix).build();
    kael::run_typed<std::int64_t, std::int64_t, std::int64_t>(scaled, [](std::int64_t s, std::int64_t x) { return s * x; });
    EXPECT_EQ(values<std::int64_t>(scaled.output())[11], 110);
}

TEST(TensorIterator, RunTypedWritesADifferentOutputType) {
    const Tensor a = kael::from_vector({1.0f, -2.0f, 0.0f});
    TensorIterator iter = TensorIteratorConfig().declare_output(DType::Bool).add_input(a).build();
    kael::run_typed<std::uint8_t, float>(iter, [](float x) { return static_cast<std::uint8_t>(x > 0); });
    EXPECT_EQ(values<std::uint8_t>(iter.output()), (std::vector<std::uint8_t>{1, 0, 0}));
}

TEST(TensorIterator, RunTypedChecksItsTypes) {
    TensorIterator iter =
        TensorIteratorConfig().declare_output(DType::F32).add_input(kael::zeros({2})).build();
    auto widen = [](float x) { return static_cast<double>(x); };
    auto narrow = [](double x) { return static_cast<float>(x); };
    EXPECT_THROW((kael::run_typed<double, float>(iter, widen)), kael::Error);
    EXPECT_THROW((kael::run_typed<float, double>(iter, narrow)), kael::Error);
}

TEST(TensorIterator, WritesIntoAStridedOutput) {
    Tensor storage = kael::zeros({2, 4});
    const Tensor out = storage.slice(1, 0, 4, 2);  // columns 0 and 2
    TensorIterator iter =
        TensorIteratorConfig().add_output(out).add_input(kael::ones({2, 2})).build();
    kael::run_typed<float, float>(iter, [](float x) { return x + 1; });
    EXPECT_EQ(values<float>(storage), (std::vector<float>{2, 0, 2, 0, 2, 0, 2, 0}));
}

}  // namespace
