#include "kael/iterator.h"

#include <sstream>
#include <utility>

#include "kael/broadcast.h"
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

// Operand strides in bytes over the broadcast shape: missing leading dimensions and
// stretched size-1 dimensions get stride 0, so every position reads the same element.
Strides broadcast_byte_strides(const Tensor& t, const Shape& shape) {
    Strides strides(shape.size(), 0);
    const std::size_t lead = shape.size() - t.shape().size();
    const std::int64_t size = element_size(t.dtype());
    for (std::size_t i = 0; i < t.shape().size(); ++i) {
        if (t.shape()[i] != 1) {
            strides[lead + i] = t.strides()[i] * size;
        }
    }
    return strides;
}

// True when dimension `outer` should move inside dimension `inner`: the first operand
// whose strides tell the two apart decides, and the larger stride goes outside. Stride 0
// (broadcast) says nothing about memory order, so it is skipped.
bool should_swap(const std::vector<Strides>& strides, std::size_t outer, std::size_t inner) {
    for (const Strides& s : strides) {
        if (s[outer] == 0 || s[inner] == 0 || s[outer] == s[inner]) {
            continue;
        }
        return s[outer] < s[inner];
    }
    return false;
}

}  // namespace

TensorIterator TensorIteratorConfig::build() {
    KAEL_CHECK(output_.has_value() != declared_dtype_.has_value(),
               "a TensorIterator needs exactly one output, added or declared");
    KAEL_CHECK(inputs_.size() + 1 <= TensorIterator::kMaxOperands,
               "a TensorIterator handles at most " << TensorIterator::kMaxOperands << " operands");

    std::vector<Shape> input_shapes;
    for (const Tensor& input : inputs_) {
        input_shapes.push_back(input.shape());
        KAEL_CHECK_TYPE(mixed_input_dtypes_ || input.dtype() == inputs_.front().dtype(),
                        "iterator inputs must share a dtype, got " << inputs_.front().dtype()
                                                                   << " and " << input.dtype());
        KAEL_CHECK(input.device() == Device::CPU, "the CPU iterator got an input on "
                                                      << input.device());
    }
    // An output that is written in place takes part in broadcasting too, but the inputs
    // may only stretch to its shape, never the other way round.
    if (output_) {
        input_shapes.push_back(output_->shape());
    }
    const Shape shape = broadcast_shapes(input_shapes);

    TensorIterator iter;
    if (output_) {
        KAEL_CHECK_VALUE(output_->shape() == shape,
                         "output with shape " << to_string(output_->shape())
                                              << " doesn't match the broadcast shape "
                                              << to_string(shape));
        KAEL_CHECK(output_->device() == Device::CPU, "the CPU iterator got an output on "
                                                         << output_->device());
        iter.operands_.push_back(*output_);
    } else {
        iter.operands_.push_back(empty(shape, *declared_dtype_));
    }
    iter.operands_.insert(iter.operands_.end(), inputs_.begin(), inputs_.end());
    for (const Tensor& operand : iter.operands_) {
        iter.strides_.push_back(broadcast_byte_strides(operand, shape));
    }

    // A size-1 dimension has one index and never steps, so it says nothing about memory
    // order and has nothing to merge: leave it out of the loop altogether.
    std::vector<std::size_t> order;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] != 1) {
            order.push_back(d);
        }
    }

    // Reorder: outermost dimension first, the one stepping the least memory last, so the
    // inner loop walks memory forward in the smallest steps (insertion sort: stable, and
    // the number of dimensions is small).
    for (std::size_t i = 1; i < order.size(); ++i) {
        for (std::size_t j = i; j > 0 && should_swap(iter.strides_, order[j - 1], order[j]); --j) {
            std::swap(order[j - 1], order[j]);
        }
    }

    // Coalesce: merge an outer dimension into the inner one next to it whenever, for every
    // operand, stepping once along the outer dimension equals stepping across the whole
    // inner one. The merged dimension then steps like the inner one.
    Shape merged_shape;
    std::vector<Strides> merged(iter.strides_.size());
    for (const std::size_t d : order) {
        const std::int64_t size = shape[d];
        bool merge = !merged_shape.empty();
        for (std::size_t op = 0; merge && op < merged.size(); ++op) {
            merge = merged[op].back() == iter.strides_[op][d] * size;
        }
        if (merge) {
            for (std::size_t op = 0; op < merged.size(); ++op) {
                merged[op].back() = iter.strides_[op][d];
            }
            merged_shape.back() *= size;
        } else {
            merged_shape.push_back(size);
            for (std::size_t op = 0; op < merged.size(); ++op) {
                merged[op].push_back(iter.strides_[op][d]);
            }
        }
    }
    iter.shape_ = std::move(merged_shape);
    iter.strides_ = std::move(merged);
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
