// nn::generate (chapter 12): a prefill over the prompt, then one cached step per token.
#include "kael/nn/generation.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/nn/kv_cache.h"
#include "kael/view.h"

namespace kael::nn {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

void check_request(const GPTConfig& config, std::span<const std::int64_t> prompt, const GenerationOptions& options) {
    const auto length = static_cast<std::int64_t>(prompt.size());
    KAEL_CHECK_VALUE(length >= 1, "generate needs a prompt of at least one token");
    KAEL_CHECK_VALUE(length <= config.block_size, "generate: a prompt of " << length
                                                      << " tokens is longer than the model's context of "
                                                      << config.block_size);
    for (std::size_t i = 0; i < prompt.size(); ++i) {
        KAEL_CHECK_VALUE(prompt[i] >= 0 && prompt[i] < config.vocab_size,
                         "generate: prompt token " << i << " is " << prompt[i] << ", outside the vocabulary [0, "
                                                   << config.vocab_size << ")");
    }
    KAEL_CHECK_VALUE(options.max_new_tokens >= 0, "generate: max_new_tokens must be >= 0, got " << options.max_new_tokens);
    check_sampling_options(options.sampling);
}

// A [1, T] index tensor on the model's device.
Tensor indices_of(std::span<const std::int64_t> tokens, Device device) {
    const std::vector<std::int64_t> values(tokens.begin(), tokens.end());
    return from_vector(values, Shape{1, static_cast<std::int64_t>(values.size())}).to(device);
}

// The next token from logits [1, T or 1, V]: the last position's row.
std::int64_t draw(const Tensor& logits, const SamplingOptions& sampling) {
    const Tensor last = logits.select(1, logits.size(1) - 1);  // [1, V]
    return sample_next(last, sampling).cpu().item<std::int64_t>();
}

}  // namespace

Generation generate(GPT& model, std::span<const std::int64_t> prompt, const GenerationOptions& options,
                    const TokenCallback& on_token) {
    const GPTConfig& config = model.config();
    check_request(config, prompt, options);
    const autograd::NoGradGuard no_grad;
    model.eval();
    const Device device = model.wte->weight.device();

    std::vector<std::int64_t> sequence(prompt.begin(), prompt.end());
    Generation result;
    // The cache holds every position the sequence can reach: the prompt and each new token
    // but the last, whose keys no later step needs.
    const std::int64_t room = std::min<std::int64_t>(config.block_size, static_cast<std::int64_t>(sequence.size()) +
                                                                            options.max_new_tokens);
    std::optional<KVCache> cache;
    if (options.use_cache) {
        cache.emplace(config, 1, std::max<std::int64_t>(room, 1), model.wte->weight.dtype(), device);
    }
    // One forward: the whole prompt first, then only the newest token (with the cache) or
    // the whole sequence again (without).
    auto next_logits = [&](bool first) {
        if (!cache) {
            return model.forward(indices_of(sequence, device));
        }
        const std::span<const std::int64_t> fresh =
            first ? std::span<const std::int64_t>(sequence) : std::span<const std::int64_t>(sequence).last(1);
        return model.forward(indices_of(fresh, device), *cache, Logits::Last);
    };

    for (std::int64_t step = 0; step < options.max_new_tokens; ++step) {
        // A full context still predicts: the logits of its last position give one token
        // more. Only a sequence longer than the block size has a position the model lacks.
        if (static_cast<std::int64_t>(sequence.size()) > config.block_size) {
            result.reason = StopReason::ContextFull;
            break;
        }
        const Clock::time_point step_start = Clock::now();
        const std::int64_t token = draw(next_logits(step == 0), options.sampling);
        if (step == 0) {
            result.prefill_seconds = seconds_since(step_start);
        } else {
            result.decode_seconds += seconds_since(step_start);
            ++result.decode_steps;
        }
        if (options.stop_token && token == *options.stop_token) {
            result.reason = StopReason::StopToken;
            break;
        }
        sequence.push_back(token);
        result.tokens.push_back(token);
        if (on_token && !on_token(token)) {
            result.reason = StopReason::Callback;
            break;
        }
    }
    return result;
}

}  // namespace kael::nn
