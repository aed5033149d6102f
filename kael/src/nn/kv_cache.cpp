// The KV cache of chapter 12: preallocated buffers, written one slice per step.
#include "kael/nn/kv_cache.h"

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace kael::nn {

KVCache::KVCache(const GPTConfig& config, std::int64_t batch, std::int64_t capacity, DType dtype, Device device)
    : batch_(batch), capacity_(capacity) {
    KAEL_CHECK_VALUE(batch >= 1, "KVCache needs a batch of at least 1, got " << batch);
    KAEL_CHECK_VALUE(capacity >= 1 && capacity <= config.block_size,
                     "KVCache needs a capacity in 1 .. " << config.block_size << " (the block size), got " << capacity);
    const Shape shape{batch, config.n_head, capacity, config.n_embd / config.n_head};
    // Zeros rather than empty: the memory is written now, once, so that the operating system
    // maps its pages here and not one page fault at a time in the decode steps that reach
    // them (each of a step's appends writes a new slice of every head).
    for (std::int64_t i = 0; i < config.n_layer; ++i) {
        keys_.push_back(zeros(shape, dtype, device));
        values_.push_back(zeros(shape, dtype, device));
    }
}

std::int64_t KVCache::nbytes() const noexcept {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < keys_.size(); ++i) {
        total += keys_[i].nbytes() + values_[i].nbytes();
    }
    return total;
}

std::pair<Tensor, Tensor> KVCache::append(std::size_t layer, const Tensor& k, const Tensor& v) {
    KAEL_CHECK_VALUE(layer < keys_.size(), "KVCache has " << keys_.size() << " layers, got layer " << layer);
    Tensor& keys = keys_[layer];
    Tensor& values = values_[layer];
    const std::int64_t positions = k.dim() == 4 ? k.size(2) : 0;
    const Shape expected{keys.size(0), keys.size(1), positions, keys.size(3)};
    KAEL_CHECK_VALUE(k.dim() == 4 && k.shape() == expected && v.shape() == expected,
                     "KVCache of layer " << layer << " expects keys and values [" << keys.size(0) << ", "
                                         << keys.size(1) << ", T, " << keys.size(3) << "], got "
                                         << to_string(k.shape()) << " and " << to_string(v.shape()));
    KAEL_CHECK_VALUE(length_ + positions <= capacity_, "KVCache holds " << capacity_ << " positions; "
                                                           << length_ << " are stored and " << positions
                                                           << " more do not fit");
    // The cache is state, not part of a graph: what a step writes is never differentiated.
    const autograd::NoGradGuard no_grad;
    keys.narrow(2, length_, positions).copy_(k);
    values.narrow(2, length_, positions).copy_(v);
    return {keys.narrow(2, 0, length_ + positions), values.narrow(2, 0, length_ + positions)};
}

void KVCache::advance(std::int64_t positions) {
    KAEL_CHECK_VALUE(positions >= 0 && length_ + positions <= capacity_,
                     "KVCache holds " << capacity_ << " positions; " << length_ << " are stored and "
                                      << positions << " more do not fit");
    length_ += positions;
}

}  // namespace kael::nn
