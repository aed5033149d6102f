// The GPT of chapter 11, module by module, as nanoGPT and GPT-2 lay it out.
#include "kael/nn/gpt.h"

#include <cmath>
#include <sstream>

#include "kael/error.h"
#include "kael/factory.h"
#include "kael/nn/attention.h"
#include "kael/nn/init.h"
#include "kael/ops/attention.h"
#include "kael/ops/binary.h"
#include "kael/ops/join.h"
#include "kael/ops/linalg.h"
//> stage 13
#include "kael/nn/kv_cache.h"
//< stage 13

namespace kael::nn {
namespace {

void check_config(const GPTConfig& c) {
    KAEL_CHECK_VALUE(c.vocab_size >= 1 && c.block_size >= 1 && c.n_layer >= 1 && c.n_head >= 1 && c.n_embd >= 1,
                     "GPT needs positive sizes, got vocab_size=" << c.vocab_size << ", block_size=" << c.block_size
                                                                 << ", n_layer=" << c.n_layer << ", n_head="
                                                                 << c.n_head << ", n_embd=" << c.n_embd);
    KAEL_CHECK_VALUE(c.n_embd % c.n_head == 0,
                     "GPT needs n_embd divisible by n_head, got n_embd=" << c.n_embd << ", n_head=" << c.n_head);
    KAEL_CHECK_VALUE(c.dropout >= 0 && c.dropout < 1, "GPT dropout must be in [0, 1), got " << c.dropout);
}

// GPT-2's initialisation of one Linear: N(0, std) weights, zero bias.
void init_linear(Linear& layer, double std) {
    init::normal_(layer.weight, 0.0, std);
    if (layer.bias) {
        init::zeros_(*layer.bias);
    }
}

}  // namespace

CausalSelfAttention::CausalSelfAttention(const GPTConfig& config)
    : c_attn(register_module("c_attn", std::make_shared<Linear>(config.n_embd, 3 * config.n_embd))),
      c_proj(register_module("c_proj", std::make_shared<Linear>(config.n_embd, config.n_embd))),
      resid_dropout_(register_module("resid_dropout", std::make_shared<Dropout>(config.dropout))),
      n_head_(config.n_head),
      fused_(config.fused_attention) {}

Tensor CausalSelfAttention::forward(const Tensor& x) {
    return attend(x, [this](const Tensor& q, const Tensor& k, const Tensor& v) {
        return fused_ ? scaled_dot_product_attention(q, k, v, /*is_causal=*/true)
                      : attention_composed(q, k, v, /*is_causal=*/true);
    });
}
//> stage 13

Tensor CausalSelfAttention::forward(const Tensor& x, AttentionCache& cache, std::size_t layer) {
    return attend(x, [&](const Tensor& q, const Tensor& k, const Tensor& v) {
        const auto [keys, values] = cache.append(layer, k, v);  // the past and the new positions
        return causal_attention_lower_right(q, keys, values);
    });
}
//< stage 13

Tensor CausalSelfAttention::attend(const Tensor& x, const Attention& attention) {
    KAEL_CHECK_VALUE(x.dim() == 3, "CausalSelfAttention expects [B, T, C], got " << to_string(x.shape()));
    const std::int64_t batch = x.size(0);
    const std::int64_t time = x.size(1);
    const std::int64_t channels = x.size(2);
    const std::int64_t head_size = channels / n_head_;
    const std::vector<Tensor> qkv = split((*c_attn)(x), channels, 2);
    // [B, T, C] -> [B, T, H, C/H] -> [B, H, T, C/H]: one attention per head.
    auto heads = [&](const Tensor& t) { return t.view({batch, time, n_head_, head_size}).transpose(1, 2); };
    const Tensor y = attention(heads(qkv[0]), heads(qkv[1]), heads(qkv[2]));
    // Back to [B, T, C], the heads side by side, then mixed by c_proj.
    return (*resid_dropout_)((*c_proj)(y.transpose(1, 2).reshape({batch, time, channels})));
}

MLP::MLP(const GPTConfig& config)
    : c_fc(register_module("c_fc", std::make_shared<Linear>(config.n_embd, 4 * config.n_embd))),
      c_proj(register_module("c_proj", std::make_shared<Linear>(4 * config.n_embd, config.n_embd))),
      gelu_(register_module("gelu", std::make_shared<GELU>("tanh"))),
      dropout_(register_module("dropout", std::make_shared<Dropout>(config.dropout))) {}

Tensor MLP::forward(const Tensor& x) { return (*dropout_)((*c_proj)((*gelu_)((*c_fc)(x)))); }

Block::Block(const GPTConfig& config)
    : ln_1(register_module("ln_1", std::make_shared<LayerNorm>(Shape{config.n_embd}, config.layer_norm_epsilon))),
      attn(register_module("attn", std::make_shared<CausalSelfAttention>(config))),
      ln_2(register_module("ln_2", std::make_shared<LayerNorm>(Shape{config.n_embd}, config.layer_norm_epsilon))),
      mlp(register_module("mlp", std::make_shared<MLP>(config))) {}

Tensor Block::forward(const Tensor& x) {
    const Tensor after_attention = add(x, (*attn)((*ln_1)(x)));
    return add(after_attention, (*mlp)((*ln_2)(after_attention)));
}
//> stage 13

Tensor Block::forward(const Tensor& x, AttentionCache& cache, std::size_t layer) {
    const Tensor after_attention = add(x, attn->forward((*ln_1)(x), cache, layer));
    return add(after_attention, (*mlp)((*ln_2)(after_attention)));
}
//< stage 13

GPT::GPT(const GPTConfig& config) : config_((check_config(config), config)) {
    wte = register_module("wte", std::make_shared<Embedding>(config.vocab_size, config.n_embd));
    wpe = register_module("wpe", std::make_shared<Embedding>(config.block_size, config.n_embd));
    drop_ = register_module("drop", std::make_shared<Dropout>(config.dropout));
    h = register_module("h", std::make_shared<Sequential>());
    for (std::int64_t i = 0; i < config.n_layer; ++i) {
        h->push_back(std::make_shared<Block>(config));
    }
    ln_f = register_module("ln_f", std::make_shared<LayerNorm>(Shape{config.n_embd}, config.layer_norm_epsilon));
    // GPT-2's initialisation, in module order (so a seed gives the same weights every time).
    constexpr double kStd = 0.02;
    const double residual_std = kStd / std::sqrt(2.0 * static_cast<double>(config.n_layer));
    init::normal_(wte->weight, 0.0, kStd);
    init::normal_(wpe->weight, 0.0, kStd);
    for (std::size_t i = 0; i < h->size(); ++i) {
        auto& block = dynamic_cast<Block&>(*(*h)[i]);
        init_linear(*block.attn->c_attn, kStd);
        init_linear(*block.attn->c_proj, residual_std);
        init_linear(*block.mlp->c_fc, kStd);
        init_linear(*block.mlp->c_proj, residual_std);
    }
}

Tensor GPT::forward(const Tensor& indices) {
    KAEL_CHECK_VALUE(indices.dim() == 2, "GPT expects token indices [B, T], got shape " << to_string(indices.shape()));
    const std::int64_t time = indices.size(1);
    KAEL_CHECK_VALUE(time <= config_.block_size, "GPT: a sequence of " << time << " tokens is longer than the block size "
                                                                       << config_.block_size);
    const Tensor positions = arange(0.0, static_cast<double>(time), 1.0, DType::I64).to(indices.device());
    const Tensor x = (*drop_)(add((*wte)(indices), (*wpe)(positions)));
    return head((*ln_f)((*h)(x)));
}
//> stage 13

Tensor GPT::forward(const Tensor& indices, AttentionCache& cache, Logits which) {
    KAEL_CHECK_VALUE(indices.dim() == 2 && indices.size(0) == cache.batch() && indices.size(1) >= 1,
                     "GPT expects token indices [" << cache.batch() << ", T] (the cache's batch, T >= 1), got shape "
                                                   << to_string(indices.shape()));
    const std::int64_t past = cache.length();
    const std::int64_t time = indices.size(1);
    KAEL_CHECK_VALUE(past + time <= config_.block_size, "GPT: " << past << " cached and " << time
                                                                << " new positions pass the block size "
                                                                << config_.block_size);
    KAEL_CHECK_VALUE(past + time <= cache.capacity(), "GPT: " << past << " cached and " << time
                                                              << " new positions pass the cache's capacity "
                                                              << cache.capacity());
    const Tensor positions =
        arange(static_cast<double>(past), static_cast<double>(past + time), 1.0, DType::I64).to(indices.device());
    Tensor x = (*drop_)(add((*wte)(indices), (*wpe)(positions)));
    for (std::size_t i = 0; i < h->size(); ++i) {
        x = dynamic_cast<Block&>(*(*h)[i]).forward(x, cache, i);
    }
    cache.advance(time);  // every layer has appended its keys and values
    if (which == Logits::Last) {
        x = x.narrow(1, time - 1, 1);  // the final LayerNorm is per position, so it commutes
    }
    return head((*ln_f)(x));
}
//< stage 13

Tensor GPT::head(const Tensor& hidden) const {
    return matmul(hidden, wte->weight.mT());  // logits against every token's embedding
}

std::int64_t GPT::num_parameters() const {
    std::int64_t total = 0;
    for (const Tensor& p : parameters()) {
        total += p.numel();
    }
    return total;
}

std::string GPT::extra_repr() const {
    std::ostringstream out;
    out << "vocab_size=" << config_.vocab_size << ", block_size=" << config_.block_size << ", n_layer="
        << config_.n_layer << ", n_head=" << config_.n_head << ", n_embd=" << config_.n_embd;
    return out.str();
}

}  // namespace kael::nn
