// The graph and the engine: accumulation, ordering, freeing, errors, version checks, and
// differentiating gradients again.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <thread>
#include <utility>

#include "helpers.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::from_vector;
using kael::testing::message_of;
using kael::testing::values;

Tensor leaf(std::vector<double> data) { return kael::testing::grad_leaf(std::move(data)); }

TEST(AutogradEngine, SumOfProductGivesTheOtherFactor) {
    Tensor x = leaf({1, 2, 3});
    const Tensor w = from_vector<double>({4, 5, 6});
    (x * w).sum().backward();
    ASSERT_TRUE(x.grad().has_value());
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{4, 5, 6}));
    EXPECT_FALSE(w.requires_grad());
    EXPECT_FALSE(w.grad().has_value());
}

TEST(AutogradEngine, TensorUsedTwiceGetsTheSum) {
    Tensor x = leaf({1, 2, 3});
    (x * x + x).sum().backward();  // d/dx (x^2 + x) = 2x + 1
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{3, 5, 7}));
}

TEST(AutogradEngine, EveryHandleOfTheLeafSeesTheGradient) {
    Tensor x = leaf({1, 2});
    const Tensor same = x;  // what an optimizer keeps
    (x * 3).sum().backward();
    ASSERT_TRUE(same.grad().has_value());
    EXPECT_EQ(values<double>(*same.grad()), (std::vector<double>{3, 3}));
}

TEST(AutogradEngine, SecondBackwardAddsIntoGrad) {
    Tensor x = leaf({1, 2});
    (x * 3).sum().backward();
    (x * 4).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{7, 7}));
}

TEST(AutogradEngine, DiamondRunsEachNodeOnceAfterBothBranches) {
    // y feeds two branches that meet again: y's node must wait for both before it runs.
    Tensor x = leaf({2});
    const Tensor y = x * 3;
    int runs = 0;
    y.register_hook([&](const Tensor& g) -> std::optional<Tensor> {
        ++runs;
        EXPECT_DOUBLE_EQ(g.item(), 5.0);  // 2 from y * 2 plus 3 from y * 3, summed first
        return std::nullopt;
    });
    (y * 2 + y * 3).sum().backward();
    EXPECT_EQ(runs, 1);
    EXPECT_DOUBLE_EQ(x.grad()->item(), 15.0);
}

TEST(AutogradEngine, LongChainNeitherRecursesInBackwardNorInDestruction) {
    Tensor x = leaf({1.0});
    {
        Tensor y = x;
        for (int i = 0; i < 10000; ++i) {
            y = y * 1.0001;
        }
        y.sum().backward();
    }  // the 10,000 nodes are freed here, through the release queue
    EXPECT_NEAR(x.grad()->item(), std::pow(1.0001, 10000), 1e-9);
}

TEST(AutogradEngine, GraphIsFreedWithTheLastHandleOfTheLoss) {
    Tensor x = leaf({1, 2});
    std::weak_ptr<kael::autograd::Node> node;
    {
        const Tensor loss = (x.exp() * x).sum();  // exp saves its own output
        node = loss.grad_fn();
        EXPECT_FALSE(node.expired());
    }
    EXPECT_TRUE(node.expired());  // no cycle through the saved output kept it alive
}

TEST(AutogradEngine, SecondBackwardWithoutRetainGraphThrows) {
    Tensor x = leaf({1, 2});
    const Tensor loss = (x * x).sum();
    loss.backward();
    const std::string message = message_of([&] { loss.backward(); });
    EXPECT_NE(message.find("Trying to backward through the graph a second time"), std::string::npos) << message;
    EXPECT_NE(message.find("retain_graph"), std::string::npos) << message;
}

TEST(AutogradEngine, RetainGraphAllowsASecondBackward) {
    Tensor x = leaf({1, 2});
    const Tensor loss = (x * x).sum();
    loss.backward(std::nullopt, /*retain_graph=*/true);
    loss.backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{4, 8}));
}

TEST(AutogradEngine, SecondBackwardThroughNodesThatSavedNothingAccumulates) {
    // sum and a product with a number save no tensor, so nothing was freed and they may run
    // again, as in PyTorch; only a node whose saved tensors were freed refuses.
    Tensor x = leaf({1, 2});
    const Tensor s = (x * 3).sum();
    s.backward();
    s.backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{6, 6}));
}

TEST(AccumulateGrad, CreateGraphGivesEachLeafAGradientOfItsOwn) {
    // Add's formula hands the same tensor (an expanded view of the loss's 1) to both
    // operands; each leaf must own a copy, or the second backward would write through it.
    Tensor a = leaf({1, 2, 3});
    Tensor b = leaf({4, 5, 6});
    const Tensor loss = (a + b).sum();
    loss.backward(std::nullopt, /*retain_graph=*/true, /*create_graph=*/true);
    EXPECT_FALSE(a.grad()->shares_storage(*b.grad()));
    EXPECT_EQ(a.grad()->strides(), (kael::Strides{1}));
    loss.backward();
    EXPECT_EQ(values<double>(*a.grad()), (std::vector<double>{2, 2, 2}));
    EXPECT_EQ(values<double>(*b.grad()), (std::vector<double>{2, 2, 2}));
}

TEST(AccumulateGrad, CreateGraphCopiesTheGradientTheCallerPassed) {
    Tensor x = leaf({1, 2, 3});
    const Tensor g = from_vector<double>({1, 2, 3});
    x.clone().backward(g, false, /*create_graph=*/true);
    EXPECT_FALSE(x.grad()->shares_storage(g));
    x.clone().backward(g);
    EXPECT_EQ(values<double>(g), (std::vector<double>{1, 2, 3}));  // the caller's tensor is untouched
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{2, 4, 6}));
}

TEST(AccumulateGrad, PlainBackwardAlsoGivesEachLeafItsOwnGradient) {
    Tensor a = leaf({1, 2});
    Tensor b = leaf({3, 4});
    (a + b).sum().backward();
    EXPECT_FALSE(a.grad()->shares_storage(*b.grad()));
    a.grad()->add_(1);  // must not change b's
    EXPECT_EQ(values<double>(*b.grad()), (std::vector<double>{1, 1}));
}

TEST(AccumulateGrad, GradientIsLaidOutLikeATransposedLeaf) {
    Tensor x = from_vector<double>({1, 2, 3, 4, 5, 6}).reshape({2, 3}).T();
    x.requires_grad_();
    (x * 2).sum().backward();
    EXPECT_EQ(x.grad()->strides(), x.strides());
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{2, 2, 2, 2, 2, 2}));
}

TEST(AccumulateGrad, AGradientNobodyElseHoldsIsKeptWithoutACopy) {
    Tensor w = leaf({1, 2, 3});
    const void* computed = nullptr;  // the address of the gradient MulBackward computed
    const Tensor product = w * 3.0;
    w.register_hook([&](const Tensor& grad) -> std::optional<Tensor> {
        computed = grad.data_ptr_raw();  // an address, not a handle: the leaf may still keep it
        return std::nullopt;
    });
    product.sum().backward();
    ASSERT_NE(computed, nullptr);
    EXPECT_EQ(w.grad()->data_ptr_raw(), computed);
    EXPECT_EQ(values<double>(*w.grad()), (std::vector<double>{3, 3, 3}));
}

TEST(AutogradEngine, ATensorUsedTwiceSumsItsGradientsInPlaceOnlyWhereNobodyElseSeesThem) {
    // exp's output feeds two products: their gradients, fresh tensors, are added in place.
    Tensor x = leaf({0, 1});
    const Tensor e = x.exp();
    ((e * 2.0) + (e * 3.0)).sum().backward();
    EXPECT_NEAR(values<double>(*x.grad())[0], 5.0, 1e-12);
    EXPECT_NEAR(values<double>(*x.grad())[1], 5.0 * std::exp(1.0), 1e-12);
    // Add's formula hands the caller's own gradient to both operands of y + y: the first
    // one held in the buffer is the caller's tensor, which must not change.
    Tensor y = leaf({1, 2});
    const Tensor g = from_vector<double>({1, 1});
    (y + y).backward(g);
    EXPECT_EQ(values<double>(g), (std::vector<double>{1, 1}));
    EXPECT_EQ(values<double>(*y.grad()), (std::vector<double>{2, 2}));
    // With create_graph the sum is recorded, out of place, and differentiates again.
    Tensor z = leaf({3});
    const Tensor z_squared = z * z;
    const std::vector<std::optional<Tensor>> first =
        kael::autograd::grad({z_squared + z_squared}, {z}, {}, std::nullopt, /*create_graph=*/true);
    EXPECT_EQ(values<double>(*first[0]), (std::vector<double>{12}));
    first[0]->backward();
    EXPECT_EQ(values<double>(*z.grad()), (std::vector<double>{4}));
}

TEST(AutogradEngine, NonScalarOutputNeedsAGradient) {
    Tensor x = leaf({1, 2});
    const Tensor y = x * 2;
    const std::string message = message_of([&] { y.backward(); });
    EXPECT_NE(message.find("grad can be implicitly created only for scalar outputs"), std::string::npos) << message;
    y.backward(from_vector<double>({1, 10}));  // with one, it works
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{2, 20}));
}

TEST(AutogradEngine, OneElementOutputOfAnyRankTakesTheImplicitOne) {
    Tensor x = leaf({3});
    (x * 2).view({1, 1}).backward();
    EXPECT_DOUBLE_EQ(x.grad()->item(), 2.0);
}

TEST(AutogradEngine, GradientOfTheWrongShapeOrDtypeIsRefused) {
    Tensor x = leaf({1, 2});
    const Tensor y = x * 2;
    EXPECT_THROW(y.backward(from_vector<double>({1, 2, 3})), kael::ValueError);
    EXPECT_NE(message_of([&] { y.backward(from_vector<double>({1, 2, 3})); }).find("Mismatch in shape"),
              std::string::npos);
    EXPECT_THROW(y.backward(from_vector<std::int64_t>({1, 2})), kael::TypeError);
    // The same shape in another floating dtype is converted, as in PyTorch.
    y.backward(from_vector<float>({1, 1}));
    EXPECT_EQ(x.grad()->dtype(), DType::F64);
}

TEST(AutogradEngine, BackwardOnATensorOutsideTheGraphThrows) {
    const Tensor x = from_vector<double>({1, 2});
    const std::string message = message_of([&] { x.sum().backward(); });
    EXPECT_NE(message.find("does not require grad and does not have a grad_fn"), std::string::npos) << message;
}

TEST(AutogradEngine, GradFunctionReturnsGradientsAndLeavesGradUntouched) {
    Tensor x = leaf({1, 2});
    Tensor w = leaf({3, 4});
    const kael::autograd::GradList grads = kael::autograd::grad({(x * w).sum()}, {x});
    ASSERT_EQ(grads.size(), 1u);
    EXPECT_EQ(values<double>(*grads[0]), (std::vector<double>{3, 4}));
    EXPECT_FALSE(x.grad().has_value());
    EXPECT_FALSE(w.grad().has_value());
}

TEST(AutogradEngine, GradOfANonLeafInput) {
    Tensor x = leaf({1, 2});
    const Tensor h = x * 2;
    const kael::autograd::GradList grads = kael::autograd::grad({(h * h).sum()}, {h, x});
    EXPECT_EQ(values<double>(*grads[0]), (std::vector<double>{4, 8}));   // 2h
    EXPECT_EQ(values<double>(*grads[1]), (std::vector<double>{8, 16}));  // 2h * 2
}

TEST(AutogradEngine, UnusedInputIsAnErrorUnlessAllowed) {
    Tensor x = leaf({1});
    Tensor unused = leaf({1});
    const Tensor y = x * 2;
    const std::string message = message_of([&] { (void)kael::autograd::grad({y}, {unused}, {}, true); });
    EXPECT_NE(message.find("appears to not have been used in the graph"), std::string::npos) << message;
    const kael::autograd::GradList grads = kael::autograd::grad({y}, {x, unused}, {}, true, false, true);
    EXPECT_DOUBLE_EQ(grads[0]->item(), 2.0);
    EXPECT_FALSE(grads[1].has_value());
}

TEST(AutogradEngine, SecondDerivativeOfTanhMatchesTheClosedForm) {
    // tanh'' = -2 tanh (1 - tanh^2)
    const std::vector<double> points{-2.0, -0.5, 0.0, 0.3, 1.7};
    Tensor x = leaf(points);
    const Tensor y = kael::tanh(x).sum();
    const Tensor first = *kael::autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    EXPECT_TRUE(first.requires_grad());
    const Tensor second = *kael::autograd::grad({first.sum()}, {x})[0];
    const std::vector<double> got = values<double>(second);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const double t = std::tanh(points[i]);
        EXPECT_NEAR(got[i], -2 * t * (1 - t * t), 1e-12) << "at x = " << points[i];
    }
}

TEST(AutogradEngine, GradientPenaltyDifferentiatesThroughTheInputGradient) {
    // f(x) = sum(tanh(w * x)); penalty = |df/dx|^2 = sum((w (1 - tanh(w x)^2))^2).
    // Its derivative with respect to w, by hand, at one element: with t = tanh(w x),
    // d/dw [w^2 (1 - t^2)^2] = 2 w (1 - t^2)^2 - 4 w^2 (1 - t^2) t (1 - t^2) x.
    Tensor w = leaf({0.7, -1.3});
    Tensor x = leaf({0.4, 0.9});
    const Tensor f = kael::tanh(w * x).sum();
    const Tensor dx = *kael::autograd::grad({f}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    const Tensor penalty = (dx * dx).sum();
    const Tensor dw = *kael::autograd::grad({penalty}, {w})[0];
    const std::vector<double> got = values<double>(dw);
    const std::vector<double> ws{0.7, -1.3};
    const std::vector<double> xs{0.4, 0.9};
    for (std::size_t i = 0; i < 2; ++i) {
        const double t = std::tanh(ws[i] * xs[i]);
        const double s = 1 - t * t;
        const double expected = 2 * ws[i] * s * s - 4 * ws[i] * ws[i] * s * t * s * xs[i];
        EXPECT_NEAR(got[i], expected, 1e-12);
    }
}

TEST(AutogradEngine, Float32LeafGetsFloat32GradientFromAFloat64Product) {
    Tensor x = from_vector<float>({1, 2});
    x.requires_grad_();
    (x * from_vector<double>({0.5, 0.25})).sum().backward();
    EXPECT_EQ(x.grad()->dtype(), DType::F32);
    EXPECT_EQ(values<float>(*x.grad()), (std::vector<float>{0.5f, 0.25f}));
}

TEST(AutogradEngine, FormulaReceivesTheNodeNameInGradFn) {
    Tensor x = leaf({1});
    EXPECT_EQ((x * x).grad_fn()->name(), "MulBackward");
    EXPECT_EQ(x.exp().grad_fn()->name(), "ExpBackward");
    EXPECT_EQ(x.T().grad_fn()->name(), "PermuteBackward");
    EXPECT_EQ(x.grad_fn(), nullptr);
}

TEST(AutogradEngine, ConcurrentBackwardPassesOnSeparateGraphs) {
    // Grad mode and the release queue are per thread; separate graphs run independently.
    auto work = [](double scale, double* result) {
        Tensor x = leaf({1, 2, 3});
        Tensor y = x;
        for (int i = 0; i < 200; ++i) {
            y = kael::tanh(y) * scale;
        }
        y.sum().backward();
        *result = x.grad()->sum().item();
    };
    double a = 0;
    double b = 0;
    double a_alone = 0;
    std::thread first(work, 0.9, &a);
    std::thread second(work, 1.1, &b);
    first.join();
    second.join();
    work(0.9, &a_alone);
    EXPECT_DOUBLE_EQ(a, a_alone);
    EXPECT_NE(a, b);
}

// ---- the version counter (ADR 0002) ----------------------------------------------------------------

TEST(AutogradVersion, ModifyingSavedInputThrows) {
    Tensor x = leaf({1, 2});
    Tensor constant = from_vector<double>({3, 4});
    const Tensor y = (x * constant).sum();  // MulBackward saves constant at version 0
    constant.add_(1);                       // [4, 5], version 1
    const std::string message = message_of([&] { y.backward(); });
    EXPECT_NE(message.find("one of the variables needed for gradient computation has been modified by an "
                           "inplace operation"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("MulBackward"), std::string::npos) << message;
    EXPECT_NE(message.find("is at version 1; expected version 0"), std::string::npos) << message;
}

TEST(AutogradVersion, ModifyingSavedOutputThroughDetachThrows) {
    Tensor x = leaf({1, 2});
    const Tensor y = x.exp();  // ExpBackward saves y itself
    const Tensor loss = y.sum();
    Tensor alias = y.detach();  // shares y's storage, and so its version counter
    alias.add_(1);
    const std::string message = message_of([&] { loss.backward(); });
    EXPECT_NE(message.find("modified by an inplace operation"), std::string::npos) << message;
    EXPECT_NE(message.find("ExpBackward"), std::string::npos) << message;
}

TEST(AutogradVersion, WriteAfterBackwardIsFine) {
    Tensor x = leaf({1, 2});
    Tensor constant = from_vector<double>({3, 4});
    const Tensor y = (x * constant).sum();
    y.backward();
    constant.add_(1);  // the saved value was already used
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{3, 4}));
}

TEST(AutogradVersion, WriteToAnotherViewOfTheSavedStorageIsCaught) {
    Tensor x = leaf({1, 2});
    Tensor constant = from_vector<double>({3, 4, 5, 6});
    const Tensor y = (x * constant.slice(0, 0, 2)).sum();
    constant.slice(0, 2, 4).zero_();  // a different view, the same storage
    EXPECT_THROW(y.backward(), kael::Error);
}

}  // namespace
