// scaled_dot_product_attention (chapter 11): the fused operation against the composition,
// gradients against finite differences, the causal rule, stability, and bad operands.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::autograd::gradcheck;

struct Operands {
    Tensor q, k, v;
};

Operands random_operands(std::int64_t queries, std::int64_t keys, DType dtype = DType::F32) {
    return {kael::randn({2, 3, queries, 8}, dtype), kael::randn({2, 3, keys, 8}, dtype),
            kael::randn({2, 3, keys, 5}, dtype)};
}

std::vector<Tensor> gradients(const Tensor& q, const Tensor& k, const Tensor& v, bool fused, bool causal) {
    Tensor lq = q.detach().clone().requires_grad_();
    Tensor lk = k.detach().clone().requires_grad_();
    Tensor lv = v.detach().clone().requires_grad_();
    const Tensor out = fused ? kael::scaled_dot_product_attention(lq, lk, lv, causal)
                             : kael::nn::attention_composed(lq, lk, lv, causal);
    kael::manual_seed(3);
    kael::sum(kael::mul(out, kael::randn(out.shape(), out.dtype()).to(out.device()))).backward();
    return {out.detach(), *lq.grad(), *lk.grad(), *lv.grad()};
}

TEST(Attention, FusedMatchesTheCompositionInValuesAndGradients) {
    kael::manual_seed(1);
    for (const bool causal : {false, true}) {
        for (const auto& [queries, keys] : std::vector<std::pair<std::int64_t, std::int64_t>>{{7, 7}, {1, 9}, {4, 11}}) {
            const Operands x = random_operands(queries, keys);
            const std::vector<Tensor> fused = gradients(x.q, x.k, x.v, true, causal);
            const std::vector<Tensor> composed = gradients(x.q, x.k, x.v, false, causal);
            for (std::size_t i = 0; i < fused.size(); ++i) {
                EXPECT_TRUE(kael::allclose(fused[i], composed[i], 1e-4, 1e-5))
                    << "causal " << causal << " T " << queries << " S " << keys << " tensor " << i;
            }
        }
    }
}

TEST(Attention, GradcheckPassesForTheFusedOperationAndTheComposition) {
    kael::manual_seed(2);
    for (const bool causal : {false, true}) {
        const Tensor q = kael::randn({2, 4, 3}, DType::F64).requires_grad_();
        const Tensor k = kael::randn({2, 5, 3}, DType::F64).requires_grad_();
        const Tensor v = kael::randn({2, 5, 2}, DType::F64).requires_grad_();
        const auto fused = gradcheck(
            [causal](const std::vector<Tensor>& in) {
                return kael::scaled_dot_product_attention(in[0], in[1], in[2], causal, 0.7);
            },
            {q, k, v});
        EXPECT_TRUE(fused.ok) << fused.report;
        const auto composed = gradcheck(
            [causal](const std::vector<Tensor>& in) { return kael::nn::attention_composed(in[0], in[1], in[2], causal); },
            {q, k, v});
        EXPECT_TRUE(composed.ok) << composed.report;
    }
}

TEST(Attention, AQuerySeesNoFutureKeyUnderTheCausalMask) {
    kael::manual_seed(4);
    const Operands x = random_operands(6, 6);
    const Tensor before = kael::scaled_dot_product_attention(x.q, x.k, x.v, true);
    // Change the last key and value: only the last query may see them.
    Tensor k = x.k.clone();
    Tensor v = x.v.clone();
    k.narrow(2, 5, 1).fill_(9);
    v.narrow(2, 5, 1).fill_(-9);
    const Tensor after = kael::scaled_dot_product_attention(x.q, k, v, true);
    EXPECT_TRUE(kael::allclose(before.narrow(2, 0, 5), after.narrow(2, 0, 5), 0, 0));
    EXPECT_FALSE(kael::allclose(before.narrow(2, 5, 1), after.narrow(2, 5, 1)));
    // The first query sees only the first key: its output is that key's value.
    EXPECT_TRUE(kael::allclose(before.narrow(2, 0, 1), x.v.narrow(2, 0, 1), 1e-6, 1e-6));
}

TEST(Attention, HugeScoresDoNotOverflowTheSoftmax) {
    const Tensor q = kael::full({1, 2, 4}, 300.0);
    const Tensor k = kael::full({1, 3, 4}, 300.0);
    const Tensor v = kael::randn({1, 3, 2});
    const Tensor out = kael::scaled_dot_product_attention(q, k, v);  // scores 180000: exp would be inf
    EXPECT_TRUE(kael::all(kael::isfinite(out)).item() != 0);
    EXPECT_TRUE(kael::allclose(out.select(1, 0), kael::mean(v, {1}), 1e-6, 1e-6));  // equal scores: the mean
}

TEST(Attention, TheScaleDefaultsToOneOverTheRootOfTheKeyWidth) {
    kael::manual_seed(5);
    const Operands x = random_operands(3, 4);
    EXPECT_TRUE(kael::allclose(kael::scaled_dot_product_attention(x.q, x.k, x.v),
                               kael::scaled_dot_product_attention(x.q, x.k, x.v, false, 1 / std::sqrt(8.0)), 0, 0));
}

TEST(Attention, BadOperandsAreRefusedWithTheirShapes) {
    const Tensor q = kael::randn({2, 4, 8});
    EXPECT_THROW((void)kael::scaled_dot_product_attention(q, kael::randn({2, 5, 7}), kael::randn({2, 5, 3})),
                 kael::ValueError);  // D differs
    EXPECT_THROW((void)kael::scaled_dot_product_attention(q, kael::randn({2, 5, 8}), kael::randn({2, 6, 3})),
                 kael::ValueError);  // S differs
    EXPECT_THROW((void)kael::scaled_dot_product_attention(q, kael::randn({3, 5, 8}), kael::randn({3, 5, 3})),
                 kael::ValueError);  // batch differs
    EXPECT_THROW((void)kael::scaled_dot_product_attention(q, kael::randn({2, 5, 8}, DType::F64), kael::randn({2, 5, 3})),
                 kael::TypeError);
    EXPECT_THROW((void)kael::scaled_dot_product_attention(kael::ones({2, 4, 8}, DType::I64), kael::ones({2, 5, 8}, DType::I64),
                                                          kael::ones({2, 5, 3}, DType::I64)),
                 kael::TypeError);
    EXPECT_THROW((void)kael::scaled_dot_product_attention(kael::randn({8}), kael::randn({8}), kael::randn({8})),
                 kael::ValueError);
}

TEST(Attention, TheFusedBackwardRefusesToBeDifferentiatedAgain) {
    const Tensor q = kael::randn({3, 4}, DType::F64).requires_grad_();
    const Tensor k = kael::randn({3, 4}, DType::F64).requires_grad_();
    const Tensor v = kael::randn({3, 4}, DType::F64).requires_grad_();
    const Tensor out = kael::sum(kael::scaled_dot_product_attention(q, k, v, true));
    EXPECT_THROW((void)kael::autograd::grad({out}, {q}, {}, std::nullopt, /*create_graph=*/true), kael::Error);
    // The composition is differentiable twice.
    const Tensor composed = kael::sum(kael::nn::attention_composed(q, k, v, true));
    const auto first = kael::autograd::grad({composed}, {q}, {}, std::nullopt, true);
    EXPECT_NO_THROW((void)kael::autograd::grad({kael::sum(*first[0])}, {k}));
}

TEST(CudaAttention, TheFusedOperationRunsOnTheDeviceAsOnTheHost) {
    if (!kael::cuda_is_available()) {
        GTEST_SKIP() << "no CUDA device";
    }
    kael::manual_seed(7);
    for (const bool causal : {false, true}) {
        const Operands x = random_operands(5, 7);
        const std::vector<Tensor> host = gradients(x.q, x.k, x.v, true, causal);
        const std::vector<Tensor> device = gradients(x.q.cuda(), x.k.cuda(), x.v.cuda(), true, causal);
        for (std::size_t i = 0; i < host.size(); ++i) {
            EXPECT_EQ(device[i].device(), kael::Device::CUDA);
            EXPECT_TRUE(kael::allclose(device[i].cpu(), host[i], 1e-4, 1e-5)) << "causal " << causal << " tensor " << i;
        }
    }
}

}  // namespace
