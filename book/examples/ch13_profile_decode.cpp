// Chapter 13, "Reading a profile": one decode step of a GPT-2-shaped model, profiled. The
// model is small and random (vocabulary 1024, context 128, 4 blocks of 4 heads, 256
// channels), so that the program runs in a moment and needs no files; the structure of a
// step is GPT-2's. A prompt of 16 tokens is prefilled into a KV cache, one decode step runs
// unprofiled as a warm-up, and the next one is recorded.
#include <cstdint>
#include <iostream>
#include <vector>

#include "kael/kael.h"
#include "kael/parallel.h"

int main() {
    kael::set_num_threads(1);  // one thread: one track, and a table of the same shape every run
    kael::manual_seed(0);
    const kael::nn::GPTConfig config{.vocab_size = 1024, .block_size = 128, .n_layer = 4, .n_head = 4,
                                     .n_embd = 256, .dropout = 0.0, .layer_norm_epsilon = 1e-5,
                                     .fused_attention = true};
    kael::nn::GPT model(config);
    model.eval();
    const kael::autograd::NoGradGuard no_grad;
    kael::nn::KVCache cache(config, 1, config.block_size);

    std::vector<std::int64_t> prompt;
    for (std::int64_t i = 0; i < 16; ++i) {
        prompt.push_back((37 * i + 11) % config.vocab_size);
    }
    const kael::Tensor tokens = kael::from_vector(prompt, kael::Shape{1, 16});
    (void)model.forward(tokens, cache, kael::nn::Logits::Last);  // the prefill

    // book-region: step
    auto decode = [&](std::int64_t token) {
        const kael::profiler::Scope step("decode step", "user");
        return model.forward(kael::from_vector(std::vector<std::int64_t>{token}, kael::Shape{1, 1}), cache,
                             kael::nn::Logits::Last);
    };
    (void)decode(7);  // warm-up: the allocator's cache holds a decode step's blocks

    kael::Profiler profiler;
    (void)decode(8);
    profiler.stop();
    std::cout << profiler.summary(12);
    // end-book-region: step
    return 0;
}
