// A training step at GPT-2's scale (chapter 12): cross entropy fused into one node, which
// gives the composed losses to the bit; and GPT-2 trained straight from its mapped file,
// whose transposed Conv1D weights the optimizer updates in one pass and whose bytes on disk
// never change.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "helpers.h"
#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Reduction;
using kael::Tensor;
using kael::testing::message_of;
using kael::testing::TempDir;
using kael::testing::values;

// Equal element for element, to the bit.
bool same(const Tensor& a, const Tensor& b) { return kael::allclose(a, b, 0.0, 0.0); }

// Targets for `rows` rows of `classes` classes, a few of them ignore_index.
Tensor targets_for(std::int64_t rows, std::int64_t classes, std::int64_t ignore_index) {
    Tensor t = kael::randint(0, classes, {rows});
    std::int64_t* data = t.data_ptr<std::int64_t>();
    for (std::int64_t i = 3; i < rows; i += 7) {
        data[i] = ignore_index;
    }
    return t;
}

TEST(TrainingStep, FusedCrossEntropyGivesTheComposedLossesToTheBit) {
    kael::manual_seed(7);
    for (const DType dtype : {DType::F32, DType::F64}) {
        for (const Reduction reduction : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
            for (const std::int64_t ignore_index : {std::int64_t{-100}, std::int64_t{5}}) {
                SCOPED_TRACE(std::to_string(static_cast<int>(reduction)) + " ignore " + std::to_string(ignore_index));
                const Tensor data = kael::mul(kael::randn({37, 1000}), 4.0).to(dtype);
                const Tensor target = targets_for(37, 1000, ignore_index);
                Tensor fused_logits = data.clone().requires_grad_();
                Tensor composed_logits = data.clone().requires_grad_();
                const Tensor fused = kael::cross_entropy(fused_logits, target, reduction, ignore_index);
                const Tensor composed =
                    kael::nll_loss(kael::log_softmax(composed_logits, 1), target, reduction, ignore_index);
                ASSERT_EQ(fused.grad_fn()->name(), "CrossEntropyBackward");
                EXPECT_TRUE(same(fused, composed));  // the same arithmetic, the same rounding
                const Tensor weights = kael::randn(fused.shape()).to(dtype);
                kael::sum(kael::mul(fused, weights)).backward();
                kael::sum(kael::mul(composed, weights)).backward();
                const double tolerance = dtype == DType::F32 ? 1e-6 : 1e-12;
                EXPECT_TRUE(kael::allclose(*fused_logits.grad(), *composed_logits.grad(), tolerance, tolerance));
            }
        }
    }
}

TEST(TrainingStep, FusedCrossEntropyGradientRowsSumToZeroAndIgnoredRowsAreZero) {
    // softmax - one_hot sums to 0 over each row, even for logits far apart.
    Tensor logits = kael::from_vector<float>({1e4f, -1e4f, 0, 3, 2, 1, 0, 0, 0}, {3, 3});
    logits.requires_grad_();
    const Tensor loss = kael::cross_entropy(logits, kael::from_vector<std::int64_t>({1, 0, -100}));
    EXPECT_TRUE(std::isfinite(loss.item<float>()));
    EXPECT_FLOAT_EQ(loss.item<float>(), (2e4f + std::log(1.0f + std::exp(-1e4f)) + std::log(1 + std::exp(-1.0f) +
                                                                                           std::exp(-2.0f))) / 2);
    loss.backward();
    const std::vector<float> grad = values<float>(*logits.grad());
    EXPECT_NEAR(grad[0] + grad[1] + grad[2], 0.0f, 1e-6f);
    EXPECT_NEAR(grad[3] + grad[4] + grad[5], 0.0f, 1e-6f);
    EXPECT_EQ(grad[6], 0.0f);  // ignored
    EXPECT_EQ(grad[8], 0.0f);
    // Every target ignored: the mean is 0 / 0 as PyTorch has it, the gradient is zero.
    Tensor none = kael::ones({2, 3}).requires_grad_();
    const Tensor nan = kael::cross_entropy(none, kael::from_vector<std::int64_t>({-100, -100}));
    EXPECT_TRUE(std::isnan(nan.item<float>()));
    nan.backward();
    EXPECT_EQ(values<float>(*none.grad()), std::vector<float>(6, 0.0f));
}

TEST(TrainingStep, FusedCrossEntropyRefusesWhatTheComposedOneRefuses) {
    const Tensor logits = kael::zeros({2, 4});
    EXPECT_THROW((void)kael::cross_entropy(logits, kael::from_vector<std::int64_t>({1, 4})), kael::IndexError);
    EXPECT_NE(message_of([&] { (void)kael::cross_entropy(logits, kael::from_vector<std::int64_t>({-1, 0})); })
                  .find("target -1 is out of bounds for 4 classes"),
              std::string::npos);
    EXPECT_THROW((void)kael::cross_entropy(logits, kael::from_vector<double>({1, 0})), kael::TypeError);
    EXPECT_THROW((void)kael::cross_entropy(logits, kael::from_vector<std::int64_t>({1, 0, 2})), kael::ValueError);
}

TEST(TrainingStep, FusedCrossEntropyDifferentiatesTwice) {
    const Tensor target = kael::from_vector<std::int64_t>({2, 0, -100, 1});
    Tensor x = kael::randn({4, 3}, DType::F64).requires_grad_();
    const auto gradient = [&](const Tensor& logits) {
        return kael::autograd::grad({kael::cross_entropy(logits, target)}, {logits}, {}, std::nullopt,
                                    /*create_graph=*/true)[0];
    };
    const Tensor fused = *gradient(x);
    const Tensor composed =
        *kael::autograd::grad({kael::nll_loss(kael::log_softmax(x, 1), target)}, {x}, {}, std::nullopt, true)[0];
    EXPECT_TRUE(kael::allclose(fused, composed, 1e-12, 1e-12));
    const Tensor second_fused = *kael::autograd::grad({kael::sum(kael::mul(fused, fused))}, {x})[0];
    const Tensor second_composed = *kael::autograd::grad({kael::sum(kael::mul(composed, composed))}, {x})[0];
    EXPECT_TRUE(kael::allclose(second_fused, second_composed, 1e-12, 1e-12));
}

// ---- GPT-2 trained from its mapped file ----------------------------------------------------

std::string bytes_of(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

bool is_conv1d(const std::string& name) {
    return name.ends_with("c_attn.weight") || name.ends_with("c_proj.weight") || name.ends_with("c_fc.weight");
}

// A small GPT-2 written as Hugging Face lays one out: config.json, and model.safetensors
// with the Conv1D weights stored [in, out].
void write_gpt2(const std::filesystem::path& directory, const kael::nn::GPTConfig& config) {
    kael::manual_seed(3);
    kael::nn::GPT model(config);
    kael::nn::StateDict state;
    for (const auto& [name, parameter] : model.named_parameters()) {
        state.insert(name, is_conv1d(name) ? parameter.detach().mT().contiguous() : parameter.detach());
    }
    kael::io::save_safetensors(state, directory / "model.safetensors");
    std::ofstream(directory / "config.json")
        << "{\"n_layer\": " << config.n_layer << ", \"n_head\": " << config.n_head << ", \"n_embd\": " << config.n_embd
        << ", \"n_positions\": " << config.block_size << ", \"vocab_size\": " << config.vocab_size
        << ", \"layer_norm_epsilon\": 1e-05}";
}

// Two AdamW steps on one batch; returns the losses.
std::vector<float> train(kael::nn::GPT& model, kael::optim::AdamW& optimizer, const Tensor& inputs,
                         const Tensor& targets) {
    std::vector<float> losses;
    for (int step = 0; step < 2; ++step) {
        const Tensor logits = model(inputs);
        const Tensor loss = kael::cross_entropy(logits.view({-1, model.config().vocab_size}), targets);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        losses.push_back(loss.item<float>());
    }
    return losses;
}

TEST(TrainingStep, Gpt2TrainsFromItsMappedFileWithoutWritingIntoIt) {
    const TempDir directory;
    kael::nn::GPTConfig config;
    config.vocab_size = 96;
    config.block_size = 16;
    config.n_layer = 2;
    config.n_head = 2;
    config.n_embd = 32;
    write_gpt2(directory.path(), config);
    const std::string before = bytes_of(directory.path() / "model.safetensors");

    const auto mapped = kael::nn::load_gpt2(directory.path());
    const auto copied = kael::nn::load_gpt2(directory.path());
    {
        const kael::autograd::NoGradGuard no_grad;
        for (Tensor parameter : copied->parameters()) {
            parameter.set_(parameter.contiguous().clone());  // the same values, laid out plainly
        }
    }
    kael::manual_seed(5);
    const Tensor inputs = kael::randint(0, config.vocab_size, {2, 8});
    const Tensor targets = kael::randint(0, config.vocab_size, {16});
    // kael's own products, whose sums run in one order whatever the operands' layout.
    // OpenBLAS multiplies a transposed operand with another kernel that rounds differently
    // (its Cooper Lake kernels on an AMD EPYC did), so its bits would depend on the layout.
    kael::set_matmul_backend(kael::MatmulBackend::Kael);
    kael::optim::AdamW mapped_optimizer(mapped->parameters());
    kael::optim::AdamW copied_optimizer(copied->parameters());
    const std::vector<float> losses = train(*mapped, mapped_optimizer, inputs, targets);
    EXPECT_EQ(losses, train(*copied, copied_optimizer, inputs, targets));
    EXPECT_LT(losses[1], losses[0]);

    const std::vector<kael::nn::NamedTensor> parameters = mapped->named_parameters();
    const std::vector<Tensor> plain = copied->parameters();
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        const auto& [name, parameter] = parameters[i];
        SCOPED_TRACE(name);
        // A Conv1D weight stays a transposed view; its gradient and its optimizer state
        // follow its layout, which is what lets the step update it in one pass.
        EXPECT_EQ(parameter.is_contiguous(), !is_conv1d(name));
        EXPECT_EQ(parameter.grad()->strides(), parameter.strides());
        EXPECT_EQ(mapped_optimizer.state(i).exp_avg->strides(), parameter.strides());
        EXPECT_EQ(mapped_optimizer.state(i).exp_avg_sq->strides(), parameter.strides());
        EXPECT_TRUE(same(parameter, plain[i]));  // the same update, to the bit
    }
    kael::set_matmul_backend(kael::MatmulBackend::Auto);
    mapped->zero_grad();
    EXPECT_EQ(bytes_of(directory.path() / "model.safetensors"), before);  // the file never changed
}

}  // namespace
