// gradcheck itself: it must pass a correct gradient and catch a wrong one.
#include <gtest/gtest.h>

#include "helpers.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::autograd::gradcheck;

Tensor leaf(const kael::Shape& shape) {
    Tensor t = kael::randn(shape, DType::F64);
    t.requires_grad_();
    return t;
}

TEST(Gradcheck, CorrectGradientPasses) {
    kael::manual_seed(1);
    const auto result = gradcheck([](const std::vector<Tensor>& in) { return kael::tanh(in[0]) * in[1]; },
                                  {leaf({2, 3}), leaf({3})});
    EXPECT_TRUE(result.ok) << result.report;
    EXPECT_EQ(result.compared, 6 * 6 + 6 * 3);  // both Jacobians, every element
    EXPECT_LE(result.worst_excess, 1e-5);
}

TEST(Gradcheck, WrongGradientFailsAndNamesTheWorstElement) {
    kael::manual_seed(2);
    Tensor x = leaf({4});
    // A hook that scales the gradient by 1.1 makes backward disagree with the function.
    x.register_hook([](const Tensor& g) -> std::optional<Tensor> { return g * 1.1; });
    const auto result = gradcheck([](const std::vector<Tensor>& in) { return kael::exp(in[0]); }, {x});
    EXPECT_FALSE(result.ok);
    EXPECT_GT(result.worst_excess, 1e-5);
    EXPECT_NE(result.report.find("input 0"), std::string::npos) << result.report;
    EXPECT_NE(result.report.find("finite differences give"), std::string::npos) << result.report;
}

TEST(Gradcheck, JustInsideAndJustOutsideTheTolerance) {
    // f(x) = x has Jacobian 1; a hook adding delta makes the error exactly delta.
    for (const double delta : {0.5e-5, 2e-5}) {
        Tensor x = kael::zeros({1}, DType::F64);
        x.requires_grad_();
        x.register_hook([delta](const Tensor& g) -> std::optional<Tensor> { return g + delta; });
        kael::autograd::GradcheckOptions options;
        options.rtol = 0;
        const auto result = gradcheck([](const std::vector<Tensor>& in) { return in[0] * 1.0; }, {x}, options);
        EXPECT_EQ(result.ok, delta <= options.atol) << "delta " << delta << ": " << result.report;
    }
}

TEST(Gradcheck, NonContiguousInputsKeepTheirLayout) {
    kael::manual_seed(3);
    Tensor base = kael::randn({3, 2}, DType::F64);
    Tensor x = base.T();  // a non-contiguous leaf
    x.requires_grad_();
    const auto result = gradcheck([](const std::vector<Tensor>& in) { return in[0].matmul(in[0].T()); }, {x});
    EXPECT_TRUE(result.ok) << result.report;
    EXPECT_FALSE(x.is_contiguous());
}

TEST(Gradcheck, RefusesFloat32AndInputsWithoutGrad) {
    Tensor f = kael::ones({2});
    f.requires_grad_();
    EXPECT_THROW((void)gradcheck([](const std::vector<Tensor>& in) { return in[0]; }, {f}), kael::TypeError);
    EXPECT_THROW((void)gradcheck([](const std::vector<Tensor>& in) { return in[0]; }, {kael::ones({2}, DType::F64)}),
                 kael::ValueError);
}

}  // namespace
