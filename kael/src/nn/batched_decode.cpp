// nn::decode_step (chapter 13): the decode steps of several sequences as one pass over the
// weights, with attention per sequence.
#include "kael/nn/batched_decode.h"

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/parallel.h"

namespace kael::nn {
namespace {

void check_step(const GPTConfig& config, std::span<const std::int64_t> tokens, std::span<AttentionCache* const> caches) {
    KAEL_CHECK_VALUE(!tokens.empty(), "decode_step needs at least one sequence");
    KAEL_CHECK_VALUE(tokens.size() == caches.size(), "decode_step got " << tokens.size() << " tokens for "
                                                                         << caches.size() << " caches");
    std::set<const AttentionCache*> seen;
    for (std::size_t r = 0; r < tokens.size(); ++r) {
        const AttentionCache* cache = caches[r];
        KAEL_CHECK_VALUE(cache != nullptr, "decode_step: the cache of sequence " << r << " is null");
        KAEL_CHECK_VALUE(seen.insert(cache).second, "decode_step: sequence " << r
                                                        << " shares its cache with an earlier sequence");
        KAEL_CHECK_VALUE(cache->batch() == 1, "decode_step needs a cache of batch 1 per sequence; sequence "
                                                  << r << " has one of batch " << cache->batch());
        KAEL_CHECK_VALUE(tokens[r] >= 0 && tokens[r] < config.vocab_size,
                         "decode_step: the token of sequence " << r << " is " << tokens[r]
                                                               << ", outside the vocabulary [0, "
                                                               << config.vocab_size << ")");
        KAEL_CHECK_VALUE(cache->length() < cache->capacity() && cache->length() < config.block_size,
                         "decode_step: the cache of sequence " << r << " is full (" << cache->length()
                                                               << " positions)");
    }
}

// An int64 column [R, 1] of `values` on `device`.
Tensor column_of(const std::vector<std::int64_t>& values, Device device) {
    return from_vector(values, Shape{static_cast<std::int64_t>(values.size()), 1}).to(device);
}

}  // namespace

Tensor decode_step(GPT& model, std::span<const std::int64_t> tokens, std::span<AttentionCache* const> caches) {
    const GPTConfig& config = model.config();
    check_step(config, tokens, caches);
    const autograd::NoGradGuard no_grad;
    model.eval();  // dropout off: its modules are then the identity, and are skipped below
    const Device device = model.wte->weight.device();
    const auto batch = static_cast<std::int64_t>(tokens.size());
    const std::int64_t channels = config.n_embd;
    const std::int64_t head_size = channels / config.n_head;

    // Each sequence's new token at its own position: the length of its cache.
    std::vector<std::int64_t> positions;
    for (const AttentionCache* cache : caches) {
        positions.push_back(cache->length());
    }
    const std::vector<std::int64_t> token_values(tokens.begin(), tokens.end());
    Tensor x = add((*model.wte)(column_of(token_values, device)), (*model.wpe)(column_of(positions, device)));

    for (std::size_t layer = 0; layer < model.h->size(); ++layer) {
        const auto& block = dynamic_cast<const Block&>(*(*model.h)[layer]);
        // [R, 1, C] -> q, k and v, each [R, H, 1, C/H], as CausalSelfAttention makes them.
        const std::vector<Tensor> qkv = split((*block.attn->c_attn)((*block.ln_1)(x)), channels, 2);
        auto heads = [&](const Tensor& t) { return t.view({batch, 1, config.n_head, head_size}).transpose(1, 2); };
        const Tensor q = heads(qkv[0]);
        const Tensor k = heads(qkv[1]);
        const Tensor v = heads(qkv[2]);
        // Attention is the one part that reads a sequence's past: per sequence, own cache.
        // The appends write one after the other: the caches of a server share one pool
        // tensor, whose version counter every write bumps. Then each sequence reads its own
        // keys and values, a pass over memory as long as its past, so the sequences run on
        // the threads side by side (a sequence's attention then runs on one thread, and its
        // bits are those it gets alone).
        std::vector<std::pair<Tensor, Tensor>> pasts;
        for (std::int64_t r = 0; r < batch; ++r) {
            AttentionCache& cache = *caches[static_cast<std::size_t>(r)];
            pasts.push_back(cache.append(layer, k.narrow(0, r, 1), v.narrow(0, r, 1)));
        }
        std::vector<std::optional<Tensor>> rows(static_cast<std::size_t>(batch));
        parallel_for(0, batch, 1, [&](std::int64_t begin, std::int64_t end) {
            const autograd::NoGradGuard worker_no_grad;  // grad mode is per thread
            for (std::int64_t r = begin; r < end; ++r) {
                const auto& [keys, values] = pasts[static_cast<std::size_t>(r)];
                rows[static_cast<std::size_t>(r)] = causal_attention_lower_right(q.narrow(0, r, 1), keys, values);
            }
        });
        std::vector<Tensor> attended;
        for (std::optional<Tensor>& row : rows) {
            attended.push_back(std::move(*row));
        }
        const Tensor y = cat(attended, 0).transpose(1, 2).reshape({batch, 1, channels});
        x = add(x, (*block.attn->c_proj)(y));
        x = add(x, (*block.mlp)((*block.ln_2)(x)));
    }
    for (AttentionCache* cache : caches) {
        cache->advance(1);  // every layer has appended this sequence's new position
    }
    // The tied head, as GPT::forward computes it: [R, 1, C] x [C, V] -> [R, V].
    return matmul((*model.ln_f)(x), model.wte->weight.mT()).view({batch, config.vocab_size});
}

}  // namespace kael::nn
