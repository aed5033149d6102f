#pragma once
/// \file
/// \brief A GPT in the nn layer (chapter 11): token and position embeddings, pre-LayerNorm
/// blocks of causal self-attention and a GELU MLP, a final LayerNorm, and a head tied to
/// the token embedding, with GPT-2's names and initialisation.

#include <cstdint>
#include <functional>
#include <memory>

#include "kael/nn/activation.h"
#include "kael/nn/container.h"
#include "kael/nn/embedding.h"
#include "kael/nn/layer_norm.h"
#include "kael/nn/linear.h"
#include "kael/nn/module.h"

namespace kael::nn {
//> stage 13

class AttentionCache;
//< stage 13

/// The sizes of a GPT; the defaults are GPT-2 small's.
struct GPTConfig {
    std::int64_t vocab_size = 50257;  ///< the number of tokens
    std::int64_t block_size = 1024;   ///< the longest context (positions)
    std::int64_t n_layer = 12;        ///< the number of blocks
    std::int64_t n_head = 12;         ///< attention heads per block
    std::int64_t n_embd = 768;        ///< the width of the residual stream (divisible by n_head)
    double dropout = 0.0;  ///< on the embeddings and each residual branch, in training only
    double layer_norm_epsilon = 1e-5;  ///< every LayerNorm's eps
    bool fused_attention = true;  ///< scaled_dot_product_attention, else the composition
};

/// Multi-head causal self-attention: one Linear makes queries, keys and values for every
/// head ([B, T, C] to three [B, H, T, C/H]), attention runs per head, and a second Linear
/// mixes the heads' outputs back to [B, T, C].
class CausalSelfAttention : public UnaryModule {
public:
    /// The layers of one block's attention, for `config`'s sizes.
    explicit CausalSelfAttention(const GPTConfig& config);
    /// [B, T, C] to [B, T, C]; position t mixes the values of positions 0 .. t.
    [[nodiscard]] Tensor forward(const Tensor& x) override;
//> stage 13
    /// forward for T new positions after the cache.length() that `cache` holds: their keys
    /// and values go into the cache as layer `layer`, and each new position attends over
    /// every cached position and the new ones up to itself.
    [[nodiscard]] Tensor forward(const Tensor& x, AttentionCache& cache, std::size_t layer);
//< stage 13
    [[nodiscard]] std::string name() const override { return "CausalSelfAttention"; }

    std::shared_ptr<Linear> c_attn;  ///< C -> 3C: q, k and v side by side
    std::shared_ptr<Linear> c_proj;  ///< C -> C, a residual projection

private:
    using Attention = std::function<Tensor(const Tensor& q, const Tensor& k, const Tensor& v)>;
    // q, k and v per head from x, `attention` of them, and the heads mixed back by c_proj.
    [[nodiscard]] Tensor attend(const Tensor& x, const Attention& attention);

    std::shared_ptr<Dropout> resid_dropout_;
    std::int64_t n_head_;
    bool fused_;
};

/// The block's feed-forward part: C -> 4C, GELU (the tanh form, as GPT-2), 4C -> C.
class MLP : public UnaryModule {
public:
    /// The two layers for `config`'s width.
    explicit MLP(const GPTConfig& config);
    /// c_proj(gelu(c_fc(x))), then dropout.
    [[nodiscard]] Tensor forward(const Tensor& x) override;
    [[nodiscard]] std::string name() const override { return "MLP"; }

    std::shared_ptr<Linear> c_fc;    ///< C -> 4C
    std::shared_ptr<Linear> c_proj;  ///< 4C -> C, a residual projection

private:
    std::shared_ptr<GELU> gelu_;
    std::shared_ptr<Dropout> dropout_;
};

/// x + attn(ln_1(x)), then + mlp(ln_2(x)): each branch reads a normalised copy and adds
/// to the unnormalised stream (pre-LayerNorm).
class Block : public UnaryModule {
public:
    /// One block for `config`'s sizes.
    explicit Block(const GPTConfig& config);
    /// [B, T, C] to [B, T, C].
    [[nodiscard]] Tensor forward(const Tensor& x) override;
//> stage 13
    /// forward for T new positions, the attention reading and extending layer `layer` of
    /// `cache`.
    [[nodiscard]] Tensor forward(const Tensor& x, AttentionCache& cache, std::size_t layer);
//< stage 13
    [[nodiscard]] std::string name() const override { return "Block"; }

    std::shared_ptr<LayerNorm> ln_1;            ///< before the attention
    std::shared_ptr<CausalSelfAttention> attn;  ///< the attention branch
    std::shared_ptr<LayerNorm> ln_2;            ///< before the MLP
    std::shared_ptr<MLP> mlp;                   ///< the MLP branch
};

//> stage 13
/// Which positions a forward computes logits for: the head is the model's largest matrix
/// (vocab_size x n_embd), and generation needs only the last position's.
enum class Logits {
    All,   ///< [B, T, vocab_size]
    Last,  ///< [B, 1, vocab_size], for the last of the T positions
};

//< stage 13
/// The model: logits [B, T, vocab_size] for int64 token indices [B, T] (T <= block_size).
/// Initialised as GPT-2: every Linear and Embedding weight from N(0, 0.02), biases 0, and
/// the residual projections (attn.c_proj, mlp.c_proj) from N(0, 0.02 / sqrt(2 n_layer)),
/// so the residual stream's variance does not grow with depth. The head is wte's weight
/// (tied), so it is one parameter, counted and trained once.
class GPT : public UnaryModule {
public:
    /// A model of `config`'s sizes, initialised as GPT-2. ValueError for sizes that are not
    /// positive, n_embd not divisible by n_head, or dropout outside [0, 1).
    explicit GPT(const GPTConfig& config);
    /// Logits [B, T, vocab_size] for indices [B, T]; ValueError past block_size.
    [[nodiscard]] Tensor forward(const Tensor& indices) override;
//> stage 13
    /// Logits for T new positions [B, T] that follow the cache.length() positions `cache`
    /// holds, whose keys and values join the cache (chapter 12). With an empty cache and
    /// Logits::All this is forward(indices), within rounding. ValueError when the batch
    /// differs from the cache's or the positions would pass the block size or the cache's
    /// capacity; the cache is unchanged then.
    [[nodiscard]] Tensor forward(const Tensor& indices, AttentionCache& cache, Logits which = Logits::All);
//< stage 13
    [[nodiscard]] std::string name() const override { return "GPT"; }
    [[nodiscard]] std::string extra_repr() const override;

    /// The configuration it was built with.
    [[nodiscard]] const GPTConfig& config() const noexcept { return config_; }
    /// The number of parameters (the tied head once).
    [[nodiscard]] std::int64_t num_parameters() const;

    std::shared_ptr<Embedding> wte;  ///< token embedding, and the head
    std::shared_ptr<Embedding> wpe;  ///< position embedding
    std::shared_ptr<Sequential> h;   ///< the blocks, named h.0, h.1, ...
    std::shared_ptr<LayerNorm> ln_f;  ///< the final LayerNorm, before the head

private:
    // The tied head: logits of every token for the final hidden states [B, T, C].
    [[nodiscard]] Tensor head(const Tensor& hidden) const;

    GPTConfig config_;
    std::shared_ptr<Dropout> drop_;
};

}  // namespace kael::nn
