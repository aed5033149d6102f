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
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <system_error>

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

/// A directory of its own under the system's temporary directory, removed at the end.
class TempDir {
public:
    TempDir() : path_(std::filesystem::temp_directory_path() / unique_name()) {
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const { return path_; }

private:
    // Test processes may run in parallel, so the name mixes the test's name, the clock
    // and a random number.
    static std::string unique_name() {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
        return std::string("kael_") + (test != nullptr ? test->name() : "test") + "_" + std::to_string(ticks) + "_" +
               std::to_string(std::random_device{}());
    }

    std::filesystem::path path_;
};
//< stage 8

}  // namespace kael::testing
