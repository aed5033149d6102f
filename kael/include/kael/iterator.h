#pragma once
/// \file
/// \brief TensorIterator: one loop over an output and its inputs, whatever their layouts.
///
/// Element-wise kernels do not walk shapes and strides themselves. They describe their
/// operands to a TensorIteratorConfig, which broadcasts the inputs, converts strides to
/// bytes, orders the dimensions so the innermost one steps the least memory, and merges
/// dimensions that can be walked as one. The kernel then supplies only an inner loop over
/// one run of elements; for_each() drives it over the rest.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kael/dtype.h"
//> stage 13
#include "kael/parallel.h"
//< stage 13
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
//> stage 13

    /// for_each over the elements [begin, end) of the loop, in its order (the innermost
    /// dimension fastest): the runs are those of for_each, the first and last cut short.
    template <typename Inner> void for_each_in(std::int64_t begin, std::int64_t end, Inner&& inner) const;

    /// for_each with the elements cut into pieces of at least `grain_size` that run on
    /// several threads (chapter 12), so `inner` must be safe to call from several at once.
    /// Only an output that is written once per element may be split: with a zero stride
    /// (an expanded output) the loop runs on one thread.
    template <typename Inner> void parallel_for_each(std::int64_t grain_size, Inner&& inner) const;
//< stage 13

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

//> stage 13

template <typename Inner>
void TensorIterator::for_each_in(std::int64_t begin, std::int64_t end, Inner&& inner) const {
    if (begin >= end) {
        return;
    }
    const std::size_t count = operands_.size();
    std::array<std::byte*, kMaxOperands> row{};  // each operand at the start of the current run
    std::array<std::byte*, kMaxOperands> data{};
    std::array<std::int64_t, kMaxOperands> inner_strides{};
    if (shape_.empty()) {
        for (std::size_t i = 0; i < count; ++i) {
            data[i] = operands_[i].data_ptr_raw();
        }
        inner(data.data(), inner_strides.data(), std::int64_t{1});
        return;
    }
    const std::size_t last = shape_.size() - 1;
    const std::int64_t run = shape_[last];
    // The odometer's reading at `begin`: its run, split into the outer indices, and its
    // column inside the run.
    Index counter(last, 0);
    std::int64_t rest = begin / run;
    std::int64_t column = begin % run;
    for (std::size_t i = 0; i < count; ++i) {
        row[i] = operands_[i].data_ptr_raw();
        inner_strides[i] = strides_[i][last];
    }
    for (std::size_t d = last; d-- > 0;) {
        counter[d] = rest % shape_[d];
        rest /= shape_[d];
        for (std::size_t i = 0; i < count; ++i) {
            row[i] += counter[d] * strides_[i][d];
        }
    }
    std::int64_t remaining = end - begin;
    while (true) {
        const std::int64_t n = std::min(run - column, remaining);
        for (std::size_t i = 0; i < count; ++i) {
            data[i] = row[i] + column * inner_strides[i];
        }
        inner(data.data(), inner_strides.data(), n);
        remaining -= n;
        if (remaining == 0) {
            return;
        }
        column = 0;
        std::size_t d = last;  // the odometer of for_each
        while (d-- > 0) {
            for (std::size_t i = 0; i < count; ++i) {
                row[i] += strides_[i][d];
            }
            if (++counter[d] < shape_[d]) {
                break;
            }
            for (std::size_t i = 0; i < count; ++i) {
                row[i] -= strides_[i][d] * shape_[d];
            }
            counter[d] = 0;
        }
    }
}

template <typename Inner> void TensorIterator::parallel_for_each(std::int64_t grain_size, Inner&& inner) const {
    bool output_written_once = true;
    for (std::size_t d = 0; d < shape_.size(); ++d) {
        output_written_once = output_written_once && (strides_[0][d] != 0 || shape_[d] == 1);
    }
    if (!output_written_once || numel() < 2 * grain_size) {
        for_each(inner);
        return;
    }
    parallel_for(0, numel(), grain_size, [&](std::int64_t begin, std::int64_t end) { for_each_in(begin, end, inner); });
}
//< stage 13

}  // namespace kael
