// libFuzzer target: GPT-2's config.json reader (chapter 12). A model directory is a
// stranger's, and its config decides how large every tensor is and how much memory the
// model takes, so a config the reader accepts must describe a model that can be built:
// every size positive, the width divisible by the heads, the epsilon positive and finite.
// A refusal must be a kael::Error; the same text must be read the same way twice.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "fuzz_check.h"
#include "kael/nn/gpt2.h"

using kael::fuzz::require;
using kael::fuzz::succeeds;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::optional<kael::nn::GPTConfig> config;
    if (!succeeds([&] { config = kael::nn::parse_gpt2_config(text, "fuzz config.json"); })) {
        return 0;
    }
    require(config->vocab_size > 0 && config->block_size > 0 && config->n_layer > 0 && config->n_head > 0 &&
                config->n_embd > 0,
            "an accepted config has a size that is not positive");
    require(config->n_embd % config->n_head == 0, "an accepted config has a width the heads do not divide");
    require(std::isfinite(config->layer_norm_epsilon) && config->layer_norm_epsilon > 0,
            "an accepted config has an epsilon that is not a positive number");
    require(config->dropout == 0.0, "a GPT-2 loaded for inference has dropout");
    const kael::nn::GPTConfig again = kael::nn::parse_gpt2_config(text, "fuzz config.json");
    require(again.vocab_size == config->vocab_size && again.block_size == config->block_size &&
                again.n_layer == config->n_layer && again.n_head == config->n_head && again.n_embd == config->n_embd,
            "the same config read twice gave two models");
    return 0;
}
