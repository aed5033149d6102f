// The backward formula of every differentiable operation, checked by gradcheck on
// contiguous, non-contiguous and broadcast inputs, plus second derivatives, and the
// subgradients PyTorch picks at kinks and ties, checked value by value.
#include <gtest/gtest.h>

#include <functional>

#include "helpers.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Tensor;
using kael::autograd::gradcheck;
using kael::testing::values;
using Inputs = std::vector<Tensor>;
using Function = std::function<Tensor(const Inputs&)>;

enum class Layout { Contiguous, Strided };

// A float64 leaf that requires grad, with values in [low, high). A strided leaf holds the
// same kind of values in a non-contiguous layout: a transpose of its last two
// dimensions, or every other element of a 1-d tensor.
Tensor input(const Shape& shape, Layout layout, double low = -1, double high = 1) {
    auto values_in = [&](const Shape& s) { return kael::rand(s, DType::F64) * (high - low) + low; };
    Tensor t = [&] {
        if (layout == Layout::Contiguous || shape.empty()) {
            return values_in(shape);
        }
        if (shape.size() == 1) {
            return values_in({shape[0] * 2}).slice(0, 0, std::nullopt, 2);
        }
        Shape swapped = shape;
        std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
        return values_in(swapped).transpose(-1, -2);
    }();
    t.requires_grad_();
    return t;
}

void expect_gradients(const Function& f, const Inputs& inputs, const std::string& what) {
    const kael::autograd::GradcheckResult result = gradcheck(f, inputs);
    EXPECT_TRUE(result.ok) << what << ": " << result.report;
}

// gradcheck on both layouts; `shapes` are the inputs' shapes, which may broadcast.
void check(const Function& f, const std::vector<Shape>& shapes, double low = -1, double high = 1) {
    for (const Layout layout : {Layout::Contiguous, Layout::Strided}) {
        kael::manual_seed(layout == Layout::Contiguous ? 7 : 8);
        Inputs inputs;
        for (const Shape& shape : shapes) {
            inputs.push_back(input(shape, layout, low, high));
        }
        expect_gradients(f, inputs, layout == Layout::Contiguous ? "contiguous" : "strided");
    }
}

// Second derivatives: gradcheck of x -> d<f(x), v>/dx with a fixed random v.
void check_second(const Function& f, const std::vector<Shape>& shapes, double low = -1, double high = 1) {
    kael::manual_seed(9);
    Inputs inputs;
    for (const Shape& shape : shapes) {
        inputs.push_back(input(shape, Layout::Contiguous, low, high));
    }
    const Tensor v = kael::randn(f(inputs).shape(), DType::F64);
    const Function first_derivative = [&](const Inputs& in) {
        const kael::autograd::GradList g = kael::autograd::grad({f(in)}, in, {v}, std::nullopt, true, true);
        std::vector<Tensor> parts;
        for (std::size_t i = 0; i < g.size(); ++i) {
            parts.push_back(g[i] ? g[i]->reshape({-1}) : kael::zeros({in[i].numel()}, DType::F64));
        }
        return kael::cat(parts);
    };
    expect_gradients(first_derivative, inputs, "second derivative");
}

// ---- element-wise functions of one tensor ------------------------------------------------------------

TEST(GradcheckUnary, SmoothFunctions) {
    const std::vector<std::pair<const char*, Function>> cases{
        {"neg", [](const Inputs& x) { return -x[0]; }},
        {"exp", [](const Inputs& x) { return kael::exp(x[0]); }},
        {"expm1", [](const Inputs& x) { return kael::expm1(x[0]); }},
        {"sin", [](const Inputs& x) { return kael::sin(x[0]); }},
        {"cos", [](const Inputs& x) { return kael::cos(x[0]); }},
        {"tanh", [](const Inputs& x) { return kael::tanh(x[0]); }},
        {"sigmoid", [](const Inputs& x) { return kael::sigmoid(x[0]); }},
        {"silu", [](const Inputs& x) { return kael::silu(x[0]); }},
        {"gelu", [](const Inputs& x) { return kael::gelu(x[0]); }},
        {"gelu tanh", [](const Inputs& x) { return kael::gelu(x[0], "tanh"); }},
        {"pow 2", [](const Inputs& x) { return kael::pow(x[0], 2); }},
        {"pow 3", [](const Inputs& x) { return kael::pow(x[0], 3); }},
        {"abs", [](const Inputs& x) { return kael::abs(x[0]); }},
        {"relu", [](const Inputs& x) { return kael::relu(x[0]); }},
        {"clamp", [](const Inputs& x) { return kael::clamp(x[0], -0.5, 0.5); }},
        {"clamp min", [](const Inputs& x) { return kael::clamp(x[0], 0.1); }},
    };
    for (const auto& [name, f] : cases) {
        SCOPED_TRACE(name);
        check(f, {{3, 4}});
    }
}

TEST(GradcheckUnary, FunctionsOfPositiveInputs) {
    const std::vector<std::pair<const char*, Function>> cases{
        {"log", [](const Inputs& x) { return kael::log(x[0]); }},
        {"log1p", [](const Inputs& x) { return kael::log1p(x[0]); }},
        {"sqrt", [](const Inputs& x) { return kael::sqrt(x[0]); }},
        {"rsqrt", [](const Inputs& x) { return kael::rsqrt(x[0]); }},
        {"pow 0.5", [](const Inputs& x) { return kael::pow(x[0], 0.5); }},
        {"pow -1.5", [](const Inputs& x) { return kael::pow(x[0], -1.5); }},
        {"2 ^ x", [](const Inputs& x) { return kael::pow(2.0, x[0]); }},
        {"3 / x", [](const Inputs& x) { return kael::div(3.0, x[0]); }},
    };
    for (const auto& [name, f] : cases) {
        SCOPED_TRACE(name);
        check(f, {{2, 3}}, 0.5, 2);
    }
}

TEST(GradcheckUnary, StepFunctionsHaveZeroGradient) {
    for (const auto& f : std::vector<Function>{[](const Inputs& x) { return kael::floor(x[0]); },
                                               [](const Inputs& x) { return kael::round(x[0]); },
                                               [](const Inputs& x) { return kael::sign(x[0]); }}) {
        Tensor x = input({4}, Layout::Contiguous, 0.1, 0.4);
        f({x}).sum().backward();
        EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, 0, 0, 0}));
    }
}

TEST(GradcheckUnary, GeluRefusesAThirdDerivative) {
    Tensor x = kael::from_vector<double>({0.3, -1.2});
    x.requires_grad_();
    const Tensor first = *kael::autograd::grad({kael::gelu(x).sum()}, {x}, {}, std::nullopt, true)[0];
    const Tensor second = *kael::autograd::grad({first.sum()}, {x}, {}, std::nullopt, false)[0];  // fine
    EXPECT_EQ(second.numel(), 2);
    const Tensor again = *kael::autograd::grad({kael::gelu(x).sum()}, {x}, {}, std::nullopt, true)[0];
    EXPECT_THROW((void)kael::autograd::grad({again.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true), kael::Error);
}

TEST(GradcheckUnary, SubgradientsAtTheKinks) {
    // PyTorch: abs'(0) = 0, relu'(0) = 0, clamp passes the gradient at the bounds themselves.
    Tensor x = kael::from_vector<double>({0.0, -1.0, 0.5, 1.0});
    x.requires_grad_();
    kael::abs(x).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, -1, 1, 1}));
    x.set_grad(std::nullopt);
    kael::relu(x).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, 0, 1, 1}));
    x.set_grad(std::nullopt);
    kael::clamp(x, -1.0, 0.5).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{1, 1, 1, 0}));
}

TEST(GradcheckUnary, SecondDerivatives) {
    for (const auto& f : std::vector<Function>{
             [](const Inputs& x) { return kael::exp(x[0]); }, [](const Inputs& x) { return kael::tanh(x[0]); },
             [](const Inputs& x) { return kael::sigmoid(x[0]); }, [](const Inputs& x) { return kael::gelu(x[0]); },
             [](const Inputs& x) { return kael::gelu(x[0], "tanh"); }, [](const Inputs& x) { return kael::silu(x[0]); },
             [](const Inputs& x) { return kael::sin(x[0]); }, [](const Inputs& x) { return kael::pow(x[0], 3); }}) {
        check_second(f, {{5}});
    }
    check_second([](const Inputs& x) { return kael::log(x[0]) + kael::sqrt(x[0]) + kael::rsqrt(x[0]); }, {{5}}, 0.5, 2);
}

// ---- two operands, with broadcasting ------------------------------------------------------------------

const std::vector<std::vector<Shape>> kBroadcastShapes{{{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{3, 1}, {1, 4}}, {{2, 3, 4}, {3, 1}}, {{}, {2, 3}}};

TEST(GradcheckBinary, ArithmeticWithBroadcasting) {
    const std::vector<std::pair<const char*, Function>> cases{
        {"add", [](const Inputs& x) { return x[0] + x[1]; }},
        {"add alpha", [](const Inputs& x) { return kael::add(x[0], x[1], 2.5); }},
        {"sub", [](const Inputs& x) { return x[0] - x[1]; }},
        {"sub alpha", [](const Inputs& x) { return kael::sub(x[0], x[1], -1.5); }},
        {"mul", [](const Inputs& x) { return x[0] * x[1]; }},
        {"maximum", [](const Inputs& x) { return kael::maximum(x[0], x[1]); }},
        {"minimum", [](const Inputs& x) { return kael::minimum(x[0], x[1]); }},
        {"atan2", [](const Inputs& x) { return kael::atan2(x[0], x[1]); }},
        {"where", [](const Inputs& x) { return kael::where(x[0] > x[1], x[0], x[1] * 2); }},
    };
    for (const auto& [name, f] : cases) {
        for (const auto& shapes : kBroadcastShapes) {
            SCOPED_TRACE(std::string(name) + " " + kael::to_string(shapes[0]) + " " + kael::to_string(shapes[1]));
            check(f, shapes);
        }
    }
}

TEST(GradcheckBinary, DivisionPowersAndRemainderOnPositiveInputs) {
    const std::vector<std::pair<const char*, Function>> cases{
        {"div", [](const Inputs& x) { return x[0] / x[1]; }},
        {"pow", [](const Inputs& x) { return kael::pow(x[0], x[1]); }},
        {"remainder", [](const Inputs& x) { return kael::remainder(x[0] * 3, x[1]); }},
    };
    for (const auto& [name, f] : cases) {
        for (const auto& shapes : kBroadcastShapes) {
            SCOPED_TRACE(std::string(name) + " " + kael::to_string(shapes[0]) + " " + kael::to_string(shapes[1]));
            check(f, shapes, 0.5, 2);
        }
    }
}

TEST(GradcheckBinary, ScalarOperands) {
    check([](const Inputs& x) { return 2.0 - x[0] * 3.0 + x[0] / 4.0 - kael::sub(1.0, x[0], 2.0); }, {{2, 3}});
}

TEST(GradcheckBinary, TiesSplitTheGradientAsPyTorchDoes) {
    Tensor a = kael::from_vector<double>({1, 2, 3});
    Tensor b = kael::from_vector<double>({1, 5, 0});
    a.requires_grad_();
    b.requires_grad_();
    kael::maximum(a, b).sum().backward();
    EXPECT_EQ(values<double>(*a.grad()), (std::vector<double>{0.5, 0, 1}));
    EXPECT_EQ(values<double>(*b.grad()), (std::vector<double>{0.5, 1, 0}));
}

TEST(GradcheckBinary, PowAtZeroFollowsPyTorch) {
    // d/da 0^2 = 0 and d/db 0^b = 0 for b >= 0 (instead of 0 * log 0 = nan).
    Tensor a = kael::from_vector<double>({0.0, 0.0});
    Tensor b = kael::from_vector<double>({2.0, 0.0});
    a.requires_grad_();
    b.requires_grad_();
    kael::pow(a, b).sum().backward();
    EXPECT_EQ(values<double>(*a.grad()), (std::vector<double>{0, 0}));
    EXPECT_EQ(values<double>(*b.grad()), (std::vector<double>{0, 0}));
}

TEST(GradcheckBinary, SecondDerivatives) {
    check_second([](const Inputs& x) { return x[0] * x[1] + x[0] / x[1]; }, {{3}, {3}}, 0.5, 2);
    check_second([](const Inputs& x) { return kael::pow(x[0], x[1]); }, {{3}, {3}}, 0.5, 2);
    check_second([](const Inputs& x) { return kael::where(x[0] > 1, x[0] * x[1], x[1] * x[1]); }, {{4}, {4}}, 0.5, 2);
}

// ---- reductions ----------------------------------------------------------------------------------------

TEST(GradcheckReduce, SumsMeansAndProducts) {
    const std::vector<std::pair<const char*, Function>> cases{
        {"sum", [](const Inputs& x) { return kael::sum(x[0]); }},
        {"sum dims", [](const Inputs& x) { return kael::sum(x[0], {0, 2}); }},
        {"sum keepdim", [](const Inputs& x) { return kael::sum(x[0], {-1}, true); }},
        {"mean", [](const Inputs& x) { return kael::mean(x[0]); }},
        {"mean dims", [](const Inputs& x) { return kael::mean(x[0], {1}); }},
        {"mean keepdim", [](const Inputs& x) { return kael::mean(x[0], {0, 1}, true); }},
        {"prod", [](const Inputs& x) { return kael::prod(x[0]); }},
        {"prod dim", [](const Inputs& x) { return kael::prod(x[0], {1}); }},
        {"var", [](const Inputs& x) { return kael::var(x[0]); }},
        {"var dims", [](const Inputs& x) { return kael::var(x[0], {2}, 0, true); }},
        {"std", [](const Inputs& x) { return kael::std(x[0], {1}); }},
        {"logsumexp", [](const Inputs& x) { return kael::logsumexp(x[0], {1}); }},
        {"logsumexp keepdim", [](const Inputs& x) { return kael::logsumexp(x[0], {0, 2}, true); }},
        {"cumsum", [](const Inputs& x) { return kael::cumsum(x[0], 1); }},
        {"amax", [](const Inputs& x) { return kael::amax(x[0], {1}); }},
        {"amin", [](const Inputs& x) { return kael::amin(x[0], {0, 2}, true); }},
        {"max", [](const Inputs& x) { return kael::max(x[0]); }},
        {"min dim", [](const Inputs& x) { return kael::min(x[0], 2).values; }},
        {"max dim keepdim", [](const Inputs& x) { return kael::max(x[0], 1, true).values; }},
    };
    for (const auto& [name, f] : cases) {
        SCOPED_TRACE(name);
        check(f, {{2, 3, 4}}, 0.5, 2);
    }
}

TEST(GradcheckReduce, ProductWithZerosAsPyTorch) {
    Tensor x = kael::from_vector<double>({2, 0, 3, 4, 0, 0, 5, 6, 7}, {3, 3});
    x.requires_grad_();
    kael::prod(x, {1}).sum().backward();
    // row 0 has one zero: the zero gets 2 * 3, the rest 0; row 1 has two zeros: all 0.
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, 6, 0, 0, 0, 0, 42, 35, 30}));
}

TEST(GradcheckReduce, ExtremesShareTiesEvenlyButIndexedMaxPicksOne) {
    Tensor x = kael::from_vector<double>({1, 3, 3, 2});
    x.requires_grad_();
    kael::max(x).backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, 0.5, 0.5, 0}));
    x.set_grad(std::nullopt);
    kael::max(x, 0).values.backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, 1, 0, 0}));  // the first maximum
}

TEST(GradcheckReduce, SecondDerivatives) {
    check_second([](const Inputs& x) { return kael::var(x[0], {1}); }, {{2, 3}});
    check_second([](const Inputs& x) { return kael::logsumexp(x[0], {0}); }, {{3, 2}});
    check_second([](const Inputs& x) { return kael::prod(x[0], {1}); }, {{2, 3}}, 0.5, 2);
}

// ---- views ---------------------------------------------------------------------------------------------

TEST(GradcheckViews, EveryView) {
    const std::vector<std::pair<const char*, Function>> cases{
        {"transpose", [](const Inputs& x) { return x[0].transpose(0, 2) * 1.0; }},
        {"permute", [](const Inputs& x) { return x[0].permute({2, 0, 1}) * 1.0; }},
        {"T", [](const Inputs& x) { return x[0].T() * 1.0; }},
        {"mT", [](const Inputs& x) { return x[0].mT() * 1.0; }},
        {"slice with step", [](const Inputs& x) { return x[0].slice(2, 1, std::nullopt, 2) * 1.0; }},
        {"select", [](const Inputs& x) { return x[0].select(1, -1) * 1.0; }},
        {"narrow", [](const Inputs& x) { return x[0].narrow(0, 1, 1) * 1.0; }},
        {"expand", [](const Inputs& x) { return x[0].unsqueeze(0).expand({2, 2, 3, 4}) * 1.0; }},
        {"squeeze unsqueeze", [](const Inputs& x) { return x[0].unsqueeze(1).squeeze(1).unsqueeze(-1).squeeze() * 1.0; }},
        {"view", [](const Inputs& x) { return x[0].reshape({6, 4}).view({4, 6}) * 1.0; }},
        {"reshape", [](const Inputs& x) { return x[0].reshape({-1}) * 1.0; }},
        {"flatten unflatten", [](const Inputs& x) { return x[0].flatten(1).unflatten(1, {4, 3}) * 1.0; }},
        {"split", [](const Inputs& x) { return kael::split(x[0], 3, 2)[1] * 2.0 + kael::split(x[0], 3, 2)[0]; }},
        {"chunk", [](const Inputs& x) { return kael::chunk(x[0], 2, 1)[0] * 1.0; }},
        {"as_strided", [](const Inputs& x) { return x[0].contiguous().as_strided({3, 2}, {1, 4}, 2) * 1.0; }},
        {"view of a view", [](const Inputs& x) { return x[0].transpose(0, 1).select(0, 2).slice(1, 1) * 1.0; }},
    };
    for (const auto& [name, f] : cases) {
        SCOPED_TRACE(name);
        check(f, {{2, 3, 4}});
    }
}

TEST(GradcheckViews, ViewOfAnExpandedTensorGivesTheGradientToThePositionsUsed) {
    // PyTorch: x.expand(3, 2)[0] sends its gradient to row 0 only, which then sums into x.
    Tensor x = kael::from_vector<double>({1, 2}, {1, 2});
    x.requires_grad_();
    (x.expand({3, 2}).select(0, 0) * kael::from_vector<double>({5, 7})).sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{5, 7}));
}

TEST(GradcheckViews, SecondDerivativesThroughSelectAndSlice) {
    check_second([](const Inputs& x) { return x[0].select(0, 1) * x[0].slice(0, 0, 1).squeeze(0); }, {{2, 3}});
}

// ---- matrix products -----------------------------------------------------------------------------------

TEST(GradcheckLinalg, MatmulInEveryRankCombination) {
    const std::vector<std::vector<Shape>> shapes{
        {{4}, {4}},       {{4}, {4, 3}},          {{2, 4}, {4}},       {{2, 4}, {4, 3}}, {{5, 2, 4}, {4, 3}},
        {{2, 4}, {5, 4, 3}}, {{2, 1, 2, 4}, {3, 4, 2}}, {{4}, {2, 4, 3}}, {{2, 3, 4}, {4}},
    };
    for (const auto& pair : shapes) {
        SCOPED_TRACE(kael::to_string(pair[0]) + " @ " + kael::to_string(pair[1]));
        check([](const Inputs& x) { return kael::matmul(x[0], x[1]); }, pair);
    }
}

TEST(GradcheckLinalg, NamedProducts) {
    check([](const Inputs& x) { return kael::mm(x[0], x[1]); }, {{3, 4}, {4, 2}});
    check([](const Inputs& x) { return kael::bmm(x[0], x[1]); }, {{2, 3, 4}, {2, 4, 2}});
    check([](const Inputs& x) { return kael::dot(x[0], x[1]); }, {{5}, {5}});
    check([](const Inputs& x) { return kael::outer(x[0], x[1]); }, {{3}, {4}});
    check_second([](const Inputs& x) { return kael::tanh(kael::matmul(x[0], x[1])); }, {{2, 3}, {3, 2}});
}

// ---- neural network functions --------------------------------------------------------------------------

TEST(GradcheckNn, SoftmaxAndLogSoftmax) {
    for (const std::int64_t dim : {0, 1, -1}) {
        SCOPED_TRACE(dim);
        check([dim](const Inputs& x) { return kael::softmax(x[0], dim); }, {{3, 4, 2}});
        check([dim](const Inputs& x) { return kael::log_softmax(x[0], dim); }, {{3, 4, 2}});
    }
    check_second([](const Inputs& x) { return kael::softmax(x[0], 1); }, {{2, 3}});
    check_second([](const Inputs& x) { return kael::log_softmax(x[0], 0); }, {{3, 2}});
}

TEST(GradcheckNn, LossesInEveryReduction) {
    const Tensor target = kael::from_vector<std::int64_t>({2, 0, 1, 2});
    const Tensor spatial_target = kael::from_vector<std::int64_t>({0, 2, 1, 1, 0, 2}, {2, 3});
    for (const kael::Reduction reduction : {kael::Reduction::None, kael::Reduction::Mean, kael::Reduction::Sum}) {
        SCOPED_TRACE(static_cast<int>(reduction));
        check([&](const Inputs& x) { return kael::cross_entropy(x[0], target, reduction); }, {{4, 3}});
        check([&](const Inputs& x) { return kael::cross_entropy(x[0], target, reduction, 0); }, {{4, 3}});
        check([&](const Inputs& x) { return kael::nll_loss(kael::log_softmax(x[0], 1), spatial_target, reduction); },
              {{2, 3, 3}});
        check([&](const Inputs& x) { return kael::nll_loss(x[0], target.select(0, 0), reduction); }, {{3}});
        check([&](const Inputs& x) { return kael::mse_loss(x[0], x[1], reduction); }, {{3, 2}, {3, 2}});
    }
    check_second([&](const Inputs& x) { return kael::cross_entropy(x[0], target); }, {{4, 3}});
}

TEST(GradcheckNn, CrossEntropyGradientIsSoftmaxMinusOneHot) {
    Tensor logits = kael::from_vector<double>({1, 2, 3, 0, 0, 0}, {2, 3});
    logits.requires_grad_();
    kael::cross_entropy(logits, kael::from_vector<std::int64_t>({2, -100})).backward();
    const Tensor p = kael::softmax(logits.detach(), 1);
    const std::vector<double> got = values<double>(*logits.grad());
    const std::vector<double> probabilities = values<double>(p);
    // mean over the one counted row; the ignored row gets nothing
    EXPECT_NEAR(got[0], probabilities[0], 1e-12);
    EXPECT_NEAR(got[2], probabilities[2] - 1, 1e-12);
    EXPECT_EQ(got[3], 0.0);
    EXPECT_EQ(got[5], 0.0);
}

TEST(GradcheckNn, LayerNormInputWeightAndBias) {
    check([](const Inputs& x) { return kael::layer_norm(x[0], {4}, x[1], x[2]); }, {{3, 4}, {4}, {4}});
    check([](const Inputs& x) { return kael::layer_norm(x[0], {3, 4}, x[1], x[2]); }, {{2, 3, 4}, {3, 4}, {3, 4}});
    check([](const Inputs& x) { return kael::layer_norm(x[0], {4}); }, {{2, 4}});
    check_second([](const Inputs& x) { return kael::layer_norm(x[0], {3}, x[1], x[2]); }, {{2, 3}, {3}, {3}});
}

TEST(GradcheckNn, EmbeddingAccumulatesRepeatedRows) {
    Tensor weight = kael::zeros({4, 2}, DType::F64);
    weight.requires_grad_();
    const Tensor indices = kael::from_vector<std::int64_t>({1, 3, 1, 1}, {2, 2});
    kael::embedding(weight, indices).sum().backward();
    EXPECT_EQ(values<double>(*weight.grad()), (std::vector<double>{0, 0, 3, 3, 0, 0, 1, 1}));
    check([&](const Inputs& x) { return kael::embedding(x[0], indices); }, {{4, 2}});
}

TEST(GradcheckNn, EmbeddingGradientIsTheSameWhetherTheBackwardIsRecordedOrNot) {
    // Without create_graph the rows are added in place into fresh zeros; with it, through
    // scatter_add, which records. Both add the repeated rows in the same order.
    const Tensor indices = kael::from_vector<std::int64_t>({5, 0, 5, 2, 5, 0}, {2, 3});
    Tensor weight = kael::randn({6, 4}).requires_grad_();
    const Tensor out = kael::embedding(weight, indices);
    const Tensor upstream = kael::randn(out.shape());
    const Tensor plain = *kael::autograd::grad({out}, {weight}, {upstream}, /*retain_graph=*/true)[0];
    const Tensor recorded = *kael::autograd::grad({out}, {weight}, {upstream}, true, /*create_graph=*/true)[0];
    EXPECT_EQ(values<float>(plain), values<float>(recorded));
}

TEST(GradcheckLinalg, ABatchTimesOneMatrixSumsTheBatchInsideOneProduct) {
    // [2, 3, 4, 5] x [5, 2]: the weight's gradient is every row of every batch at once.
    const Tensor x = kael::randn({2, 3, 4, 5}, DType::F64);
    Tensor w = kael::randn({5, 2}, DType::F64).requires_grad_();
    const Tensor upstream = kael::randn({2, 3, 4, 2}, DType::F64);
    kael::matmul(x, w).backward(upstream);
    const Tensor expected = kael::matmul(x.reshape({24, 5}).mT(), upstream.reshape({24, 2}));
    EXPECT_TRUE(kael::allclose(*w.grad(), expected, 1e-12, 1e-12));
    // A weight stored transposed (a Linear's x @ W^T) gets its gradient in its own layout.
    Tensor stored = kael::randn({2, 5}, DType::F64).requires_grad_();
    kael::matmul(x, stored.mT()).backward(upstream);
    EXPECT_TRUE(stored.grad()->is_contiguous());
    EXPECT_TRUE(kael::allclose(*stored.grad(), expected.mT(), 1e-12, 1e-12));
}

TEST(GradcheckNn, DropoutScalesTheKeptGradient) {
    kael::manual_seed(11);
    Tensor x = kael::ones({1000}, DType::F64);
    x.requires_grad_();
    const Tensor y = kael::dropout(x, 0.25);
    y.sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), values<double>(y));  // 1 / 0.75 where kept, 0 where dropped
    EXPECT_TRUE(kael::dropout(x, 0.25, false).is_same(x));
}

TEST(GradcheckNn, DropoutOfEverythingStaysInTheGraph) {
    // p = 1 multiplies by 0, as PyTorch does: the gradient is 0, not missing.
    Tensor x = kael::ones({3}, DType::F64);
    x.requires_grad_();
    const Tensor y = kael::dropout(x, 1.0);
    ASSERT_TRUE(y.requires_grad());
    y.sum().backward();
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{0, 0, 0}));
    EXPECT_TRUE(kael::dropout(x, 0.0).is_same(x));  // nothing to drop: the input itself, as in PyTorch
}

TEST(GradcheckReduce, CumsumGradientIsExactAtTheEndOfALongFloat32Row) {
    // The gradient at i is the sum of the output gradients from i to the end. Computed as
    // total - running sum + own, the last positions lose most of their float32 digits.
    constexpr std::int64_t n = 100000;
    kael::manual_seed(5);
    Tensor x = kael::rand({n});
    x.requires_grad_();
    const Tensor weights = kael::rand({n});
    (kael::cumsum(x, 0) * weights).sum().backward();
    const std::vector<float> w = values<float>(weights);
    const std::vector<float> grad = values<float>(*x.grad());
    double expected = 0;
    for (std::int64_t i = n - 1; i >= n - 100; --i) {
        expected += w[static_cast<std::size_t>(i)];
        EXPECT_NEAR(grad[static_cast<std::size_t>(i)], expected, 1e-5 * expected) << "position " << i;
    }
}

// ---- indexing, masking, joining ------------------------------------------------------------------------

TEST(GradcheckIndexing, GatherScatterSelectMask) {
    const Tensor index = kael::from_vector<std::int64_t>({0, 2, 2, 1}, {2, 2});
    const Tensor rows = kael::from_vector<std::int64_t>({2, 0, 2});
    const Tensor mask = kael::from_vector({true, false, false, true}, {1, 4});
    check([&](const Inputs& x) { return kael::index_select(x[0], 0, rows); }, {{3, 4}});
    check([&](const Inputs& x) { return kael::index_select(x[0], 1, rows); }, {{3, 4}});
    check([&](const Inputs& x) { return kael::gather(x[0], 1, index); }, {{2, 3}});
    check([&](const Inputs& x) { return kael::scatter_add(x[0], 1, index, x[1]); }, {{2, 3}, {2, 3}});
    check([&](const Inputs& x) { return kael::masked_fill(x[0], mask, 2.0); }, {{3, 4}});
    check([&](const Inputs& x) { return kael::tril(x[0], 0) + kael::triu(x[0], 1) * 3.0; }, {{3, 4}});
    check_second([&](const Inputs& x) { return kael::gather(x[0] * x[0], 1, index); }, {{2, 3}});
}

TEST(GradcheckIndexing, CatAndStack) {
    check([](const Inputs& x) { return kael::cat({x[0], x[1]}, 1); }, {{2, 3}, {2, 1}});
    check([](const Inputs& x) { return kael::cat({x[0], x[1], x[0]}, 0); }, {{2, 3}, {1, 3}});
    check([](const Inputs& x) { return kael::stack({x[0], x[1]}, 1); }, {{2, 3}, {2, 3}});
    Tensor empty = kael::zeros({0}, DType::F64);
    empty.requires_grad_();
    Tensor x = kael::ones({2, 2}, DType::F64);
    x.requires_grad_();
    kael::cat({empty, x}).sum().backward();  // a skipped legacy empty tensor gets an empty gradient
    EXPECT_EQ(empty.grad()->shape(), Shape{0});
    EXPECT_EQ(values<double>(*x.grad()), (std::vector<double>{1, 1, 1, 1}));
}

// ---- conversions and in-place operations in the graph -----------------------------------------------

TEST(GradcheckInplace, RebasedHistoryHasTheRightGradient) {
    check([](const Inputs& x) {
        Tensor y = x[0] * 2;
        y.add_(x[1]);
        y.mul_(x[0]);
        y.div_(kael::exp(x[1]));
        y.clamp_(-0.5, 0.5);
        return y;
    }, {{3}, {3}});
    check([](const Inputs& x) {
        Tensor y = x[0].clone();
        y.neg_();
        y.masked_fill_(x[0] > 0.5, 0.0);
        return y;
    }, {{4}});
}

}  // namespace
