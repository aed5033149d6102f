#pragma once
// Small helpers shared by the test suites.

#include <string>
#include <vector>

#include "kael/error.h"
#include "messages.h"
#include "kael/tensor.h"
//> stage 7
#include "kael/factory.h"
//< stage 7

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

}  // namespace kael::testing
