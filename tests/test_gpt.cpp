// The GPT of the nn layer (chapter 11): shapes and names, the tied head, GPT-2's
// initialisation, causality, train and eval, and a few steps that learn.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::nn::GPT;
using kael::nn::GPTConfig;

GPTConfig tiny(bool fused = true) {
    return {.vocab_size = 11, .block_size = 8, .n_layer = 2, .n_head = 2, .n_embd = 16, .dropout = 0.0,
            .layer_norm_epsilon = 1e-5, .fused_attention = fused};
}

TEST(Gpt, LogitsHaveOneRowPerPositionAndToken) {
    kael::manual_seed(1);
    GPT model(tiny());
    const Tensor logits = model(kael::randint(0, 11, {3, 5}));
    EXPECT_EQ(logits.shape(), (kael::Shape{3, 5, 11}));
    EXPECT_THROW((void)model(kael::randint(0, 11, {1, 9})), kael::ValueError);  // longer than block_size
    EXPECT_NO_THROW((void)model(kael::randint(0, 11, {1, 8})));                  // exactly block_size
    EXPECT_THROW((void)model(kael::randint(0, 11, {5})), kael::ValueError);
}

TEST(Gpt, ParametersHaveGpt2sNamesAndTheHeadIsTheTokenEmbedding) {
    GPT model(tiny());
    const auto named = model.named_parameters();
    EXPECT_EQ(named.front().first, "wte.weight");
    bool found = false;
    for (const auto& [name, tensor] : named) {
        found = found || name == "h.1.attn.c_attn.weight";
    }
    EXPECT_TRUE(found);
    // Tied: no separate head matrix. C = 16, V = 11, T = 8, L = 2:
    // wte V C + wpe T C + per block (2 LayerNorms 4C, c_attn 3C^2 + 3C, c_proj C^2 + C,
    // c_fc 4C^2 + 4C, mlp c_proj 4C^2 + C) + ln_f 2C.
    const std::int64_t c = 16;
    const std::int64_t block = 4 * c + (3 * c * c + 3 * c) + (c * c + c) + (4 * c * c + 4 * c) + (4 * c * c + c);
    EXPECT_EQ(model.num_parameters(), 11 * c + 8 * c + 2 * block + 2 * c);
}

TEST(Gpt, InitialisationIsGpt2sWithScaledResidualProjections) {
    kael::manual_seed(2);
    GPTConfig config = tiny();
    config.n_embd = 64;
    config.n_layer = 8;
    config.vocab_size = 500;
    GPT model(config);
    const auto std_of = [](const Tensor& t) { return std::sqrt(kael::var(t).item()); };
    const auto& block = dynamic_cast<kael::nn::Block&>(*(*model.h)[0]);
    EXPECT_NEAR(std_of(model.wte->weight), 0.02, 0.001);
    EXPECT_NEAR(std_of(block.attn->c_attn->weight), 0.02, 0.001);
    EXPECT_NEAR(std_of(block.mlp->c_proj->weight), 0.02 / std::sqrt(16.0), 0.0005);
    EXPECT_EQ(kael::amax(kael::abs(*block.attn->c_attn->bias)).item(), 0.0);
    EXPECT_EQ(kael::amin(*block.ln_1->weight).item(), 1.0);
}

TEST(Gpt, APositionsLogitsDependOnlyOnItsPast) {
    kael::manual_seed(3);
    GPT model(tiny());
    model.eval();
    Tensor tokens = kael::from_vector<std::int64_t>({1, 2, 3, 4, 5, 6}, {1, 6});
    const Tensor before = model(tokens);
    tokens.select(1, 4).fill_(9);  // change token 4
    const Tensor after = model(tokens);
    EXPECT_TRUE(kael::allclose(before.narrow(1, 0, 4), after.narrow(1, 0, 4), 1e-6, 1e-6));
    EXPECT_FALSE(kael::allclose(before.narrow(1, 4, 2), after.narrow(1, 4, 2)));
}

TEST(Gpt, FusedAndComposedAttentionGiveTheSameModel) {
    kael::manual_seed(4);
    GPT fused(tiny(true));
    kael::manual_seed(4);
    GPT composed(tiny(false));
    const Tensor tokens = kael::randint(0, 11, {2, 7});
    EXPECT_TRUE(kael::allclose(fused(tokens), composed(tokens), 1e-5, 1e-5));
}

TEST(Gpt, DropoutActsInTrainingOnly) {
    kael::manual_seed(5);
    GPTConfig config = tiny();
    config.dropout = 0.5;
    GPT model(config);
    const Tensor tokens = kael::randint(0, 11, {2, 6});
    model.eval();
    EXPECT_TRUE(kael::allclose(model(tokens), model(tokens), 0, 0));
    model.train();
    EXPECT_FALSE(kael::allclose(model(tokens), model(tokens)));
}

TEST(Gpt, TrainingLearnsARepeatedSequenceAndTheTiedHeadGetsBothGradients) {
    kael::manual_seed(6);
    GPT model(tiny());
    kael::optim::AdamW optimizer(model.parameters(), {.lr = 1e-2});
    const Tensor data = kael::from_vector<std::int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8}, {1, 9});
    const Tensor inputs = data.narrow(1, 0, 8);
    const Tensor targets = data.narrow(1, 1, 8);
    double first = 0;
    double last = 0;
    for (int step = 0; step < 60; ++step) {
        const Tensor logits = model(inputs);
        const Tensor loss = kael::cross_entropy(logits.view({8, 11}), targets.reshape({8}));
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        (step == 0 ? first : last) = loss.item();
    }
    EXPECT_LT(last, 0.1 * first);
    // The token embedding got gradient from the lookup and from the head: both add up.
    EXPECT_TRUE(model.wte->weight.grad().has_value());
}

}  // namespace
