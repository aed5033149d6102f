// Backward formulas shared by the views (views.h).
#include "autograd/views.h"

#include <algorithm>
#include <utility>

#include "autograd/recording.h"
#include "kael/factory.h"
#include "kael/view.h"
#include "ops/native.h"

namespace kael::autograd {
namespace {

// The storage position of every element of `t`, as an int64 tensor of t's shape.
Tensor storage_positions(const Tensor& t) {
    Tensor positions = empty(t.shape(), DType::I64);
    std::int64_t* out = positions.data_ptr<std::int64_t>();
    Index index(t.shape().size(), 0);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        out[i] = offset_from_index(t.shape(), t.strides(), t.offset(), index);
        for (std::size_t d = index.size(); d-- > 0;) {  // the odometer: last dimension fastest
            if (++index[d] < t.shape()[d]) {
                break;
            }
            index[d] = 0;
        }
    }
    return positions;
}

}  // namespace

Tensor embed(const Tensor& grad, const Shape& shape, const ViewFunction& view_of, const char* name) {
    Tensor result = zeros(shape, grad.dtype(), grad.device());
    {
        // The placement itself records nothing (the node below stands for it), so it runs
        // on the operations below autograd.
        const NoGradGuard no_grad;
        Tensor target = view_of(result);
        if (has_internal_overlap(target) == MemOverlap::No) {
            native::copy_(target, grad);
        } else {
            // Several positions of the view share an element: each adds its contribution.
            const Tensor positions = storage_positions(target).reshape({-1}).to(grad.device());
            result = native::scatter_add(result.reshape({-1}), 0, positions, grad.reshape({-1})).view(shape);
        }
    }
    if (should_record(grad)) {
        record(result, name, {grad}, [view_of](const Tensor& grad_grad, Node&) { return Grads{view_of(grad_grad)}; });
    }
    return result;
}

Tensor as_strided_backward(const Tensor& grad, const Shape& base_shape, const Strides& base_strides,
                           std::int64_t base_offset, const Shape& shape, const Strides& strides, std::int64_t offset) {
    // Work in a buffer covering the storage positions both layouts reach.
    auto last_position = [](const Shape& s, const Strides& st, std::int64_t first) {
        std::int64_t last = first;
        for (std::size_t d = 0; d < s.size(); ++d) {
            last += (s[d] - 1) * st[d];
        }
        return last;
    };
    if (numel(base_shape) == 0 || numel(shape) == 0) {
        return zeros(base_shape, grad.dtype(), grad.device());
    }
    const std::int64_t first = std::min(base_offset, offset);
    const std::int64_t length =
        std::max(last_position(base_shape, base_strides, base_offset), last_position(shape, strides, offset)) - first + 1;
    {
        const NoGradGuard no_grad;
        const Tensor probe = zeros({length}).as_strided(base_shape, base_strides, base_offset - first);
        KAEL_CHECK(has_internal_overlap(probe) == MemOverlap::No,
                   "as_strided backward: the input's elements overlap in memory (it is expanded, strides "
                       << to_string(base_strides) << "), so its gradient is ambiguous; call contiguous() on the "
                                                     "input before as_strided");
    }
    const Tensor in_storage = embed(grad, {length}, [=](const Tensor& buffer) {
        return buffer.as_strided(shape, strides, offset - first);
    }, "AsStridedBackwardBackward");
    return in_storage.as_strided(base_shape, base_strides, base_offset - first);
}

ViewOfBase::ViewOfBase(const Tensor& base, const Tensor& view)
    : Node("AsStridedBackward"), base_strides_(base.strides()), base_offset_(base.offset()), shape_(view.shape()),
      strides_(view.strides()), offset_(view.offset()) {}

Grads ViewOfBase::apply(Grads grads) {
    return Grads{as_strided_backward(*grads.at(0), input_meta()[0].shape, base_strides_, base_offset_, shape_,
                                     strides_, offset_)};
}

}  // namespace kael::autograd
