// Optimizers: each update rule against the formula written out, step by step, and the
// checks on parameters and hyperparameters at and just past their limits; their state
// dicts, in PyTorch's layout, and a training run resumed from files that continues bit for
// bit. The PyTorch reference check (tests/torch_reference) compares whole trajectories and
// state dicts with torch.optim.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "helpers.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/io/safetensors.h"
#include "kael/nn.h"
#include "kael/ops.h"
#include "kael/optim/adam.h"
#include "kael/optim/checkpoint.h"
#include "kael/optim/schedule.h"
#include "kael/optim/sequential.h"
#include "kael/optim/sgd.h"
#include "kael/random.h"
#include "kael/view.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::nn::StateDict;
using kael::testing::edited;
using kael::testing::grad_leaf;
using kael::testing::TempDir;
using kael::testing::values;

// Sets p's gradient to `g` (as backward would) and runs one step.
void step_with(kael::optim::Optimizer& optimizer, Tensor& p, const std::vector<double>& g) {
    p.set_grad(kael::from_vector(g));
    optimizer.step();
}

TEST(OptimSgd, PlainStepMovesAgainstTheGradient) {
    Tensor p = grad_leaf({1.0, -2.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    step_with(sgd, p, {0.5, -1.0});
    EXPECT_EQ(values<double>(p), (std::vector<double>{1.0 - 0.05, -2.0 + 0.1}));
    EXPECT_TRUE(p.is_leaf());  // the update was not recorded
}

TEST(OptimSgd, MomentumDampeningNesterovAndWeightDecay) {
    const kael::optim::SgdOptions options{.lr = 0.1, .momentum = 0.9, .dampening = 0.25, .weight_decay = 0.01};
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, options);
    double x = 1.0;
    double buffer = 0;
    const std::vector<double> grads{0.5, -0.2, 0.3};
    for (std::size_t t = 0; t < grads.size(); ++t) {
        const double d = grads[t] + 0.01 * x;
        buffer = t == 0 ? d : 0.9 * buffer + 0.75 * d;  // the first step is not dampened
        x -= 0.1 * buffer;
        step_with(sgd, p, {grads[t]});
        EXPECT_NEAR(p.item(), x, 1e-15) << "step " << t + 1;
    }
    Tensor q = grad_leaf({1.0});
    kael::optim::Sgd nesterov({q}, {.lr = 0.1, .momentum = 0.9, .nesterov = true});
    step_with(nesterov, q, {0.5});  // b = 0.5, d' = 0.5 + 0.9 * 0.5
    EXPECT_NEAR(q.item(), 1.0 - 0.1 * 0.95, 1e-15);
}

TEST(OptimAdam, StepsFollowTheBiasCorrectedFormula) {
    const kael::optim::AdamOptions options{.lr = 0.01, .beta1 = 0.8, .beta2 = 0.95, .eps = 1e-6, .weight_decay = 0.1};
    Tensor p = grad_leaf({0.5});
    kael::optim::Adam adam({p}, options);
    double x = 0.5;
    double m = 0;
    double v = 0;
    const std::vector<double> grads{1.0, -0.5, 0.25, 2.0};
    for (std::size_t i = 0; i < grads.size(); ++i) {
        const double t = static_cast<double>(i + 1);
        const double g = grads[i] + 0.1 * x;  // Adam: L2 through the gradient
        m = 0.8 * m + 0.2 * g;
        v = 0.95 * v + 0.05 * g * g;
        x -= 0.01 / (1 - std::pow(0.8, t)) * m / (std::sqrt(v) / std::sqrt(1 - std::pow(0.95, t)) + 1e-6);
        step_with(adam, p, {grads[i]});
        EXPECT_NEAR(p.item(), x, 1e-14) << "step " << i + 1;
    }
}

// A parameter that is a transposed view (a GPT-2 Conv1D weight as load_gpt2 gives it) fills
// its memory exactly, as does its gradient: the fused step walks both in memory order, with
// the state laid out alike, and must give what it gives a contiguous copy, to the bit.
TEST(OptimAdam, ATransposedParameterStepsExactlyAsAContiguousCopy) {
    kael::manual_seed(1);
    const Tensor start = kael::randn({6, 4});
    const Tensor scale = kael::randn({4, 6});
    Tensor transposed = start.clone().mT().detach().requires_grad_();  // [4, 6], strides {1, 4}
    Tensor plain = transposed.detach().contiguous().requires_grad_();
    ASSERT_FALSE(transposed.is_contiguous());
    kael::optim::AdamW first({transposed}, kael::optim::AdamW::default_options());
    kael::optim::AdamW second({plain}, kael::optim::AdamW::default_options());
    const auto step = [&](kael::optim::AdamW& optimizer, const Tensor& p) {
        optimizer.zero_grad();
        kael::sum(kael::mul(kael::mul(p, scale), kael::mul(p, scale))).backward();
        optimizer.step();
    };
    for (int i = 0; i < 3; ++i) {
        step(first, transposed);
        step(second, plain);
    }
    EXPECT_EQ(values<float>(transposed.contiguous()), values<float>(plain));
    EXPECT_EQ(first.state(0).exp_avg->strides(), transposed.strides());
    EXPECT_EQ(first.state(0).exp_avg_sq->strides(), transposed.strides());
    // A state dict stores the state as it is; loaded into another transposed parameter, the
    // state comes back in the parameter's layout and the steps go on as before.
    Tensor resumed = transposed.detach().clone().mT().contiguous().mT().requires_grad_();
    ASSERT_EQ(resumed.strides(), transposed.strides());
    kael::optim::AdamW reloaded({resumed}, kael::optim::AdamW::default_options());
    reloaded.load_state_dict(first.state_dict());
    step(first, transposed);
    step(reloaded, resumed);
    EXPECT_EQ(values<float>(resumed.contiguous()), values<float>(transposed.contiguous()));
    EXPECT_EQ(reloaded.state(0).exp_avg->strides(), resumed.strides());
}

TEST(OptimAdam, AdamWDecaysTheParameterNotTheGradient) {
    kael::optim::AdamOptions options = kael::optim::AdamW::default_options();
    EXPECT_EQ(options.weight_decay, 1e-2);
    options.lr = 0.1;
    Tensor p = grad_leaf({2.0});
    kael::optim::AdamW adamw({p}, options);
    step_with(adamw, p, {0.5});
    // p *= 1 - lr * wd, then the first Adam step moves by lr * m^ / (sqrt(v^) + eps) = lr * sign(g).
    EXPECT_NEAR(p.item(), 2.0 * (1 - 0.1 * 0.01) - 0.1 * 0.5 / (0.5 + 1e-8), 1e-14);
    // With Adam's L2 the same decay enters the gradient, which the first step normalises away.
    Tensor q = grad_leaf({2.0});
    kael::optim::Adam adam({q}, {.lr = 0.1, .weight_decay = 0.01});
    step_with(adam, q, {0.5});
    EXPECT_NEAR(q.item(), 2.0 - 0.1 * 0.52 / (0.52 + 1e-8), 1e-14);
}

TEST(OptimAdam, AmsgradKeepsTheLargestSecondMoment) {
    Tensor p = grad_leaf({0.0});
    Tensor q = grad_leaf({0.0});
    kael::optim::Adam with({p}, {.lr = 0.1, .beta2 = 0.5, .amsgrad = true});
    kael::optim::Adam without({q}, {.lr = 0.1, .beta2 = 0.5});
    step_with(with, p, {10.0});
    step_with(without, q, {10.0});
    EXPECT_EQ(p.item(), q.item());  // v is still the largest after one step
    const double before_p = p.item();
    const double before_q = q.item();
    step_with(with, p, {0.1});  // v shrinks; AMSGrad divides by the old, larger one
    step_with(without, q, {0.1});
    EXPECT_LT(std::abs(p.item() - before_p), std::abs(q.item() - before_q));
}

// A contiguous CPU parameter takes the fused loop, a strided one the tensor operations: the
// two must agree step for step, in float32 (where rounding differences would show) and in
// every variant.
TEST(OptimAdam, FusedLoopAndTensorOperationsAgree) {
    for (const bool amsgrad : {false, true}) {
        for (const bool decoupled : {false, true}) {
            kael::manual_seed(7);
            const Tensor start = kael::randn({4, 6});
            Tensor fused = start.clone();
            // The same values every other column of a wider buffer: a leaf with gaps between
            // its elements, which the fused loop cannot walk in memory order.
            Tensor strided = kael::zeros({4, 12}).slice(1, 0, 12, 2);
            strided.copy_(start);
            ASSERT_FALSE(kael::is_non_overlapping_and_dense(strided));
            fused.requires_grad_();
            strided.requires_grad_();
            const kael::optim::AdamOptions options{.lr = 0.05, .weight_decay = 0.1, .amsgrad = amsgrad};
            std::unique_ptr<kael::optim::Adam> a;
            std::unique_ptr<kael::optim::Adam> b;
            if (decoupled) {
                a = std::make_unique<kael::optim::AdamW>(std::vector<Tensor>{fused}, options);
                b = std::make_unique<kael::optim::AdamW>(std::vector<Tensor>{strided}, options);
            } else {
                a = std::make_unique<kael::optim::Adam>(std::vector<Tensor>{fused}, options);
                b = std::make_unique<kael::optim::Adam>(std::vector<Tensor>{strided}, options);
            }
            for (int step = 0; step < 5; ++step) {
                const Tensor g = kael::randn({4, 6}) * (step == 3 ? 0.01 : 1.0);  // v shrinks at step 3
                fused.set_grad(g.clone());
                strided.set_grad(g.clone());
                a->step();
                b->step();
                const std::vector<float> x = values<float>(fused);
                const std::vector<float> y = values<float>(strided);
                for (std::size_t i = 0; i < x.size(); ++i) {
                    ASSERT_NEAR(x[i], y[i], 2e-7 * (1 + std::abs(y[i])))
                        << "amsgrad " << amsgrad << ", AdamW " << decoupled << ", step " << step << ", element " << i;
                }
            }
        }
    }
}

TEST(OptimAdam, FusedStepBumpsTheParameterVersion) {
    Tensor p = grad_leaf({1.0, 2.0});
    kael::optim::Adam adam({p}, {});
    const Tensor saved_by_graph = p * p;  // saves p for its backward
    step_with(adam, p, {0.1, 0.1});
    EXPECT_THROW(saved_by_graph.sum().backward(), kael::Error);  // p changed after it was saved
}

TEST(Optim, ParametersWithoutGradientAreSkippedAndZeroGradClears) {
    Tensor a = grad_leaf({1.0});
    Tensor b = grad_leaf({1.0});
    kael::optim::Sgd sgd({a, b}, {.lr = 1.0});
    a.set_grad(kael::from_vector<double>({0.5}));
    sgd.step();
    EXPECT_EQ(a.item(), 0.5);
    EXPECT_EQ(b.item(), 1.0);
    sgd.zero_grad(false);
    EXPECT_EQ(a.grad()->item(), 0.0);
    sgd.zero_grad();
    EXPECT_FALSE(a.grad().has_value());
}

TEST(Optim, TrainingLoopLowersTheLoss) {
    Tensor w = grad_leaf({0.0, 0.0});
    const Tensor x = kael::from_vector<double>({1, 2, 3, 4, -1, 0.5}, {3, 2});
    const Tensor y = kael::from_vector<double>({-1, -1, -1.5});  // x @ [1, -1]
    kael::optim::Adam adam({w}, {.lr = 0.1});
    double first = 0;
    double last = 0;
    for (int step = 0; step < 200; ++step) {
        adam.zero_grad();
        const Tensor loss = kael::mse_loss(kael::matmul(x, w), y);
        loss.backward();
        adam.step();
        (step == 0 ? first : last) = loss.item();
    }
    EXPECT_LT(last, first * 1e-3);
    EXPECT_NEAR(values<double>(w)[0], 1.0, 1e-2);
    EXPECT_NEAR(values<double>(w)[1], -1.0, 1e-2);
}

TEST(Optim, BadParametersAndHyperparametersAreRefused) {
    Tensor p = grad_leaf({1.0});
    EXPECT_THROW(kael::optim::Sgd({p * 2}, {}), kael::Error);                 // not a leaf
    EXPECT_THROW(kael::optim::Sgd({p, Tensor(p)}, {}), kael::ValueError);      // the same tensor twice
    EXPECT_THROW(kael::optim::Sgd({kael::ones({1}, kael::DType::I64)}, {}), kael::Error);
    EXPECT_NO_THROW(kael::optim::Sgd({p}, {.lr = 0.0}));                      // at the limit
    EXPECT_THROW(kael::optim::Sgd({p}, {.lr = -1e-12}), kael::ValueError);    // just past it
    EXPECT_THROW(kael::optim::Sgd({p}, {.momentum = -0.1}), kael::ValueError);
    EXPECT_THROW(kael::optim::Sgd({p}, {.nesterov = true}), kael::ValueError);
    EXPECT_THROW(kael::optim::Sgd({p}, {.momentum = 0.9, .dampening = 0.1, .nesterov = true}), kael::ValueError);
    EXPECT_NO_THROW(kael::optim::Adam({p}, {.beta1 = 0.0}));
    EXPECT_THROW(kael::optim::Adam({p}, {.beta1 = 1.0}), kael::ValueError);
    EXPECT_THROW(kael::optim::Adam({p}, {.beta2 = -0.1}), kael::ValueError);
    EXPECT_THROW(kael::optim::Adam({p}, {.eps = -1e-9}), kael::ValueError);
    EXPECT_THROW(kael::optim::AdamW({p}, {.weight_decay = -0.01}), kael::ValueError);
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    EXPECT_THROW(sgd.set_learning_rate(-0.5), kael::ValueError);
    sgd.set_learning_rate(0.5);
    EXPECT_EQ(sgd.learning_rate(), 0.5);
}

TEST(OptimMaximize, SgdAndAdamStepAlongTheGradient) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1, .weight_decay = 0.5, .maximize = true});
    step_with(sgd, p, {2.0});  // d = -g + 0.5 p = -1.5
    EXPECT_DOUBLE_EQ(p.item(), 1.0 + 0.1 * 1.5);
    Tensor q = grad_leaf({1.0});
    kael::optim::Adam adam({q}, {.lr = 0.1, .maximize = true});
    step_with(adam, q, {2.0});  // the first Adam step moves by lr * sign(-g)
    EXPECT_NEAR(q.item(), 1.0 + 0.1, 1e-8);
}

// An optimizer of the user's own, with none of the optional parts.
class PlainDescent final : public kael::optim::Optimizer {
public:
    explicit PlainDescent(std::vector<Tensor> parameters) : Optimizer(std::move(parameters), 0.1) {}
    void step() override {}
};

TEST(OptimMomentum, IsSgdsMomentumAndAdamsBeta1) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1, .momentum = 0.9});
    EXPECT_EQ(sgd.momentum(), 0.9);
    sgd.set_momentum(0.0);  // the limit
    EXPECT_EQ(sgd.options().momentum, 0.0);
    EXPECT_THROW(sgd.set_momentum(-1e-12), kael::ValueError);
    kael::optim::Adam adam({p}, {.beta1 = 0.8});
    EXPECT_EQ(adam.momentum(), 0.8);
    adam.set_momentum(0.0);
    EXPECT_EQ(adam.options().beta1, 0.0);
    EXPECT_THROW(adam.set_momentum(1.0), kael::ValueError);  // beta1 < 1
    EXPECT_EQ(adam.options().beta1, 0.0);                    // a refused value changes nothing
    PlainDescent plain({p});
    EXPECT_FALSE(plain.momentum().has_value());
    EXPECT_THROW(plain.set_momentum(0.9), kael::ValueError);
}

TEST(OptimAdam, StateShowsEachParametersStepsAndMoments) {
    Tensor a = grad_leaf({1.0});
    Tensor b = grad_leaf({1.0});
    kael::optim::Adam adam({a, b}, {.beta1 = 0.8, .beta2 = 0.9, .amsgrad = true});
    EXPECT_EQ(adam.state(0).step, 0);
    EXPECT_FALSE(adam.state(0).exp_avg.has_value());  // no state before the first gradient
    a.set_grad(kael::from_vector<double>({2.0}));
    adam.step();
    step_with(adam, b, {3.0});  // a's gradient is still there: a steps again, b for the first time
    EXPECT_EQ(adam.state(0).step, 2);
    EXPECT_EQ(adam.state(1).step, 1);
    EXPECT_DOUBLE_EQ(adam.state(1).exp_avg->item(), 0.2 * 3.0);
    EXPECT_DOUBLE_EQ(adam.state(1).exp_avg_sq->item(), 0.1 * 9.0);
    EXPECT_DOUBLE_EQ(adam.state(1).max_exp_avg_sq->item(), 0.1 * 9.0);
    EXPECT_THROW((void)adam.state(2), kael::IndexError);  // one past the last
    kael::optim::Sgd sgd({a}, {.momentum = 0.9});
    EXPECT_FALSE(sgd.momentum_buffer(0).has_value());
    EXPECT_THROW((void)sgd.momentum_buffer(1), kael::IndexError);
}

TEST(OptimStateDict, SgdHoldsPyTorchsKeys) {
    Tensor a = grad_leaf({1.0, 2.0});
    Tensor b = grad_leaf({3.0});
    kael::optim::Sgd sgd({a, b}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.25, .weight_decay = 0.01});
    step_with(sgd, a, {0.5, -0.5});  // b has no gradient, so no buffer
    const StateDict state = sgd.state_dict();
    EXPECT_EQ(state.keys(), (std::vector<std::string>{"state.0.momentum_buffer", "param_groups.0.lr",
                                                      "param_groups.0.momentum", "param_groups.0.dampening",
                                                      "param_groups.0.weight_decay", "param_groups.0.nesterov",
                                                      "param_groups.0.maximize", "param_groups.0.params"}));
    // The buffer itself, as PyTorch's state_dict returns it, not a copy.
    EXPECT_TRUE(state.at("state.0.momentum_buffer").is_same(*sgd.momentum_buffer(0)));
    const Tensor& lr = state.at("param_groups.0.lr");
    EXPECT_EQ(lr.dtype(), DType::F64);
    EXPECT_EQ(lr.dim(), 0);
    EXPECT_EQ(lr.item<double>(), 0.1);
    EXPECT_EQ(state.at("param_groups.0.dampening").item<double>(), 0.25);
    EXPECT_EQ(state.at("param_groups.0.nesterov").dtype(), DType::Bool);
    EXPECT_EQ(state.at("param_groups.0.nesterov").item(), 0.0);
    EXPECT_EQ(values<std::int64_t>(state.at("param_groups.0.params")), (std::vector<std::int64_t>{0, 1}));
    // Without momentum there is no buffer at all.
    kael::optim::Sgd plain({a}, {.lr = 0.1});
    step_with(plain, a, {1.0, 1.0});
    EXPECT_FALSE(plain.state_dict().contains("state.0.momentum_buffer"));
}

TEST(OptimStateDict, AdamHoldsPyTorchsKeysAndAScheduleAddsInitialLr) {
    Tensor a = grad_leaf({1.0, 2.0});
    Tensor b = grad_leaf({3.0});
    kael::optim::Adam adam({a, b}, {.lr = 0.01, .beta1 = 0.8, .beta2 = 0.95, .amsgrad = true});
    step_with(adam, a, {0.5, -0.5});
    adam.step();
    const StateDict state = adam.state_dict();
    EXPECT_EQ(state.keys(),
              (std::vector<std::string>{"state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq",
                                        "state.0.max_exp_avg_sq", "param_groups.0.lr", "param_groups.0.betas",
                                        "param_groups.0.eps", "param_groups.0.weight_decay", "param_groups.0.amsgrad",
                                        "param_groups.0.maximize", "param_groups.0.decoupled_weight_decay",
                                        "param_groups.0.params"}));
    EXPECT_EQ(state.at("state.0.step").dtype(), DType::I64);
    EXPECT_EQ(state.at("state.0.step").item<std::int64_t>(), 2);
    EXPECT_TRUE(state.at("state.0.exp_avg").is_same(*adam.state(0).exp_avg));
    EXPECT_EQ(values<double>(state.at("param_groups.0.betas")), (std::vector<double>{0.8, 0.95}));
    EXPECT_EQ(state.at("param_groups.0.decoupled_weight_decay").item(), 0.0);
    kael::optim::AdamW adamw({a});
    EXPECT_EQ(adamw.state_dict().at("param_groups.0.decoupled_weight_decay").item(), 1.0);
    EXPECT_FALSE(adamw.state_dict().contains("param_groups.0.initial_lr"));
    const kael::optim::StepLR schedule(adamw, 10);
    EXPECT_EQ(adamw.state_dict().at("param_groups.0.initial_lr").item<double>(), 1e-3);
}

// The message of the ValueError that `load` throws; fails the test if it throws none.
std::string refusal(const std::function<void()>& load) {
    try {
        load();
    } catch (const kael::ValueError& error) {
        return error.what();
    }
    ADD_FAILURE() << "the state dict was accepted";
    return "";
}

TEST(OptimStateDict, RoundTripRestoresStateAndHyperparameters) {
    kael::manual_seed(3);
    Tensor a = kael::randn({2, 3}).requires_grad_();
    Tensor b = kael::randn({4}).requires_grad_();
    kael::optim::Adam adam({a, b}, {.lr = 0.02, .beta1 = 0.7, .beta2 = 0.9, .eps = 1e-6, .amsgrad = true});
    for (int step = 0; step < 3; ++step) {
        a.set_grad(kael::randn({2, 3}));
        b.set_grad(kael::randn({4}));
        adam.step();
    }
    adam.set_learning_rate(0.005);  // as a schedule would
    // Through the bytes of a file, and into an optimizer built with other hyperparameters.
    const StateDict loaded = kael::io::from_safetensors_bytes(kael::io::to_safetensors_bytes(adam.state_dict()));
    Tensor c = kael::zeros({2, 3}).requires_grad_();
    Tensor d = kael::zeros({4}).requires_grad_();
    kael::optim::Adam other({c, d}, {.lr = 0.5, .beta1 = 0.5});
    other.load_state_dict(loaded);
    EXPECT_EQ(other.learning_rate(), 0.005);
    EXPECT_EQ(other.options().beta1, 0.7);
    EXPECT_EQ(other.options().beta2, 0.9);
    EXPECT_EQ(other.options().eps, 1e-6);
    EXPECT_TRUE(other.options().amsgrad);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(other.state(i).step, 3);
        EXPECT_EQ(values<float>(*other.state(i).exp_avg), values<float>(*adam.state(i).exp_avg));
        EXPECT_EQ(values<float>(*other.state(i).max_exp_avg_sq), values<float>(*adam.state(i).max_exp_avg_sq));
    }
    // A copy: the caller's dict and the optimizer do not share buffers.
    EXPECT_FALSE(other.state(0).exp_avg->is_same(loaded.at("state.0.exp_avg")));
    EXPECT_EQ(kael::io::to_safetensors_bytes(other.state_dict()), kael::io::to_safetensors_bytes(adam.state_dict()));
}

TEST(OptimStateDict, SavedIndicesMapStateOntoParametersAsInPyTorch) {
    Tensor a = grad_leaf({1.0, 2.0});
    Tensor b = grad_leaf({3.0, 4.0, 5.0});
    kael::optim::Adam adam({a, b}, {});
    step_with(adam, b, {1.0, 1.0, 1.0});  // only b has state, under "state.1"
    // A new optimizer lists b first: the saved params [1, 0] say that its parameter 0 is
    // the saved parameter 1.
    const StateDict state =
        edited(adam.state_dict(), "param_groups.0.params", kael::from_vector(std::vector<std::int64_t>{1, 0}));
    Tensor b2 = grad_leaf({0.0, 0.0, 0.0});
    Tensor a2 = grad_leaf({0.0, 0.0});
    kael::optim::Adam swapped({b2, a2}, {});
    swapped.load_state_dict(state);
    EXPECT_EQ(swapped.state(0).step, 1);
    EXPECT_EQ(values<double>(*swapped.state(0).exp_avg), values<double>(*adam.state(1).exp_avg));
    EXPECT_FALSE(swapped.state(1).exp_avg.has_value());
}

TEST(OptimStateDict, AcceptsPyTorchsFloatStepAndCastsBuffersToTheParameterDtype) {
    Tensor p = kael::zeros({2}).requires_grad_();  // float32
    kael::optim::Adam adam({p}, {});
    StateDict state = adam.state_dict();
    state = edited(state, "state.0.step", kael::scalar(6.0, DType::F32));  // torch.tensor(6.)
    state = edited(state, "state.0.exp_avg", kael::from_vector<double>({0.25, -0.5}));
    state = edited(state, "state.0.exp_avg_sq", kael::from_vector<double>({1.0, 2.0}));
    adam.load_state_dict(state);
    EXPECT_EQ(adam.state(0).step, 6);
    EXPECT_EQ(adam.state(0).exp_avg->dtype(), DType::F32);
    EXPECT_EQ(values<float>(*adam.state(0).exp_avg), (std::vector<float>{0.25f, -0.5f}));
    const std::string message =
        refusal([&] { adam.load_state_dict(edited(state, "state.0.step", kael::scalar(6.5, DType::F32))); });
    EXPECT_NE(message.find("must hold a whole number"), std::string::npos) << message;
}

TEST(OptimStateDict, RefusesAStateThatDoesNotMatchAndChangesNothing) {
    Tensor a = grad_leaf({1.0, 2.0});
    Tensor b = grad_leaf({3.0, 4.0, 5.0});
    kael::optim::Adam adam({a, b}, {.lr = 0.01});
    step_with(adam, a, {1.0, 1.0});
    const StateDict good = adam.state_dict();
    Tensor c = grad_leaf({0.0, 0.0});
    Tensor d = grad_leaf({0.0, 0.0, 0.0});
    kael::optim::Adam target({c, d}, {.lr = 0.3});
    step_with(target, c, {2.0, 2.0});
    const std::vector<double> exp_avg = values<double>(*target.state(0).exp_avg);
    const auto unchanged = [&] {
        EXPECT_EQ(target.learning_rate(), 0.3);
        EXPECT_EQ(target.state(0).step, 1);
        EXPECT_EQ(values<double>(*target.state(0).exp_avg), exp_avg);
        EXPECT_FALSE(target.state(1).exp_avg.has_value());
    };
    const auto refused = [&](const StateDict& state, const std::string& expected) {
        const std::string message = refusal([&] { target.load_state_dict(state); });
        EXPECT_NE(message.find(expected), std::string::npos) << message;
        unchanged();
    };
    target.load_state_dict(good);  // the good one loads, and can be put back
    target.load_state_dict(adam.state_dict());
    kael::optim::Adam fresh({c, d}, {.lr = 0.3});
    step_with(fresh, c, {2.0, 2.0});
    target.load_state_dict(fresh.state_dict());
    unchanged();

    // Another number of parameters, one fewer and one more.
    kael::optim::Adam one({a}, {});
    refused(one.state_dict(), "doesn't match the size of optimizer's group");
    Tensor e = grad_leaf({0.0});
    kael::optim::Adam three({a, b, e}, {});
    refused(three.state_dict(), "doesn't match the size of optimizer's group");
    // A buffer of another shape.
    Tensor wide = grad_leaf({0.0, 0.0, 0.0});
    kael::optim::Adam other_shape({wide, b}, {});
    step_with(other_shape, wide, {1.0, 1.0, 1.0});
    refused(other_shape.state_dict(), "'state.0.exp_avg' is float64 of shape [3]");
    // Another kind of optimizer.
    kael::optim::Sgd sgd({a, b}, {.momentum = 0.9});
    refused(sgd.state_dict(), "'param_groups.0.betas'");
    kael::optim::AdamW adamw({a, b});
    refused(adamw.state_dict(), "the state dict is AdamW's");
    // Missing, mistyped and unexpected keys.
    refused(edited(good, "state.0.exp_avg_sq", std::nullopt), "'step', 'exp_avg' and 'exp_avg_sq' together");
    refused(edited(good, "param_groups.0.eps", std::nullopt), "has no 'param_groups.0.eps'");
    refused(edited(good, "param_groups.0.lr", kael::scalar(1, DType::I64)), "must be a 0-d float64 tensor");
    refused(edited(good, "param_groups.0.betas", kael::from_vector<double>({0.9})), "of shape [2]");
    refused(edited(good, "state.7.exp_avg", kael::zeros({2})), "unexpected key(s) in state_dict: \"state.7.exp_avg\"");
    refused(edited(good, "param_groups.1.lr", kael::scalar(0.1, DType::F64)), "different number of parameter groups");
    refused(edited(good, "param_groups.0.params", kael::from_vector(std::vector<std::int64_t>{0, 0})), "twice");
    // AMSGrad turned on without its buffer, and hyperparameters the constructor refuses.
    refused(edited(good, "param_groups.0.amsgrad", kael::scalar(true, DType::Bool)), "'state.0.max_exp_avg_sq'");
    refused(edited(good, "param_groups.0.betas", kael::from_vector<double>({1.0, 0.999})), "Invalid beta parameter");
    refused(edited(good, "param_groups.0.lr", kael::scalar(-0.1, DType::F64)), "Invalid learning rate");
    kael::optim::Sgd plain_sgd({a}, {});
    const StateDict sgd_state = plain_sgd.state_dict();
    EXPECT_THROW(plain_sgd.load_state_dict(edited(sgd_state, "param_groups.0.nesterov", kael::scalar(true, DType::Bool))),
                 kael::ValueError);  // Nesterov without momentum
}

TEST(OptimStateDict, AnOptimizerWithoutStateSavesItsRateAndParameters) {
    Tensor p = grad_leaf({1.0});
    PlainDescent plain({p});
    const StateDict state = plain.state_dict();
    EXPECT_EQ(state.keys(), (std::vector<std::string>{"param_groups.0.lr", "param_groups.0.params"}));
    plain.set_learning_rate(0.7);
    plain.load_state_dict(state);
    EXPECT_EQ(plain.learning_rate(), 0.1);
    EXPECT_THROW(plain.load_state_dict(edited(state, "state.0.momentum_buffer", kael::zeros({1}))), kael::ValueError);
}

// A 4-8-3 classifier whose weights come from `seed`.
std::unique_ptr<kael::nn::Sequential> make_model(std::uint64_t seed) {
    kael::manual_seed(seed);
    return std::make_unique<kael::nn::Sequential>(std::vector<std::shared_ptr<kael::nn::UnaryModule>>{
        std::make_shared<kael::nn::Linear>(4, 8), std::make_shared<kael::nn::GELU>(),
        std::make_shared<kael::nn::Linear>(8, 3)});
}

using MakeOptimizer = std::function<std::unique_ptr<kael::optim::Optimizer>(std::vector<Tensor>)>;
using MakeSchedule = std::function<std::unique_ptr<kael::optim::LRScheduler>(kael::optim::Optimizer&)>;

// Steps from..to-1 of a training run: batch t is the same for every run that reaches it.
// The last layer's bias gets no gradient on odd steps, so that parameters count their
// steps differently.
void train(kael::nn::Module& model, kael::optim::Optimizer& optimizer, kael::optim::LRScheduler* schedule, int from,
           int to) {
    const Tensor targets = kael::from_vector<std::int64_t>({0, 1, 2, 0, 1, 2});
    for (int step = from; step < to; ++step) {
        kael::manual_seed(1000 + static_cast<std::uint64_t>(step));
        const Tensor x = kael::randn({6, 4});
        optimizer.zero_grad();
        kael::cross_entropy(dynamic_cast<kael::nn::UnaryModule&>(model)(x), targets).backward();
        if (step % 2 == 1) {
            model.parameters().back().set_grad(std::nullopt);
        }
        optimizer.step();
        if (schedule != nullptr) {
            schedule->step();
        }
    }
}

// Trains `steps` steps straight, and again with a stop after `stop` steps: the model, the
// optimizer and the schedule go to files, and fresh ones, built with other weights, load
// them and finish the run. The two runs must end with the same bits. With
// `load_optimizer` false, the resumed run starts its optimizer (and schedule) afresh.
void expect_resume_is_exact(const MakeOptimizer& make_optimizer, const MakeSchedule& make_schedule = nullptr,
                            bool load_optimizer = true) {
    constexpr int stop = 5;
    constexpr int steps = 9;
    const auto straight = make_model(1);
    const auto straight_optimizer = make_optimizer(straight->parameters());
    const auto straight_schedule = make_schedule ? make_schedule(*straight_optimizer) : nullptr;
    train(*straight, *straight_optimizer, straight_schedule.get(), 0, steps);

    const TempDir dir;
    {
        const auto first = make_model(1);
        const auto optimizer = make_optimizer(first->parameters());
        const auto schedule = make_schedule ? make_schedule(*optimizer) : nullptr;
        train(*first, *optimizer, schedule.get(), 0, stop);
        kael::io::save_safetensors(first->state_dict(), dir.path() / "model.safetensors");
        kael::optim::save_state(*optimizer, dir.path() / "optimizer.safetensors");
        if (schedule) {
            kael::optim::save_state(*schedule, dir.path() / "schedule.safetensors");
        }
    }
    const auto resumed = make_model(2);
    const auto optimizer = make_optimizer(resumed->parameters());
    const auto schedule = make_schedule ? make_schedule(*optimizer) : nullptr;
    resumed->load_state_dict(kael::io::load_safetensors(dir.path() / "model.safetensors"));
    if (load_optimizer) {
        kael::optim::load_state(*optimizer, dir.path() / "optimizer.safetensors");
        if (schedule) {
            kael::optim::load_state(*schedule, dir.path() / "schedule.safetensors");
        }
    }
    train(*resumed, *optimizer, schedule.get(), stop, steps);

    bool same = true;
    const std::vector<Tensor> expected = straight->parameters();
    const std::vector<Tensor> got = resumed->parameters();
    for (std::size_t i = 0; i < expected.size(); ++i) {
        same = same && values<float>(got[i]) == values<float>(expected[i]);
    }
    EXPECT_EQ(same, load_optimizer) << (load_optimizer ? "the resumed run drifted from the straight one"
                                                       : "the optimizer's state made no difference");
}

TEST(OptimResume, SgdWithMomentumContinuesBitForBit) {
    expect_resume_is_exact([](std::vector<Tensor> p) {
        return std::make_unique<kael::optim::Sgd>(std::move(p), kael::optim::SgdOptions{
                                                                    .lr = 0.1, .momentum = 0.9, .dampening = 0.1,
                                                                    .weight_decay = 1e-3});
    });
}

TEST(OptimResume, SgdWithNesterovContinuesBitForBit) {
    expect_resume_is_exact([](std::vector<Tensor> p) {
        return std::make_unique<kael::optim::Sgd>(
            std::move(p), kael::optim::SgdOptions{.lr = 0.1, .momentum = 0.8, .nesterov = true});
    });
}

TEST(OptimResume, AdamWithAmsgradContinuesBitForBit) {
    expect_resume_is_exact([](std::vector<Tensor> p) {
        return std::make_unique<kael::optim::Adam>(
            std::move(p), kael::optim::AdamOptions{.lr = 0.01, .weight_decay = 0.01, .amsgrad = true});
    });
}

TEST(OptimResume, AdamWContinuesBitForBit) {
    expect_resume_is_exact(
        [](std::vector<Tensor> p) { return std::make_unique<kael::optim::AdamW>(std::move(p)); });
}

TEST(OptimResume, WithoutTheOptimizerStateTheRunDrifts) {
    expect_resume_is_exact(
        [](std::vector<Tensor> p) { return std::make_unique<kael::optim::AdamW>(std::move(p)); }, nullptr, false);
}

// The GPT recipe, AdamW under a linear warmup and a cosine decay, stopped inside the decay.
TEST(OptimResume, AdamWUnderWarmupThenCosineContinuesBitForBit) {
    expect_resume_is_exact(
        [](std::vector<Tensor> p) {
            return std::make_unique<kael::optim::AdamW>(std::move(p), kael::optim::AdamOptions{.lr = 0.02});
        },
        [](kael::optim::Optimizer& optimizer) {
            auto warmup = std::make_shared<kael::optim::LinearLR>(optimizer, 0.1, 1.0, 3);
            auto decay = std::make_shared<kael::optim::CosineAnnealingLR>(optimizer, 5, 1e-3);
            return std::make_unique<kael::optim::SequentialLR>(
                optimizer, std::vector<std::shared_ptr<kael::optim::LRScheduler>>{warmup, decay},
                std::vector<std::int64_t>{3});
        });
}

}  // namespace
