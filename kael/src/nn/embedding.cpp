// nn::Embedding: the lookup table and its default initialisation.
#include "kael/nn/embedding.h"

#include "kael/error.h"
#include "kael/factory.h"
#include "kael/nn/init.h"
#include "kael/ops/nn.h"

namespace kael::nn {
namespace {

Tensor uninitialised_table(std::int64_t num_embeddings, std::int64_t embedding_dim) {
    KAEL_CHECK_VALUE(num_embeddings >= 0 && embedding_dim >= 0,
                     "Embedding needs non-negative sizes, got num_embeddings=" << num_embeddings
                                                                              << ", embedding_dim=" << embedding_dim);
    return empty({num_embeddings, embedding_dim});
}

}  // namespace

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim)
    : weight(register_parameter("weight", uninitialised_table(num_embeddings, embedding_dim))) {
    init::normal_(weight);
}

Tensor Embedding::forward(const Tensor& indices) { return embedding(weight, indices); }

std::string Embedding::extra_repr() const {
    return std::to_string(weight.size(0)) + ", " + std::to_string(weight.size(1));
}

}  // namespace kael::nn
