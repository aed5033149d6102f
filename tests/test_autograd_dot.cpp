// The autograd graph as Graphviz DOT (chapter 13): the nodes backward() would run, each
// once, with arrows in the direction of the forward pass labelled by shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kael/autograd/dot.h"
#include "kael/kael.h"

namespace kael {
namespace {

std::size_t count(const std::string& text, const std::string& piece) {
    std::size_t n = 0;
    for (std::size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + piece.size())) {
        ++n;
    }
    return n;
}

TEST(AutogradDot, AGraphOfTwoLeavesHasEveryNodeOnceAndEveryEdgeLabelled) {
    const Tensor w = ones({3, 2}).requires_grad_();
    const Tensor x = ones({4, 3});
    const Tensor b = zeros({2}).requires_grad_();
    const Tensor loss = (matmul(x, w) + b).sum();
    const std::string dot = autograd::to_dot(loss);
    EXPECT_EQ(dot.rfind("digraph autograd {\n", 0), 0u);
    EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
    EXPECT_NE(dot.find("root [shape=ellipse, label=\"tensor []\"];"), std::string::npos) << dot;
    EXPECT_NE(dot.find("n0 [label=\"SumBackward\"];"), std::string::npos) << dot;
    EXPECT_NE(dot.find("n0 -> root [label=\"[]\"];"), std::string::npos) << dot;
    EXPECT_EQ(count(dot, "[label=\"AddBackward\"]"), 1u) << dot;
    EXPECT_EQ(count(dot, "[label=\"MmBackward\"]"), 1u) << dot;
    EXPECT_EQ(count(dot, "[label=\"AccumulateGrad\\n[3, 2]\"]"), 1u) << dot;
    EXPECT_EQ(count(dot, "[label=\"AccumulateGrad\\n[2]\"]"), 1u) << dot;
    // Sum, add, matmul and two AccumulateGrad nodes; the edge into add from matmul is [4, 2].
    EXPECT_EQ(count(dot, " -> "), 5u) << dot;
    EXPECT_EQ(count(dot, "[label=\"[4, 2]\"]"), 2u) << dot << " (add's input and sum's input)";
}

// A node reached along two paths (x used twice) is written once, with two arrows out.
TEST(AutogradDot, ASharedNodeIsWrittenOnce) {
    const Tensor x = ones({2}).requires_grad_();
    const Tensor y = x * 2.0;
    const std::string dot = autograd::to_dot((y * y).sum());
    EXPECT_EQ(count(dot, "[label=\"MulBackward\"]"), 2u) << dot;  // y * y and x * 2
    EXPECT_EQ(count(dot, "AccumulateGrad"), 1u) << dot;
    EXPECT_EQ(count(dot, " -> "), 5u) << dot << " (y feeds y * y twice)";
}

TEST(AutogradDot, ATensorOutsideTheGraphIsTheRootAlone) {
    EXPECT_EQ(autograd::to_dot(ones({2, 2})).find(" -> "), std::string::npos);
    const std::string leaf = autograd::to_dot(ones({5}).requires_grad_());
    EXPECT_NE(leaf.find("n0 [label=\"AccumulateGrad\\n[5]\"];"), std::string::npos) << leaf;
    EXPECT_EQ(count(leaf, " -> "), 1u);
}

// Thousands of nodes: the walk keeps its own stack, so a long chain neither recurses nor
// repeats a node; the text is the same on a second call.
TEST(AutogradDot, AChainOfTenThousandNodesIsWrittenWithoutRecursion) {
    const Tensor x = ones({1}).requires_grad_();
    Tensor y = x;
    for (int i = 0; i < 10000; ++i) {
        y = y * 1.0;
    }
    const std::string dot = autograd::to_dot(y);
    EXPECT_EQ(count(dot, "[label=\"MulBackward\"]"), 10000u);
    EXPECT_EQ(count(dot, " -> "), 10001u);
    EXPECT_EQ(dot, autograd::to_dot(y));
}

}  // namespace
}  // namespace kael
