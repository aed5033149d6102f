// Chapter 11: a short training run of a character-level GPT, end to end, small enough to
// finish in a few seconds on one core. The text is embedded below; the vocabulary is its
// distinct characters; the model is the chapter's nn::GPT; the optimizer is AdamW with the
// settings of examples/char_gpt.cpp. The program prints the training loss every 20 steps,
// compares the first one with ln V (the loss of a model that spreads its probability
// evenly over the V characters), and then samples from the trained model.
//
// Everything random (the initial weights, the batches, the sampled characters) comes from
// kael's global generator, seeded once with kael::manual_seed, so every run prints the same.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kael/kael.h"

namespace {

// The training text: a little under 2 KB of plain ASCII, so one character is one byte.
constexpr std::string_view kText =
    "a tensor is a block of numbers with a shape. the shape says how many numbers lie\n"
    "along each axis, and the strides say how far to step in memory to reach the next\n"
    "one. a view shares the memory of its base and changes only the shape and the\n"
    "strides, so a view costs nothing to make and nothing to keep.\n"
    "to add two tensors, the iterator walks both shapes at once. where one shape has a\n"
    "one, the other shape wins, and the stride of that axis is zero, so the same number\n"
    "is read again and again. this is broadcasting, and it costs no memory at all.\n"
    "a model is a function with weights. the weights start small and random, the loss\n"
    "says how wrong the model is, and the gradient says which way each weight should\n"
    "move to make the loss smaller. the optimizer takes a small step that way, and the\n"
    "next batch takes another. step by step, the loss goes down.\n"
    "a language model reads the text one token at a time and guesses the next one. at\n"
    "first every guess is as good as any other, and the loss is the log of the number\n"
    "of tokens. then the model learns that a space follows a word, that a word is made\n"
    "of letters, that the letters come in the order of the words it has read.\n"
    "attention lets each position look back at the positions before it. the query asks,\n"
    "the keys answer, and the values are mixed in the measure of the answers. a mask\n"
    "keeps each position from looking ahead, so the model cannot read the answer.\n"
    "the blocks are stacked one on the other, each adding what it found to the stream,\n"
    "and the last layer turns the stream into one score for every token. the softmax\n"
    "turns the scores into chances, and the sampler draws the next token from them.\n"
    "a small model on a small text learns the letters first, then the short words, and\n"
    "only much later the long ones. give it more steps, and it will learn more.\n";

// The model's sizes: tiny, so that a step takes milliseconds.
constexpr std::int64_t kBlockSize = 32;   // characters of context
constexpr std::int64_t kBatchSize = 32;   // windows per step
constexpr std::int64_t kSteps = 200;      // optimizer steps
constexpr std::int64_t kPrintEvery = 20;  // print the loss every this many steps
constexpr std::int64_t kSampleChars = 100;

// The characters of the text, sorted: token i is the character chars[i].
struct Vocabulary {
    std::string chars;
    std::map<char, std::int64_t> index;

    explicit Vocabulary(std::string_view text) : chars(text) {
        std::sort(chars.begin(), chars.end());
        chars.erase(std::unique(chars.begin(), chars.end()), chars.end());
        for (std::size_t i = 0; i < chars.size(); ++i) {
            index[chars[i]] = static_cast<std::int64_t>(i);
        }
    }
    [[nodiscard]] std::int64_t size() const { return static_cast<std::int64_t>(chars.size()); }
    [[nodiscard]] std::vector<std::int64_t> encode(std::string_view text) const {
        std::vector<std::int64_t> tokens;
        for (const char c : text) {
            tokens.push_back(index.at(c));
        }
        return tokens;
    }
};

// One batch: kBatchSize windows of kBlockSize + 1 tokens, at offsets drawn from kael's
// generator. The inputs are each window's first kBlockSize tokens, the targets its last
// kBlockSize: the target at every position is the character that follows it.
std::pair<kael::Tensor, kael::Tensor> batch_of(const std::vector<std::int64_t>& tokens) {
    const auto last_start = static_cast<std::int64_t>(tokens.size()) - kBlockSize - 1;
    const kael::Tensor starts = kael::randint(0, last_start + 1, {kBatchSize});
    std::vector<std::int64_t> inputs;
    std::vector<std::int64_t> targets;
    for (std::int64_t b = 0; b < kBatchSize; ++b) {
        const auto start = tokens.begin() + starts.at<std::int64_t>({b});
        inputs.insert(inputs.end(), start, start + kBlockSize);
        targets.insert(targets.end(), start + 1, start + kBlockSize + 1);
    }
    return {kael::from_vector(inputs, {kBatchSize, kBlockSize}), kael::from_vector(targets, {kBatchSize, kBlockSize})};
}

// The mean cross-entropy of the model's predictions for every position of the batch.
kael::Tensor loss_of(kael::nn::GPT& model, const kael::Tensor& inputs, const kael::Tensor& targets) {
    const kael::Tensor logits = model(inputs);  // [B, T, V]
    return kael::cross_entropy(logits.view({-1, logits.size(-1)}), targets.reshape({-1}));
}

// `count` characters after `prompt`, one full forward pass per character over the last
// kBlockSize characters, of which only the last position's logits are used (chapter 11's
// loop, without a cache).
std::string sample(kael::nn::GPT& model, const Vocabulary& vocabulary, std::string_view prompt, std::int64_t count,
                   const kael::nn::SamplingOptions& options) {
    const kael::autograd::NoGradGuard no_grad;
    model.eval();
    std::vector<std::int64_t> context = vocabulary.encode(prompt);
    std::string text(prompt);
    for (std::int64_t i = 0; i < count; ++i) {
        const auto window = std::min<std::int64_t>(static_cast<std::int64_t>(context.size()), kBlockSize);
        const std::vector<std::int64_t> last(context.end() - window, context.end());
        const kael::Tensor logits = model(kael::from_vector(last, {1, window}));  // [1, window, V]
        const kael::Tensor next = kael::nn::sample_next(logits.select(0, 0).select(0, window - 1), options);
        context.push_back(next.item<std::int64_t>());
        text += vocabulary.chars[static_cast<std::size_t>(context.back())];
    }
    model.train();
    return text;
}

}  // namespace

int main() {
    const Vocabulary vocabulary(kText);
    const std::vector<std::int64_t> tokens = vocabulary.encode(kText);
    const std::int64_t V = vocabulary.size();
    std::printf("text: %zu characters, V = %lld distinct, ln V = %.4f\n", kText.size(), static_cast<long long>(V),
                std::log(static_cast<double>(V)));

    // One seed for everything: the weights are drawn now, the batches and the sample later.
    kael::manual_seed(11);
    kael::nn::GPT model({.vocab_size = V, .block_size = kBlockSize, .n_layer = 2, .n_head = 4, .n_embd = 64,
                         .dropout = 0.0, .layer_norm_epsilon = 1e-5, .fused_attention = true});
    kael::optim::AdamW optimizer(model.parameters(), {.lr = 3e-3, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8,
                                                      .weight_decay = 0.1, .amsgrad = false, .maximize = false});
    std::printf("model: %lld layers, %lld heads, width %lld, context %lld: %lld parameters\n",
                static_cast<long long>(model.config().n_layer), static_cast<long long>(model.config().n_head),
                static_cast<long long>(model.config().n_embd), static_cast<long long>(kBlockSize),
                static_cast<long long>(model.num_parameters()));
    std::printf("training: %lld steps of %lld windows of %lld characters, AdamW (lr 3e-3)\n\n",
                static_cast<long long>(kSteps), static_cast<long long>(kBatchSize),
                static_cast<long long>(kBlockSize));

    // The training loop: forward, backward, clip, step.
    for (std::int64_t step = 1; step <= kSteps; ++step) {
        const auto [inputs, targets] = batch_of(tokens);
        const kael::Tensor loss = loss_of(model, inputs, targets);
        optimizer.zero_grad();
        loss.backward();
        kael::nn::clip_grad_norm_(model.parameters(), 1.0);
        optimizer.step();
        if (step == 1 || step % kPrintEvery == 0) {
            std::printf("step %4lld  loss %.4f\n", static_cast<long long>(step), loss.item());
        }
    }

    // A sample: temperature 0.8 sharpens the model's distribution a little.
    const std::string_view prompt = "the model ";
    const kael::nn::SamplingOptions options{.temperature = 0.8, .top_k = std::nullopt, .top_p = 1.0};
    std::printf("\nsample (%lld characters after \"%.*s\", temperature 0.8):\n%s\n",
                static_cast<long long>(kSampleChars), static_cast<int>(prompt.size()), prompt.data(),
                sample(model, vocabulary, prompt, kSampleChars, options).c_str());
    return 0;
}
