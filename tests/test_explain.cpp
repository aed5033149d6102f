// kael::explain (chapter 13): each line read back from the metadata it reports, on the
// views of chapter 03 and on tensors at the edges (empty, 0-d, in a graph).
#include <gtest/gtest.h>

#include <string>

#include "kael/debug.h"
#include "kael/kael.h"

namespace kael {
namespace {

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

TEST(Explain, AContiguousTensorReachesAllOfItsStorage) {
    const Tensor t = arange(6.0).reshape({2, 3});
    const std::string text = explain(t);
    EXPECT_TRUE(has(text, "tensor:        [2, 3] float32 on cpu, 6 elements of 4 bytes\n")) << text;
    EXPECT_TRUE(has(text, "layout:        strides [3, 1], offset 0, contiguous\n")) << text;
    EXPECT_TRUE(has(text, "reaches:       bytes [0, 24) of the storage, 24 of 24\n")) << text;
    EXPECT_TRUE(has(text, "requires_grad: false\n")) << text;
    EXPECT_FALSE(has(text, "graph:")) << text;
}

// The views of chapter 03: a transpose reaches the same bytes out of order, a column
// reaches a stretch of the storage with gaps, and both count as sharers of the storage.
TEST(Explain, ViewsShowTheirStridesOffsetAndTheBytesTheyReach) {
    const Tensor base = zeros({3, 4});
    const Tensor transposed = base.T();
    const Tensor column = base.select(1, 2);
    const std::string t = explain(transposed);
    EXPECT_TRUE(has(t, "layout:        strides [1, 4], offset 0, not contiguous\n")) << t;
    EXPECT_TRUE(has(t, "reaches:       bytes [0, 48) of the storage, 48 of 48\n")) << t;
    EXPECT_TRUE(has(t, "shared by 3 tensor impls\n")) << t;
    const std::string c = explain(column);
    EXPECT_TRUE(has(c, "tensor:        [3] float32 on cpu, 3 elements of 4 bytes\n")) << c;
    EXPECT_TRUE(has(c, "layout:        strides [4], offset 2, not contiguous\n")) << c;
    // Elements 2, 6 and 10: bytes 8 to 44.
    EXPECT_TRUE(has(c, "reaches:       bytes [8, 44) of the storage, 36 of 48\n")) << c;
}

TEST(Explain, AnInPlaceWriteShowsAsTheStoragesVersion) {
    Tensor t = zeros({2});
    EXPECT_TRUE(has(explain(t), ", version 0,")) << explain(t);
    t.add_(1.0);
    t.mul_(2.0);
    EXPECT_TRUE(has(explain(t), ", version 2,")) << explain(t);
}

TEST(Explain, EmptyAndZeroDimensionalTensorsAreDescribed) {
    const std::string empty = explain(zeros({0, 3}));
    EXPECT_TRUE(has(empty, "tensor:        [0, 3] float32 on cpu, 0 elements of 4 bytes\n")) << empty;
    EXPECT_TRUE(has(empty, "reaches:       no bytes (no elements)\n")) << empty;
    EXPECT_TRUE(has(empty, "layout:        strides [3, 1], offset 0, contiguous\n")) << empty;
    const std::string scalar = explain(full({}, 7.0, DType::F64));
    EXPECT_TRUE(has(scalar, "tensor:        [] float64 on cpu, 1 element of 8 bytes\n")) << scalar;
    EXPECT_TRUE(has(scalar, "layout:        strides [], offset 0, contiguous\n")) << scalar;
    EXPECT_TRUE(has(scalar, "reaches:       bytes [0, 8) of the storage, 8 of 8\n")) << scalar;
}

TEST(Explain, ATensorInAGraphListsTheNodesBackwardWouldRun) {
    const Tensor w = ones({3, 2}).requires_grad_();
    const Tensor x = ones({4, 3});
    const Tensor loss = matmul(x, w).relu().sum();
    const std::string text = explain(loss);
    EXPECT_TRUE(has(text, "requires_grad: true, computed by SumBackward\n")) << text;
    EXPECT_TRUE(has(text, "  SumBackward (forward: sum on [4, 2] float32)\n")) << text;
    EXPECT_TRUE(has(text, "  ReluBackward (forward: relu on [4, 2] float32)\n")) << text;
    EXPECT_TRUE(has(text, "  MmBackward (forward: mm on [4, 3] float32, [3, 2] float32)\n")) << text;
    EXPECT_TRUE(has(text, "  AccumulateGrad into a leaf of shape [3, 2]\n")) << text;
    EXPECT_TRUE(has(explain(w), "requires_grad: true, a leaf\n")) << explain(w);
    loss.backward();
    EXPECT_TRUE(has(explain(w), "requires_grad: true, a leaf, grad [3, 2]\n")) << explain(w);
}

// A view made in grad mode of a tensor that requires grad is tracked: explain names its base.
TEST(Explain, ATrackedViewNamesItsBase) {
    const Tensor base = ones({4, 4}).requires_grad_();
    const Tensor row = base[1];
    const std::string text = explain(row);
    EXPECT_TRUE(has(text, "view:          a tracked view of a [4, 4] base, sharing its storage\n")) << text;
    EXPECT_TRUE(has(explain(base), "view:          not a tracked view")) << explain(base);
}

TEST(Explain, ALongGraphIsCutAfterSixteenNodes) {
    const Tensor x = ones({1}).requires_grad_();
    Tensor y = x;
    for (int i = 0; i < 40; ++i) {
        y = y * 1.0;
    }
    const std::string text = explain(y);
    EXPECT_TRUE(has(text, "  ... and 25 more nodes\n")) << text;  // 40 MulBackward and AccumulateGrad
}

}  // namespace
}  // namespace kael
