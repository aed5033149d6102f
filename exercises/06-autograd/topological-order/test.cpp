// Tests of exercise 06.2. Every test fails until execution_order is implemented.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "exercise.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace {

using exercise::execution_order;
using kael::Tensor;

std::vector<std::string> names(const std::vector<std::shared_ptr<kael::autograd::Node>>& nodes) {
    std::vector<std::string> out;
    for (const auto& node : nodes) {
        out.push_back(node->name());
    }
    return out;
}

Tensor leaf(std::vector<double> data) {
    Tensor t = kael::from_vector(data);
    t.requires_grad_();
    return t;
}

// Hooks on tensors run when the engine reaches the tensor's node: they record the order
// in which backward() really runs the nodes.
struct Recorder {
    std::vector<const kael::autograd::Node*> ran;
    void watch(const Tensor& t) {
        const kael::autograd::Node* node = t.is_leaf() ? nullptr : t.grad_fn().get();
        t.register_hook([this, node](const Tensor&) -> std::optional<Tensor> {
            ran.push_back(node);
            return std::nullopt;
        });
    }
};

TEST(ExecutionOrder, AChainRunsFromTheOutputToTheLeaf) {
    Tensor x = leaf({1, 2});
    const Tensor loss = kael::exp(x * 2).sum();
    EXPECT_EQ(names(execution_order(loss.grad_fn())),
              (std::vector<std::string>{"SumBackward", "ExpBackward", "MulBackward", "AccumulateGrad"}));
}

TEST(ExecutionOrder, EveryNodeOnceAndAfterEveryNodeThatFeedsIt) {
    Tensor x = leaf({1, 2});
    Tensor w = leaf({3, 4});
    const Tensor h = x * w;
    const Tensor loss = (h * h + kael::exp(h) + x).sum();
    const auto order = execution_order(loss.grad_fn());
    std::unordered_set<const kael::autograd::Node*> seen;
    for (const auto& node : order) {
        EXPECT_TRUE(seen.insert(node.get()).second) << node->name() << " appears twice";
    }
    EXPECT_EQ(order.front(), loss.grad_fn());
    for (std::size_t i = 0; i < order.size(); ++i) {
        for (std::size_t j = i + 1; j < order.size(); ++j) {
            for (const auto& edge : order[j]->next_edges()) {
                EXPECT_NE(edge.node.get(), order[i].get())
                    << order[j]->name() << " feeds " << order[i]->name() << " but comes after it";
            }
        }
    }
    const std::vector<std::string> listed = names(order);
    EXPECT_EQ(std::count(listed.begin(), listed.end(), "AccumulateGrad"), 2);
}

TEST(ExecutionOrder, MatchesTheOrderBackwardRuns) {
    Tensor x = leaf({0.5, 1.5});
    const Tensor a = x * 3;
    const Tensor b = kael::tanh(x);
    const Tensor c = a * b;
    const Tensor d = kael::exp(a);
    const Tensor e = c + d;
    const Tensor loss = e.sum();
    Recorder recorder;
    for (const Tensor& t : {a, b, c, d, e, loss}) {
        recorder.watch(t);
    }
    const auto predicted = execution_order(loss.grad_fn());
    loss.backward();
    std::vector<const kael::autograd::Node*> expected;
    for (const auto& node : predicted) {
        if (node->name() != "AccumulateGrad") {
            expected.push_back(node.get());
        }
    }
    EXPECT_EQ(recorder.ran, expected);
}

TEST(ExecutionOrder, InputsOutsideTheGraphLeadNowhere) {
    Tensor x = leaf({1});
    const Tensor constant = kael::from_vector<double>({2});
    const Tensor loss = (x * constant).sum();
    EXPECT_EQ(names(execution_order(loss.grad_fn())),
              (std::vector<std::string>{"SumBackward", "MulBackward", "AccumulateGrad"}));
}

TEST(ExecutionOrder, ALongChainNeedsNoDeepRecursion) {
    Tensor x = leaf({1});
    Tensor y = x;
    for (int i = 0; i < 200000; ++i) {
        y = y * 1.0;
    }
    const auto order = execution_order(y.grad_fn());
    EXPECT_EQ(order.size(), 200001u);
    EXPECT_EQ(order.back()->name(), "AccumulateGrad");
}

}  // namespace
