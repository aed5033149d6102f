#pragma once
/// \file
/// \brief TensorIterator: one loop over an output and its inputs, whatever their layouts.
///
/// Element-wise kernels do not walk shapes and strides themselves. They describe their
/// operands to a TensorIteratorConfig, which broadcasts the inputs, converts strides to
/// bytes, orders the dimensions so the innermost one steps the least memory, and merges
/// dimensions that can be walked as one. The kernel then supplies only an inner loop over
/// one run of elements; for_each() drives it over the rest.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kael/dtype.h"
#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael {

class TensorIterator;

/// Describes the operands of one element-wise loop, then builds the TensorIterator.
class TensorIteratorConfig {
public:
    /// Writes into an existing tensor (out= variants and in-place operations). Its shape must
    /// equal the broadcast shape of the inputs. The iterator trusts it otherwise: callers
    /// check first that it can be written (no expanded dimensions) and that no input partly
    /// overlaps it, as the in-place operations of chapter 05 do.
    TensorIteratorConfig& add_output(const Tensor& out);
    /// Lets the iterator allocate the output, of `dtype` with the broadcast shape, laid out
    /// in the inputs' memory order as PyTorch does (contiguous when the inputs are).
    TensorIteratorConfig& declare_output(DType dtype);
    /// Adds an input; inputs broadcast against each other.
    TensorIteratorConfig& add_input(const Tensor& input);
    /// Allows inputs of different dtypes (where() reads a Bool condition and two value
    /// tensors). By default all inputs must share one dtype, because kernels cast them to
    /// the result dtype before iterating.
    TensorIteratorConfig& allow_mixed_input_dtypes();
    /// Checks the operands and computes the loop. Throws ValueError for shapes that do not
    /// broadcast or an output of the wrong shape, and TypeError for mixed input dtypes.
    [[nodiscard]] TensorIterator build();

private:
    std::optional<Tensor> output_;
    std::optional<DType> declared_dtype_;
    std::vector<Tensor> inputs_;
    bool mixed_input_dtypes_ = false;
};

/// The loop computed by TensorIteratorConfig::build(). Operand 0 is the output.
class TensorIterator {
public:
    /// The most operands (output included) one iterator handles.
    static constexpr std::size_t kMaxOperands = 8;

    /// The output tensor (allocated by build() when it was declared).
    [[nodiscard]] const Tensor& output() const noexcept { return operands_[0]; }
    /// Operand `i`: 0 is the output, 1.. are the inputs in the order they were added.
    [[nodiscard]] const Tensor& operand(std::size_t i) const { return operands_.at(i); }
    /// The number of operands, output included.
    [[nodiscard]] std::size_t num_operands() const noexcept { return operands_.size(); }
    /// The loop's dimensions after reordering and coalescing, outermost first.
    [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
    /// Operand `i`'s strides in bytes for each loop dimension.
    [[nodiscard]] const Strides& byte_strides(std::size_t i) const { return strides_.at(i); }
    /// The number of elements the loop visits.
    [[nodiscard]] std::int64_t numel() const { return kael::numel(shape_); }
//> stage 10
    /// The device every operand lives on; the backend whose kernel runs the loop.
    [[nodiscard]] Device device() const noexcept { return operands_[0].device(); }
//< stage 10
    /// The loop in words: its shape and each operand's byte strides.
    [[nodiscard]] std::string describe() const;

    /// Calls `inner(data, strides, n)` once per run of the innermost dimension, on the CPU
    /// (a device's loops are its backend's: chapter 09). `data[i]`
    /// points at operand i's first element of the run, `strides[i]` is its byte stride
    /// along the run, and `n` is the run's length. A 0-d loop is one run of one element.
    template <typename Inner> void for_each(Inner&& inner) const;

private:
    friend class TensorIteratorConfig;
    TensorIterator() = default;

    std::vector<Tensor> operands_;
    Shape shape_;                  // loop dimensions, outermost first
    std::vector<Strides> strides_;  // strides_[operand][dimension], in bytes
};

template <typename Inner> void TensorIterator::for_each(Inner&& inner) const {
    const std::size_t count = operands_.size();
    if (numel() == 0) {
        return;
    }
    std::array<std::byte*, kMaxOperands> data{};
    std::array<std::int64_t, kMaxOperands> inner_strides{};
    for (std::size_t i = 0; i < count; ++i) {
        data[i] = operands_[i].data_ptr_raw();
    }
    if (shape_.empty()) {
        inner(data.data(), inner_strides.data(), std::int64_t{1});
        return;
    }
    const std::size_t last = shape_.size() - 1;
    for (std::size_t i = 0; i < count; ++i) {
        inner_strides[i] = strides_[i][last];
    }
    // The outer dimensions advance like an odometer: bump the innermost outer dimension,
    // and when it wraps to 0, step back over it and carry into the next one out.
    Index counter(last, 0);
    while (true) {
        inner(data.data(), inner_strides.data(), shape_[last]);
        std::size_t d = last;
        while (d-- > 0) {
            for (std::size_t i = 0; i < count; ++i) {
                data[i] += strides_[i][d];
            }
            if (++counter[d] < shape_[d]) {
                break;
            }
            for (std::size_t i = 0; i < count; ++i) {
                data[i] -= strides_[i][d] * shape_[d];
            }
            counter[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) {
            return;  // every outer dimension wrapped: done
        }
    }
}

}  // namespace kael
