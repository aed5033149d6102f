#pragma once
// Small helpers shared by the test suites.

#include <string>
#include <vector>

#include "kael/error.h"
#include "kael/tensor.h"

namespace kael::testing {

/// The elements of any tensor of dtype T, in logical (row-major) order.
template <typename T> std::vector<T> values(const Tensor& t) {
    const Tensor c = t.contiguous();
    const T* data = c.data_ptr<T>();
    return std::vector<T>(data, data + c.numel());
}

/// The message of the kael::Error that `f` throws, or "no exception".
template <typename F> std::string message_of(F&& f) {
    try {
        f();
    } catch (const Error& error) {
        return error.what();
    }
    return "no exception";
}

}  // namespace kael::testing
