#pragma once
/// \file
/// \brief nn::Embedding: a table of vectors looked up by integer indices.

#include <cstdint>
#include <string>

#include "kael/nn/module.h"

namespace kael::nn {

/// `torch.nn.Embedding`: a weight [num_embeddings, embedding_dim] initialised from the
/// standard normal distribution, as PyTorch does; forward picks rows by int64 indices.
class Embedding : public UnaryModule {
public:
    /// ValueError for a negative size.
    Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim);
    /// The rows of the weight at `indices` (int64, any shape): indices.shape() + [embedding_dim].
    /// IndexError for an index outside [0, num_embeddings).
    [[nodiscard]] Tensor forward(const Tensor& indices) override;
    /// "Embedding".
    [[nodiscard]] std::string name() const override { return "Embedding"; }
    /// "num_embeddings, embedding_dim", as PyTorch prints it.
    [[nodiscard]] std::string extra_repr() const override;

    /// The table, [num_embeddings, embedding_dim].
    Tensor weight;
};

}  // namespace kael::nn
