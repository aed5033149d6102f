#include "kael/iterator.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "core/native.h"
#include "kael/broadcast.h"
//> stage 10
#include "kael/device.h"
//< stage 10
#include "kael/factory.h"
#include "kael/view.h"

namespace kael {

TensorIteratorConfig& TensorIteratorConfig::add_output(const Tensor& out) {
    output_ = out;
    return *this;
}

TensorIteratorConfig& TensorIteratorConfig::declare_output(DType dtype) {
    declared_dtype_ = dtype;
    return *this;
}

TensorIteratorConfig& TensorIteratorConfig::add_input(const Tensor& input) {
    inputs_.push_back(input);
    return *this;
}

TensorIteratorConfig& TensorIteratorConfig::allow_mixed_input_dtypes() {
    mixed_input_dtypes_ = true;
    return *this;
}

namespace {

// Operand strides in bytes over the broadcast shape. Missing leading dimensions and
// stretched size-1 dimensions get stride 0, so every position reads the same element. A
// size-1 dimension that is not stretched keeps its stride: it never steps, but as in
// PyTorch it still takes part in deciding the memory order of a new output.
Strides broadcast_byte_strides(const Tensor& t, const Shape& shape) {
    Strides strides(shape.size(), 0);
    const std::size_t lead = shape.size() - t.shape().size();
    const std::int64_t size = element_size(t.dtype());
    for (std::size_t i = 0; i < t.shape().size(); ++i) {
        if (t.shape()[i] == shape[lead + i]) {
            strides[lead + i] = t.strides()[i] * size;
        }
    }
    return strides;
}

// Which of two dimensions `a` and `b` should be the inner one, the one whose steps are
// smaller in memory.
enum class Inner { A, B, Unknown };

// Asks the operands in order; the first one with an opinion decides. The dimension with
// the smaller stride goes inside. A stride of 0 (broadcast) says nothing about memory
// order, so that operand is skipped. Equal strides (possible with size-1 dimensions) put
// the smaller dimension inside if that means a swap, and otherwise ask the next operand.
// These are PyTorch's rules, so that new outputs get PyTorch's layouts.
Inner inner_of(const std::vector<Strides>& strides, const Shape& shape, std::size_t a, std::size_t b) {
    for (const Strides& s : strides) {
        if (s[a] == 0 || s[b] == 0) {
            continue;
        }
        if (s[a] != s[b]) {
            return s[a] < s[b] ? Inner::A : Inner::B;
        }
        if (shape[a] > shape[b]) {
            return Inner::B;
        }
    }
    return Inner::Unknown;
}

// The dimensions in memory order, innermost first, decided by `inner_of`. An insertion
// sort that starts from the logical order (last dimension innermost) and inserts each
// further-out dimension: it moves inward past every dimension that should be outside it,
// looks past the ones it cannot compare with, and stops at the first that should stay
// inside it. With a handful of dimensions the quadratic cost is nothing, and unlike
// std::sort it copes with "cannot tell".
std::vector<std::size_t> memory_order(const std::vector<Strides>& strides, const Shape& shape) {
    const std::size_t n = shape.size();
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) {
        order[i] = n - 1 - i;
    }
    for (std::size_t i = 1; i < n; ++i) {
        std::size_t moving = i;  // where the dimension being inserted is now
        for (std::size_t j = i; j-- > 0;) {
            const Inner inner = inner_of(strides, shape, order[j], order[moving]);
            if (inner == Inner::B) {
                std::swap(order[j], order[moving]);
                moving = j;
            } else if (inner == Inner::A) {
                break;
            }
        }
    }
    return order;
}

// The layout of a new output, in elements, by PyTorch's rules. When every input has the
// loop shape, two shortcuts come first: all contiguous gives a contiguous output, and one
// dense layout shared by all (a transpose of the same shape, say) is copied exactly.
// Otherwise the output is laid out in `order` (innermost first): each dimension steps
// over all the ones inside it.
Strides output_strides(const std::vector<Tensor>& inputs, const Shape& shape,
                       const std::vector<std::size_t>& order) {
    const auto all = [&](auto predicate) { return std::all_of(inputs.begin(), inputs.end(), predicate); };
    if (all([&](const Tensor& t) { return t.shape() == shape; })) {
        if (all([](const Tensor& t) { return t.is_contiguous(); })) {
            return contiguous_strides(shape);
        }
        if (all([&](const Tensor& t) {
                return t.strides() == inputs.front().strides() && is_non_overlapping_and_dense(t);
            })) {
            return inputs.front().strides();
        }
    }
    Strides strides(shape.size(), 0);
    std::int64_t step = 1;
    for (const std::size_t d : order) {
        strides[d] = step;
        step *= shape[d];
    }
    return strides;
}

// A new tensor with the given layout, over storage of exactly its elements.
//> until 10
//| Tensor empty_with_strides(const Shape& shape, const Strides& strides, DType dtype) {
//|     if (strides == contiguous_strides(shape)) {
//|         return empty(shape, dtype);
//|     }
//|     return native::as_strided(empty({numel(shape)}, dtype), shape, strides, 0);
//| }
//< until 10
//> stage 10
Tensor empty_with_strides(const Shape& shape, const Strides& strides, DType dtype, Device device) {
    if (strides == contiguous_strides(shape)) {
        return empty(shape, dtype, device);
    }
    return native::as_strided(empty({numel(shape)}, dtype, device), shape, strides, 0);
}
//< stage 10

// ---- the phases of build(), in the order it runs them ----------------------------------

// 1. Checks the operands and computes the loop shape: the broadcast of every input with
// the added output. An output written in place takes part in broadcasting too, but the
// inputs may only stretch to its shape, never the other way round.
Shape loop_shape(const std::optional<Tensor>& output, const std::vector<Tensor>& inputs, bool mixed_dtypes) {
    std::vector<Shape> shapes;
    for (const Tensor& input : inputs) {
        shapes.push_back(input.shape());
        KAEL_CHECK_TYPE(mixed_dtypes || input.dtype() == inputs.front().dtype(),
                        "iterator inputs must share a dtype, got " << inputs.front().dtype() << " and "
                                                                   << input.dtype());
//> until 10
//|         KAEL_CHECK(input.device() == Device::CPU, "the CPU iterator got an input on " << input.device());
//< until 10
    }
    if (output) {
        shapes.push_back(output->shape());
    }
//> stage 10
    // One device for every operand, named as PyTorch names a mix: a kernel runs on one
    // device, and kael never copies an operand to another behind the caller's back.
    const Device device = inputs.empty() ? output->device() : inputs.front().device();
    for (const Tensor& operand : inputs) {
        check_same_device(device, operand.device());
    }
    if (output) {
        check_same_device(device, output->device());
    }
//< stage 10
    const Shape shape = broadcast_shapes(shapes);
    if (output) {
        KAEL_CHECK_VALUE(output->shape() == shape, "output with shape " << to_string(output->shape())
                                                                        << " doesn't match the broadcast shape "
                                                                        << to_string(shape));
//> until 10
//|         KAEL_CHECK(output->device() == Device::CPU, "the CPU iterator got an output on " << output->device());
//< until 10
    }
    return shape;
}

// 2. The byte strides of every operand that exists yet, over the loop shape: an added
// output first, then the inputs. A declared output does not exist until phase 4.
std::vector<Strides> operand_strides(const std::optional<Tensor>& output, const std::vector<Tensor>& inputs,
                                     const Shape& shape) {
    std::vector<Strides> strides;
    if (output) {
        strides.push_back(broadcast_byte_strides(*output, shape));
    }
    for (const Tensor& input : inputs) {
        strides.push_back(broadcast_byte_strides(input, shape));
    }
    return strides;
}

// 5. Coalesces the loops: walks the dimensions from the outermost in, and merges each into
// the one before it whenever, for every operand, stepping once along the outer dimension
// equals stepping across the whole inner one. The merged dimension then steps like the
// inner one. A size-1 dimension has one index and never steps: it is left out.
void coalesce(const Shape& shape, const std::vector<Strides>& strides, const std::vector<std::size_t>& order,
              Shape& merged_shape, std::vector<Strides>& merged) {
    merged.assign(strides.size(), {});
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const std::size_t d = *it;
        const std::int64_t size = shape[d];
        if (size == 1) {
            continue;
        }
        bool merge = !merged_shape.empty();
        for (std::size_t op = 0; merge && op < merged.size(); ++op) {
            merge = merged[op].back() == strides[op][d] * size;
        }
        if (merge) {
            for (std::size_t op = 0; op < merged.size(); ++op) {
                merged[op].back() = strides[op][d];
            }
            merged_shape.back() *= size;
        } else {
            merged_shape.push_back(size);
            for (std::size_t op = 0; op < merged.size(); ++op) {
                merged[op].push_back(strides[op][d]);
            }
        }
    }
}

}  // namespace

// The five phases, as ATen's TensorIterator::build names them: the shape, the strides,
// the memory order, the output, and the coalesced loops.
TensorIterator TensorIteratorConfig::build() {
    KAEL_CHECK(output_.has_value() != declared_dtype_.has_value(),
               "a TensorIterator needs exactly one output, added or declared");
    KAEL_CHECK(inputs_.size() + 1 <= TensorIterator::kMaxOperands,
               "a TensorIterator handles at most " << TensorIterator::kMaxOperands << " operands");
    // 1. and 2.
    const Shape shape = loop_shape(output_, inputs_, mixed_input_dtypes_);
    std::vector<Strides> strides = operand_strides(output_, inputs_, shape);
    // 3. The memory order: an added output has its say first; a declared one does not
    // exist yet, so the inputs decide alone.
    const std::vector<std::size_t> order = memory_order(strides, shape);
    // 4. A declared output is allocated in that order, and its strides join the others.
    TensorIterator iter;
    const Tensor output =
//> until 10
//|         output_ ? *output_ : empty_with_strides(shape, output_strides(inputs_, shape, order), *declared_dtype_);
//< until 10
//> stage 10
        output_ ? *output_
                : empty_with_strides(shape, output_strides(inputs_, shape, order), *declared_dtype_,
                                     inputs_.empty() ? Device::CPU : inputs_.front().device());
//< stage 10
    if (!output_) {
        strides.insert(strides.begin(), broadcast_byte_strides(output, shape));
    }
    iter.operands_.push_back(output);
    iter.operands_.insert(iter.operands_.end(), inputs_.begin(), inputs_.end());
    // 5.
    coalesce(shape, strides, order, iter.shape_, iter.strides_);
    return iter;
}

std::string TensorIterator::describe() const {
    std::ostringstream text;
    text << "loop shape " << to_string(shape_) << "; byte strides: out " << to_string(strides_[0]);
    for (std::size_t i = 1; i < strides_.size(); ++i) {
        text << ", in" << i - 1 << ' ' << to_string(strides_[i]);
    }
    return text.str();
}

}  // namespace kael
