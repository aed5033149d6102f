#pragma once
// Small helpers shared by the test suites.

#include <string>
#include <vector>

#include "kael/error.h"
#include "messages.h"
#include "kael/tensor.h"

namespace kael::testing {

/// The elements of any tensor of dtype T, in logical (row-major) order.
template <typename T> std::vector<T> values(const Tensor& t) {
    const Tensor c = t.contiguous();
    const T* data = c.data_ptr<T>();
    return std::vector<T>(data, data + c.numel());
}

}  // namespace kael::testing
