#pragma once
// Small helpers shared by the test suites.

#include <optional>
#include <string>
#include <vector>

#include "kael/error.h"
#include "messages.h"
#include "kael/tensor.h"
//> stage 7
#include "kael/factory.h"
//< stage 7
//> stage 8
#include "kael/nn/state_dict.h"
//< stage 8

namespace kael::testing {

/// The elements of any tensor of dtype T, in logical (row-major) order.
template <typename T> std::vector<T> values(const Tensor& t) {
    const Tensor c = t.contiguous();
    const T* data = c.data_ptr<T>();
    return std::vector<T>(data, data + c.numel());
}

//> stage 7

/// A float64 leaf holding `data` that requires grad (the autograd suites' usual input).
inline Tensor grad_leaf(std::vector<double> data) {
    Tensor t = from_vector(data);
    t.requires_grad_();
    return t;
}
//< stage 7
//> stage 8

/// `state` with the entry under `key` replaced by `value`, added when absent, or removed when
/// `value` is empty: the damaged state dicts of the refusal tests of optimizers and schedules.
inline nn::StateDict edited(const nn::StateDict& state, const std::string& key, const std::optional<Tensor>& value) {
    nn::StateDict out;
    for (const auto& [name, tensor] : state) {
        if (name != key) {
            out.insert(name, tensor);
        } else if (value) {
            out.insert(name, *value);
        }
    }
    if (value && !state.contains(key)) {
        out.insert(key, *value);
    }
    return out;
}
//< stage 8

}  // namespace kael::testing
