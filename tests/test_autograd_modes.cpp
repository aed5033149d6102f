// Grad mode, requires_grad, detach, retain_grad, hooks, what does not require grad, and
// in-place operations on tensors in the graph.
#include <gtest/gtest.h>

#include <cmath>
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

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- grad mode -----------------------------------------------------------------------------------

TEST(AutogradMode, NoGradGuardRecordsNothingAndRestores) {
    Tensor x = leaf({1, 2});
    {
        const kael::autograd::NoGradGuard no_grad;
        EXPECT_FALSE(kael::autograd::is_grad_enabled());
        const Tensor y = x * 2;
        EXPECT_FALSE(y.requires_grad());
        EXPECT_EQ(y.grad_fn(), nullptr);
        {
            const kael::autograd::EnableGradGuard enable;
            EXPECT_TRUE((x * 2).requires_grad());
        }
        EXPECT_FALSE(kael::autograd::is_grad_enabled());
    }
    EXPECT_TRUE(kael::autograd::is_grad_enabled());
    EXPECT_TRUE((x * 2).requires_grad());
}

TEST(AutogradMode, GradModeIsPerThread) {
    const kael::autograd::NoGradGuard no_grad;
    bool other_thread_enabled = false;
    std::thread([&] { other_thread_enabled = kael::autograd::is_grad_enabled(); }).join();
    EXPECT_TRUE(other_thread_enabled);
    EXPECT_FALSE(kael::autograd::is_grad_enabled());
}

// ---- requires_grad, leaves, detach ---------------------------------------------------------------

TEST(AutogradMode, RequiresGradIsRefusedForIntegerAndBool) {
    Tensor i = from_vector<std::int64_t>({1, 2});
    Tensor b = from_vector({true, false});
    EXPECT_THROW(i.requires_grad_(), kael::TypeError);
    EXPECT_THROW(b.requires_grad_(), kael::TypeError);
    EXPECT_TRUE(contains(message_of([&] { i.requires_grad_(); }), "only tensors of floating point dtype"));
    i.requires_grad_(false);  // clearing is always allowed
    Tensor f = from_vector<float>({1});
    Tensor d = from_vector<double>({1});
    EXPECT_TRUE(f.requires_grad_().requires_grad());
    EXPECT_TRUE(d.requires_grad_().requires_grad());
}

TEST(AutogradMode, NewTensorsHaveNoAutogradState) {
    const Tensor t = kael::ones({3});
    EXPECT_FALSE(t.requires_grad());
    EXPECT_TRUE(t.is_leaf());
    EXPECT_EQ(t.impl()->autograd, nullptr);  // one null pointer, nothing more
}

TEST(AutogradMode, RequiresGradChangesEveryHandleButNotAView) {
    // The seed's example: b = a shares the impl, t = a.view() has its own.
    Tensor a = kael::ones({2, 2}, DType::F64);
    Tensor b = a;
    const Tensor t = a.view({4});
    b.requires_grad_();
    EXPECT_TRUE(a.requires_grad());
    EXPECT_FALSE(t.requires_grad());
}

TEST(AutogradMode, ClearingRequiresGradOnANonLeafIsRefused) {
    Tensor x = leaf({1});
    Tensor y = x * 2;
    EXPECT_THROW(y.requires_grad_(false), kael::Error);
    EXPECT_TRUE(contains(message_of([&] { y.requires_grad_(false); }), "leaf variables"));
    y.requires_grad_(true);  // already true: fine
}

TEST(AutogradMode, DetachSharesStorageWithoutHistory) {
    Tensor x = leaf({1, 2});
    const Tensor y = x * 2;
    const Tensor d = y.detach();
    EXPECT_FALSE(d.requires_grad());
    EXPECT_TRUE(d.is_leaf());
    EXPECT_TRUE(d.shares_storage(y));
}

TEST(AutogradMode, DetachInPlaceMakesALeafAndRefusesViews) {
    Tensor x = leaf({1, 2});
    Tensor y = x * 2;
    y.detach_();
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(y.is_leaf());
    Tensor v = (x * 2).T();
    EXPECT_THROW(v.detach_(), kael::Error);
    EXPECT_TRUE(contains(message_of([&] { v.detach_(); }), "use detach()"));
}

TEST(AutogradMode, RetainGradKeepsANonLeafGradient) {
    Tensor x = leaf({1, 2});
    const Tensor h = x * 3;
    const Tensor without = x * 5;
    h.retain_grad();
    EXPECT_TRUE(h.retains_grad());
    EXPECT_FALSE(x.retains_grad());  // a leaf keeps its gradient without it, and says false, as in PyTorch
    x.retain_grad();
    EXPECT_FALSE(x.retains_grad());
    (h * 2 + without).sum().backward();
    ASSERT_TRUE(h.grad().has_value());
    EXPECT_EQ(values<double>(*h.grad()), (std::vector<double>{2, 2}));
    EXPECT_FALSE(without.grad().has_value());
    EXPECT_THROW(kael::ones({1}).retain_grad(), kael::Error);
}

TEST(AutogradMode, RetainedGradientIsTheOneAfterEveryHook) {
    // PyTorch 2's rule: whatever the order of registration, retain_grad keeps the gradient
    // that the formula goes on to use.
    Tensor x = leaf({1, 2});
    const Tensor h = x * 3;
    h.retain_grad();
    h.register_hook([](const Tensor& g) -> std::optional<Tensor> { return g * 10; });
    (h * 2).sum().backward();
    EXPECT_EQ(values<double>(*h.grad()), (std::vector<double>{20, 20}));
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{60, 60}));
}

TEST(AutogradMode, HookThatChangesTheShapeOrTypeIsRefused) {
    Tensor x = leaf({1, 2, 3});
    x.register_hook([](const Tensor&) -> std::optional<Tensor> { return kael::ones({5}, DType::F64); });
    std::string message = message_of([&] { (x * 2).sum().backward(); });
    EXPECT_TRUE(contains(message, "hook 'hook' has changed the size of value")) << message;
    EXPECT_FALSE(x.grad().has_value());
    Tensor y = leaf({1, 2, 3});
    const Tensor h = y * 2;
    h.register_hook([](const Tensor& g) -> std::optional<Tensor> { return g.to(DType::F32); });
    message = message_of([&] { h.sum().backward(); });
    EXPECT_TRUE(contains(message, "hook 'hook' has changed the type of value")) << message;
}

TEST(AutogradMode, HooksSeeAndReplaceGradients) {
    Tensor x = leaf({1, 2});
    x.register_hook([](const Tensor& g) -> std::optional<Tensor> { return g * 10; });
    const Tensor h = x * 3;
    std::vector<double> seen;
    h.register_hook([&](const Tensor& g) -> std::optional<Tensor> {
        seen = values<double>(g);
        return std::nullopt;
    });
    h.sum().backward();
    EXPECT_EQ(seen, (std::vector<double>{1, 1}));
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{30, 30}));
    EXPECT_THROW(kael::ones({1}).register_hook([](const Tensor&) { return std::nullopt; }), kael::Error);
}

TEST(AutogradMode, SetGradAndZeroGrad) {
    Tensor x = leaf({1, 2});
    EXPECT_THROW(x.set_grad(from_vector<double>({1, 2, 3})), kael::ValueError);
    EXPECT_THROW(x.set_grad(from_vector<float>({1, 2})), kael::TypeError);
    (x * 2).sum().backward();
    kael::autograd::zero_grad({x}, /*set_to_none=*/false);
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, 0}));
    kael::autograd::zero_grad({x});
    EXPECT_FALSE(x.grad().has_value());
}

// ---- what is not differentiable ------------------------------------------------------------------

TEST(AutogradMode, ComparisonsIndicesAndIntegerResultsDoNotRequireGrad) {
    Tensor x = leaf({1, 3, 2});
    EXPECT_FALSE((x > 1).requires_grad());
    EXPECT_FALSE(kael::argmax(x).requires_grad());
    EXPECT_FALSE(kael::max(x, 0).indices.requires_grad());
    EXPECT_TRUE(kael::max(x, 0).values.requires_grad());
    EXPECT_FALSE(x.to(DType::I64).requires_grad());
    EXPECT_FALSE(kael::isnan(x).requires_grad());
}

TEST(AutogradMode, ConversionsAndClonePassGradientsBack) {
    Tensor x = leaf({1, 2});
    const Tensor f = x.to(DType::F32);
    EXPECT_EQ(f.grad_fn()->name(), "ToCopyBackward");
    (f * 2).sum().backward();
    EXPECT_EQ(x.grad()->dtype(), DType::F64);  // converted back to the leaf's dtype
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{2, 2}));
    Tensor y = leaf({1, 2});
    y.clone().sum().backward();
    EXPECT_EQ(values<double>(*y.grad()), (std::vector<double>{1, 1}));
    EXPECT_TRUE(y.to(DType::F64).is_same(y));  // same dtype: the same tensor, no node
}

// ---- in-place operations in the graph ------------------------------------------------------------

TEST(AutogradInplace, LeafThatRequiresGradIsRefused) {
    Tensor x = leaf({1, 2});
    const std::string message = message_of([&] { x.add_(1); });
    EXPECT_TRUE(contains(message, "a leaf Variable that requires grad is being used in an in-place operation"))
        << message;
    const kael::autograd::NoGradGuard no_grad;  // as an optimizer step does
    x.add_(1);
    EXPECT_EQ(values<double>(x), (std::vector<double>{2, 3}));
}

TEST(AutogradInplace, NonLeafIsRebasedOntoTheNewNode) {
    // PyTorch: y = x * 2; y.add_(1); y.exp() differentiates through both.
    Tensor x = leaf({0.5, 1.0});
    Tensor y = x * 2;
    y.add_(1);
    EXPECT_EQ(y.grad_fn()->name(), "AddBackward");
    y.exp().sum().backward();
    const std::vector<double> got = values<double>(*x.grad());
    EXPECT_NEAR(got[0], 2 * std::exp(2.0), 1e-12);
    EXPECT_NEAR(got[1], 2 * std::exp(3.0), 1e-12);
}

TEST(AutogradInplace, InPlaceProductUsesTheValueBeforeTheWrite) {
    Tensor x = leaf({1, 2});
    Tensor w = leaf({3, 4});
    Tensor y = x * 2;
    y.mul_(w);
    y.sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{6, 8}));  // PyTorch's numbers
    EXPECT_EQ(values<double>(*w.grad()), (std::vector<double>{2, 4}));
}

TEST(AutogradInplace, WritingAGradientCarryingValueIntoAPlainTensorGivesItHistory) {
    Tensor w = leaf({3, 4});
    Tensor buffer = kael::zeros({2}, DType::F64);
    buffer.copy_(w * 2);
    EXPECT_TRUE(buffer.requires_grad());
    buffer.sum().backward();
    EXPECT_EQ(values<double>(*w.grad()), (std::vector<double>{2, 2}));
}

TEST(AutogradInplace, FillAndZeroCutTheGradient) {
    Tensor x = leaf({1, 2});
    Tensor y = x * 2;
    y.zero_();
    EXPECT_TRUE(y.requires_grad());
    (y + x).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{1, 1}));
}

// The expected gradients below are PyTorch 1.13's for the same code.
TEST(AutogradInplace, WriteThroughAViewRebasesItsBase) {
    Tensor x = leaf({1, 2, 3, 4});
    Tensor y = x * 2;
    Tensor part = y.slice(0, 0, 2);
    part.mul_(3);
    EXPECT_EQ(values<double>(y), (std::vector<double>{6, 12, 6, 8}));
    EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
    EXPECT_EQ(part.grad_fn()->name(), "AsStridedBackward");
    (y * from_vector<double>({1, 2, 3, 4})).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{6, 12, 6, 8}));
}

TEST(AutogradInplace, StridedSliceTakesTheGradientOfAnotherLeaf) {
    Tensor x = from_vector<double>({1, 2, 3, 4, 5, 6, 7, 8}).reshape({2, 4}).requires_grad_();
    Tensor w = from_vector<double>({0.5, -1, 2, 3}).reshape({2, 2}).requires_grad_();
    Tensor y = x * 3;
    y.slice(1, 0, 4, 2).add_(w);
    (y * y).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{21, 36, 48, 72, 102, 108, 144, 144}));
    EXPECT_EQ(values<double>(*w.grad()), (std::vector<double>{7, 16, 34, 48}));
}

TEST(AutogradInplace, WritingIntoAViewOfAPlainBufferGivesTheBufferHistory) {
    Tensor x = leaf({1, 2, 3});
    Tensor buffer = kael::zeros({4}, DType::F64);
    Tensor later = buffer.slice(0, 2, 4);  // made before the buffer had any history
    buffer.slice(0, 0, 2).copy_(x.slice(0, 0, 2));
    EXPECT_TRUE(buffer.requires_grad());
    EXPECT_EQ(buffer.grad_fn()->name(), "CopySlices");
    EXPECT_TRUE(later.requires_grad());  // its base has history now
    (buffer * kael::arange(4, DType::F64)).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, 1, 0}));
}

TEST(AutogradInplace, AViewFollowsItsBaseAfterTheBaseIsWritten) {
    Tensor x = from_vector<double>({1, 2, 3, 4}).reshape({2, 2}).requires_grad_();
    Tensor y = x * 2;
    const Tensor view = y.T();
    y.add_(1);
    EXPECT_EQ(view.grad_fn()->name(), "AsStridedBackward");
    (view * from_vector<double>({1, 2, 3, 4}).reshape({2, 2})).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{2, 6, 4, 8}));
}

TEST(AutogradInplace, ViewOfALeafThatRequiresGradIsRefused) {
    Tensor w = leaf({1, 2});
    Tensor first = w.slice(0, 0, 1);
    const std::string message = message_of([&] { first.mul_(2); });
    EXPECT_TRUE(contains(message, "a view of a leaf Variable that requires grad is being used in an in-place operation"))
        << message;
    const kael::autograd::NoGradGuard no_grad;
    first.mul_(2);  // what an optimizer does: outside the graph it is an ordinary write
    EXPECT_EQ(values<double>(w), (std::vector<double>{2, 2}));
}

TEST(AutogradInplace, MemorySharedWithAnUntrackedTensorIsRefused) {
    Tensor w = leaf({1, 2});
    Tensor buffer = kael::zeros({2}, DType::F64);
    const Tensor alias = buffer.detach();
    std::string message = message_of([&] { buffer.copy_(w); });
    EXPECT_TRUE(contains(message, "autograd does not follow")) << message;
    const Tensor base = kael::zeros({4}, DType::F64);
    Tensor quiet = [&] {
        const kael::autograd::NoGradGuard no_grad;  // a view made here is a plain alias
        return base.slice(0, 0, 2);
    }();
    message = message_of([&] { quiet.copy_(w); });
    EXPECT_TRUE(contains(message, "autograd does not follow")) << message;
    Tensor alone = kael::zeros({2}, DType::F64);
    alone.copy_(w);  // memory nobody else holds: allowed, and it takes w's gradient
    alone.sum().backward();
    EXPECT_EQ(values<double>(*w.grad()), (std::vector<double>{1, 1}));
}

TEST(AutogradInplace, ShapeAndDtypeRulesStillHold) {
    Tensor x = leaf({1, 2});
    Tensor y = x * 2;
    EXPECT_THROW(y.add_(kael::ones({3, 2}, DType::F64)), kael::ValueError);
    Tensor counts = kael::zeros({2}, DType::I64);
    counts.add_(from_vector<std::int64_t>({1, 1}));  // integers never enter the graph
    EXPECT_FALSE(counts.requires_grad());
}

TEST(AutogradInplace, InPlaceWriteBumpsTheVersionOfASavedTensor) {
    Tensor x = leaf({1, 2});
    Tensor y = x * 2;
    const Tensor z = (y * y).sum();  // saves y
    y.add_(1);
    EXPECT_TRUE(contains(message_of([&] { z.backward(); }), "modified by an inplace operation"));
}

}  // namespace
