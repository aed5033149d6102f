// Indexing, masks, triangles, one-hot codes, and joining and splitting tensors.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Tensor;
using kael::testing::values;

using I = std::int64_t;

Tensor ints(std::vector<I> v) { return kael::from_vector(v); }
// [[0, 1, 2], [3, 4, 5], [6, 7, 8]] as int64.
Tensor square() { return kael::arange(0, 9, 1, DType::I64).view({3, 3}); }

TEST(Indexing, IndexSelectAlongEitherDimension) {
    EXPECT_EQ(values<I>(kael::index_select(square(), 0, ints({2, 0, 2}))), (std::vector<I>{6, 7, 8, 0, 1, 2, 6, 7, 8}));
    EXPECT_EQ(values<I>(kael::index_select(square(), 1, ints({1}))), (std::vector<I>{1, 4, 7}));
    EXPECT_EQ(kael::index_select(square(), 1, kael::scalar(1, DType::I64)).shape(), (Shape{3, 1}));
    EXPECT_EQ(values<I>(kael::index_select(square().T(), 0, ints({0}))), (std::vector<I>{0, 3, 6}));
    EXPECT_EQ(kael::index_select(square(), 0, ints({})).shape(), (Shape{0, 3}));
}

TEST(Indexing, IndexSelectChecksBounds) {
    EXPECT_THROW((void)kael::index_select(square(), 0, ints({3})), kael::IndexError);
    EXPECT_THROW((void)kael::index_select(square(), 0, ints({-1})), kael::IndexError);
    EXPECT_THROW((void)kael::index_select(square(), 0, kael::from_vector({1.0})), kael::TypeError);
}

TEST(Indexing, Gather) {
    const Tensor t = kael::from_vector({I{1}, I{2}, I{3}, I{4}}, {2, 2});
    const Tensor index = kael::from_vector({I{0}, I{0}, I{1}, I{0}}, {2, 2});
    EXPECT_EQ(values<I>(kael::gather(t, 1, index)), (std::vector<I>{1, 1, 4, 3}));
    EXPECT_EQ(values<I>(kael::gather(t, 0, index)), (std::vector<I>{1, 2, 3, 2}));
    EXPECT_THROW((void)kael::gather(t, 1, kael::from_vector({I{2}, I{0}}, {2, 1})), kael::IndexError);
    EXPECT_THROW((void)kael::gather(t, 1, ints({0})), kael::ValueError);
}

TEST(Indexing, ScatterAddAccumulatesRepeatedPositions) {
    const Tensor out = kael::scatter_add(kael::zeros({3}), 0, ints({0, 0, 2}), kael::from_vector({1.f, 2.f, 3.f}));
    EXPECT_EQ(values<float>(out), (std::vector<float>{3, 0, 3}));
    const Tensor rows = kael::scatter_add(kael::zeros({2, 2}), 1, kael::from_vector({I{1}, I{1}}, {2, 1}),
                                          kael::ones({2, 1}));
    EXPECT_EQ(values<float>(rows), (std::vector<float>{0, 1, 0, 1}));
    EXPECT_THROW((void)kael::scatter_add(kael::zeros({3}), 0, ints({3}), kael::ones({1})), kael::IndexError);
    EXPECT_THROW((void)kael::scatter_add(kael::zeros({3}), 0, ints({0}), kael::ones({1}, DType::F64)), kael::TypeError);
}

// Only the index's extent of src is read, so src may be larger than the index (PyTorch's
// rule: index no larger than src anywhere, nor than self outside dim).
TEST(Indexing, ScatterAddReadsOnlyTheIndexExtentOfSrc) {
    const Tensor src = kael::arange(1, 7, 1, DType::F32).view({2, 3});  // [[1, 2, 3], [4, 5, 6]]
    const Tensor index = kael::from_vector({I{2}, I{0}}, {1, 2});
    const Tensor out = kael::scatter_add(kael::zeros({3, 3}), 0, index, src);
    EXPECT_EQ(values<float>(out), (std::vector<float>{0, 2, 0, 0, 0, 0, 1, 0, 0}));
    // Exactly as large as src passes; one larger fails, in either dimension.
    EXPECT_NO_THROW((void)kael::scatter_add(kael::zeros({3, 3}), 0, kael::zeros({2, 3}, DType::I64), src));
    EXPECT_THROW((void)kael::scatter_add(kael::zeros({3, 4}), 0, kael::zeros({2, 4}, DType::I64), src),
                 kael::ValueError);
    EXPECT_THROW((void)kael::scatter_add(kael::zeros({3, 3}), 0, kael::zeros({3, 1}, DType::I64), src),
                 kael::ValueError);
    // Outside dim, the index may not be larger than self either.
    EXPECT_THROW((void)kael::scatter_add(kael::zeros({3, 1}), 0, kael::zeros({1, 2}, DType::I64), src),
                 kael::ValueError);
    // An empty index adds nothing and checks no shapes.
    EXPECT_EQ(values<float>(kael::scatter_add(kael::ones({2}), 0, kael::zeros({0}, DType::I64), kael::ones({5}))),
              (std::vector<float>{1, 1}));
}

TEST(Indexing, MaskedFill) {
    const Tensor mask = kael::from_vector({true, false, true});
    EXPECT_EQ(values<I>(kael::masked_fill(ints({1, 2, 3}), mask, -1)), (std::vector<I>{-1, 2, -1}));
    const Tensor causal = kael::triu(kael::ones({3, 3}, DType::Bool), 1);
    const Tensor scores = kael::masked_fill(kael::zeros({3, 3}), causal, -1e9);
    EXPECT_EQ(values<float>(scores)[1], -1e9f);
    EXPECT_EQ(values<float>(scores)[3], 0.0f);
    EXPECT_THROW((void)kael::masked_fill(ints({1}), ints({1}), 0), kael::TypeError);
    // Out of place, input and mask broadcast together, as in PyTorch: the result takes the
    // broadcast shape. Shapes that do not broadcast are refused.
    const Tensor wider = kael::masked_fill(ints({7}), kael::from_vector({true, false}), 0);
    EXPECT_EQ(wider.shape(), (kael::Shape{2}));
    EXPECT_EQ(values<I>(wider), (std::vector<I>{0, 7}));
    EXPECT_THROW((void)kael::masked_fill(ints({1, 2, 3}), kael::from_vector({true, false}), 0), kael::ValueError);
}

TEST(Indexing, TrilAndTriu) {
    EXPECT_EQ(values<I>(kael::tril(square())), (std::vector<I>{0, 0, 0, 3, 4, 0, 6, 7, 8}));
    EXPECT_EQ(values<I>(kael::tril(square(), -1)), (std::vector<I>{0, 0, 0, 3, 0, 0, 6, 7, 0}));
    EXPECT_EQ(values<I>(kael::triu(square(), 1)), (std::vector<I>{0, 1, 2, 0, 0, 5, 0, 0, 0}));
    EXPECT_EQ(kael::tril(kael::ones({2, 3, 4})).shape(), (Shape{2, 3, 4}));
    EXPECT_THROW((void)kael::tril(kael::ones({3})), kael::ValueError);
}

TEST(Indexing, OneHot) {
    EXPECT_EQ(values<I>(kael::one_hot(ints({0, 2}))), (std::vector<I>{1, 0, 0, 0, 0, 1}));
    EXPECT_EQ(kael::one_hot(ints({1}), 4).shape(), (Shape{1, 4}));
    EXPECT_THROW((void)kael::one_hot(ints({-1})), kael::ValueError);
    EXPECT_THROW((void)kael::one_hot(ints({4}), 4), kael::ValueError);
    EXPECT_NO_THROW((void)kael::one_hot(ints({3}), 4));
}

TEST(Join, CatPromotesAndChecksSizes) {
    const Tensor joined = kael::cat({ints({1, 2}), kael::from_vector({3.5})});
    EXPECT_EQ(joined.dtype(), DType::F64);
    EXPECT_EQ(values<double>(joined), (std::vector<double>{1, 2, 3.5}));
    const Tensor wide = kael::cat({square(), square().slice(1, 0, 1)}, 1);
    EXPECT_EQ(wide.shape(), (Shape{3, 4}));
    EXPECT_EQ(values<I>(wide[0]), (std::vector<I>{0, 1, 2, 0}));
    EXPECT_THROW((void)kael::cat({square(), ints({1})}), kael::ValueError);
    EXPECT_THROW((void)kael::cat({square(), kael::zeros({3, 2}, DType::I64)}, 0), kael::ValueError);
    EXPECT_THROW((void)kael::cat({}), kael::ValueError);
}

// A 1-d tensor with no elements is skipped by the shape checks, as PyTorch does, but its
// dtype still takes part in the promotion.
TEST(Join, CatSkipsLegacyEmptyTensors) {
    const Tensor joined = kael::cat({kael::zeros({0}, DType::F64), square(), kael::zeros({0})}, 1);
    EXPECT_EQ(joined.shape(), (Shape{3, 3}));
    EXPECT_EQ(joined.dtype(), DType::F64);
    EXPECT_EQ(kael::cat({kael::zeros({0}), kael::zeros({0})}).shape(), (Shape{0}));
    // Only the 1-d empty tensor is special: [0, 3] is an ordinary 2-d tensor.
    EXPECT_EQ(kael::cat({kael::zeros({0, 3}, DType::I64), square()}).shape(), (Shape{3, 3}));
    EXPECT_THROW((void)kael::cat({kael::zeros({0, 2}, DType::I64), square()}), kael::ValueError);
    EXPECT_THROW((void)kael::cat({kael::zeros({0}), kael::scalar(1)}), kael::ValueError);
}

TEST(Join, StackAddsADimension) {
    const Tensor s = kael::stack({ints({1, 2}), ints({3, 4})}, 1);
    EXPECT_EQ(s.shape(), (Shape{2, 2}));
    EXPECT_EQ(values<I>(s), (std::vector<I>{1, 3, 2, 4}));
    EXPECT_THROW((void)kael::stack({ints({1}), ints({1, 2})}), kael::ValueError);
}

TEST(Join, SplitAndChunkReturnViews) {
    const Tensor t = kael::arange(0, 5, 1, DType::I64);
    const auto pieces = kael::split(t, 2);
    ASSERT_EQ(pieces.size(), 3u);
    EXPECT_EQ(values<I>(pieces[2]), (std::vector<I>{4}));
    EXPECT_TRUE(pieces[1].shares_storage(t));
    const auto sized = kael::split(t, std::vector<I>{1, 4});
    EXPECT_EQ(values<I>(sized[1]), (std::vector<I>{1, 2, 3, 4}));
    EXPECT_THROW((void)kael::split(t, std::vector<I>{1, 3}), kael::ValueError);
    EXPECT_THROW((void)kael::split(t, 0), kael::ValueError);
    const auto chunks = kael::chunk(t, 3);
    ASSERT_EQ(chunks.size(), 3u);
    EXPECT_EQ(values<I>(chunks[0]), (std::vector<I>{0, 1}));
    EXPECT_EQ(kael::chunk(kael::arange(0, 2, 1, DType::I64), 3).size(), 2u);
    EXPECT_EQ(kael::chunk(kael::zeros({0}), 3).size(), 3u);
}

}  // namespace
