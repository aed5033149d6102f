// GPT-2 against an independent reference (chapter 12). scripts/make-tiny-gpt2 writes a small
// GPT-2 with random weights in the Hugging Face layout, once with the keys of the `gpt2`
// checkpoint (h.0.attn.c_attn.weight) and once with those of GPT2LMHeadModel
// (transformer.h.0...), and a reference.json of what a forward pass written in plain
// PyTorch from the GPT-2 definition computes on it (scripts/lib/gpt2_reference.py). kael
// loads the same files with nn::load_gpt2 and must agree: logits within 1e-4, and the
// greedy continuation token for token.
//
// CTest runs make-tiny-gpt2 first (the fixture in tests/CMakeLists.txt) and passes the
// directory in KAEL_GPT2_REFERENCE_DIR; without PyTorch the configure step leaves it unset,
// and the tests skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kael/kael.h"

namespace {

using Ids = std::vector<std::int64_t>;
using Rows = std::vector<std::vector<float>>;

// The tolerance the issue sets: float32 sums in another order stay far inside it.
constexpr double kTolerance = 1e-4;

// One model directory, with what the reference computed on it.
struct Reference {
    std::filesystem::path directory;
    Ids prompt;
    Rows logits;         // [12][V]: the prompt's logits
    Ids greedy;          // 16 ids of greedy continuation
    Rows greedy_logits;  // [16][V]: the logits that chose each of them
    std::vector<Ids> batch_prompts;
    Rows batch_last_logits;  // [2][V]: each batch prompt's last position
};

std::filesystem::path reference_root() {
    const char* root = std::getenv("KAEL_GPT2_REFERENCE_DIR");
    return root == nullptr ? std::filesystem::path{} : std::filesystem::path{root};
}

Reference read_reference(const std::string& layout) {
    Reference ref;
    ref.directory = reference_root() / layout;
    std::ifstream file(ref.directory / "reference.json");
    EXPECT_TRUE(file.is_open()) << "no reference.json in " << ref.directory;
    const nlohmann::json json = nlohmann::json::parse(file);
    ref.prompt = json.at("prompt").get<Ids>();
    ref.logits = json.at("logits").get<Rows>();
    ref.greedy = json.at("greedy").get<Ids>();
    ref.greedy_logits = json.at("greedy_logits").get<Rows>();
    ref.batch_prompts = json.at("batch").at("prompts").get<std::vector<Ids>>();
    ref.batch_last_logits = json.at("batch").at("last_logits").get<Rows>();
    return ref;
}

// Skips the test where the fixture did not run (no PyTorch at configure time).
#define SKIP_WITHOUT_REFERENCE()                                                                \
    do {                                                                                        \
        if (reference_root().empty()) {                                                         \
            GTEST_SKIP() << "KAEL_GPT2_REFERENCE_DIR is not set: PyTorch was not found when "   \
                            "CMake configured, so scripts/make-tiny-gpt2 did not run";          \
        }                                                                                       \
    } while (false)

kael::Tensor ids_tensor(const std::vector<Ids>& rows) {
    Ids flat;
    for (const Ids& row : rows) {
        flat.insert(flat.end(), row.begin(), row.end());
    }
    return kael::from_vector(flat, kael::Shape{static_cast<std::int64_t>(rows.size()),
                                               static_cast<std::int64_t>(rows.front().size())});
}

// The largest |kael - reference| over one row of logits ([V], any dtype kael computes in).
double max_difference(const kael::Tensor& row, const std::vector<float>& expected) {
    const kael::Tensor values = row.to(kael::DType::F64).contiguous();
    EXPECT_EQ(values.numel(), static_cast<std::int64_t>(expected.size()));
    const double* data = values.data_ptr<double>();
    double worst = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        worst = std::max(worst, std::abs(data[i] - static_cast<double>(expected[i])));
    }
    return worst;
}

void expect_prompt_logits_match(const std::string& layout) {
    const Reference ref = read_reference(layout);
    const auto model = kael::nn::load_gpt2(ref.directory);
    const kael::autograd::NoGradGuard no_grad;
    const kael::Tensor logits = (*model)(ids_tensor({ref.prompt}));
    ASSERT_EQ(logits.shape(), (kael::Shape{1, static_cast<std::int64_t>(ref.prompt.size()),
                                           static_cast<std::int64_t>(ref.logits.front().size())}));
    for (std::size_t t = 0; t < ref.prompt.size(); ++t) {
        EXPECT_LE(max_difference(logits.select(0, 0).select(0, static_cast<std::int64_t>(t)), ref.logits[t]),
                  kTolerance)
            << layout << " layout, position " << t;
    }
}

void expect_greedy_matches(const std::string& layout) {
    const Reference ref = read_reference(layout);
    const auto model = kael::nn::load_gpt2(ref.directory);
    kael::nn::GenerationOptions options;
    options.max_new_tokens = static_cast<std::int64_t>(ref.greedy.size());
    options.sampling.temperature = 0.0;
    EXPECT_EQ(kael::nn::generate(*model, ref.prompt, options).tokens, ref.greedy) << layout << " layout, cached";
    options.use_cache = false;
    EXPECT_EQ(kael::nn::generate(*model, ref.prompt, options).tokens, ref.greedy) << layout << " layout, uncached";
}

TEST(Gpt2Reference, PlainLayoutLogitsMatchPyTorch) {
    SKIP_WITHOUT_REFERENCE();
    expect_prompt_logits_match("plain");
}

TEST(Gpt2Reference, PrefixedLayoutLogitsMatchPyTorch) {
    SKIP_WITHOUT_REFERENCE();
    expect_prompt_logits_match("prefixed");
}

TEST(Gpt2Reference, GreedyContinuationIsPyTorchsTokenForToken) {
    SKIP_WITHOUT_REFERENCE();
    expect_greedy_matches("plain");
    expect_greedy_matches("prefixed");
}

// A random model's greedy output soon repeats one token, which a cache that reads the wrong
// positions can still produce; comparing every step's whole row of logits cannot be fooled.
TEST(Gpt2Reference, EveryCachedDecodeStepMatchesPyTorchsLogits) {
    SKIP_WITHOUT_REFERENCE();
    const Reference ref = read_reference("plain");
    const auto model = kael::nn::load_gpt2(ref.directory);
    model->eval();
    const kael::autograd::NoGradGuard no_grad;
    const auto length = static_cast<std::int64_t>(ref.prompt.size() + ref.greedy.size());
    kael::nn::KVCache cache(model->config(), 1, length);
    kael::Tensor logits = model->forward(ids_tensor({ref.prompt}), cache, kael::nn::Logits::Last);
    for (std::size_t step = 0; step < ref.greedy.size(); ++step) {
        ASSERT_EQ(logits.shape(), (kael::Shape{1, 1, static_cast<std::int64_t>(ref.greedy_logits[step].size())}));
        EXPECT_LE(max_difference(logits.select(0, 0).select(0, 0), ref.greedy_logits[step]), kTolerance)
            << "decode step " << step << " (cache length " << cache.length() << ")";
        logits = model->forward(ids_tensor({{ref.greedy[step]}}), cache, kael::nn::Logits::Last);
    }
    EXPECT_EQ(cache.length(), length);
}

TEST(Gpt2Reference, TwoPromptsInOneBatchMatchPyTorch) {
    SKIP_WITHOUT_REFERENCE();
    const Reference ref = read_reference("prefixed");
    const auto model = kael::nn::load_gpt2(ref.directory);
    const kael::autograd::NoGradGuard no_grad;
    const kael::Tensor logits = (*model)(ids_tensor(ref.batch_prompts));
    const std::int64_t last = logits.size(1) - 1;
    for (std::size_t b = 0; b < ref.batch_prompts.size(); ++b) {
        EXPECT_LE(max_difference(logits.select(0, static_cast<std::int64_t>(b)).select(0, last),
                                 ref.batch_last_logits[b]),
                  kTolerance)
            << "prompt " << b;
    }
}

}  // namespace
