// Views: every function here computes new metadata and hands it to as_strided, which
// builds a new impl over the same storage and validates it.
#include "kael/view.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "core/native.h"
#include "kael/checked_math.h"

namespace kael {
namespace {

std::size_t position(std::int64_t dim) { return static_cast<std::size_t>(dim); }

// ---- the funnel ---------------------------------------------------------------------------

// The funnel of every view: a new impl over self's storage with the given metadata,
// validated like any other tensor. as_strided, each named view and detach() come here.
Tensor make_view(const Tensor& self, const Shape& shape, const Strides& strides, std::int64_t offset) {
    auto view = std::make_shared<TensorImpl>();
    view->storage = self.impl()->storage;  // shared: the view reads and writes the same bytes
    view->shape = shape;
    view->strides = strides;
    view->offset = offset;
    view->dtype = self.dtype();
    view->device = self.device();
    return Tensor::from_impl(std::move(view));
}

}  // namespace

// ---- shape arithmetic for view and reshape -------------------------------------------------

Shape infer_size(const Shape& shape, std::int64_t count) {
    std::optional<std::size_t> inferred;
    std::int64_t known = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            KAEL_CHECK_VALUE(!inferred, "only one dimension can be inferred, got shape "
                                            << to_string(shape));
            inferred = i;
        } else {
            KAEL_CHECK_VALUE(shape[i] >= 0, "invalid shape dimension " << shape[i] << " in "
                                                                       << to_string(shape));
            known = detail::checked_mul(known, shape[i], "number of elements");
        }
    }
    Shape result = shape;
    if (inferred) {
        KAEL_CHECK_VALUE(known != 0, "cannot reshape a tensor of " << count << " elements into shape "
                                         << to_string(shape)
                                         << ": the -1 could be any size");
        KAEL_CHECK_VALUE(count % known == 0, "shape " << to_string(shape)
                                                      << " is invalid for input of size " << count);
        result[*inferred] = count / known;
    }
    KAEL_CHECK_VALUE(numel(result) == count,
                     "shape " << to_string(shape) << " is invalid for input of size " << count);
    return result;
}

std::optional<Strides> view_strides(const Shape& old_shape, const Strides& old_strides,
                                    const Shape& new_shape) {
    // Arguments that describe no tensor are refused before the walk below reads them.
    KAEL_CHECK_VALUE(old_shape.size() == old_strides.size(),
                     "view_strides: shape " << to_string(old_shape) << " and strides " << to_string(old_strides)
                                            << " have different numbers of dimensions");
    KAEL_CHECK_VALUE(std::all_of(old_strides.begin(), old_strides.end(), [](std::int64_t s) { return s >= 0; }),
                     "view_strides: negative stride in " << to_string(old_strides));
    KAEL_CHECK_VALUE(numel(new_shape) == numel(old_shape),
                     "view_strides: shape " << to_string(new_shape) << " does not hold the " << numel(old_shape)
                                            << " elements of shape " << to_string(old_shape));
    if (old_shape.empty()) {
        return Strides(new_shape.size(), 1);  // one element: any strides address it
    }
    if (numel(old_shape) == 0) {
        // Nothing is read, so any strides are valid; keep the old ones when nothing changes.
        return old_shape == new_shape ? old_strides : contiguous_strides(new_shape);
    }
    // Walk the old dimensions from the innermost, grouping them into "chunks" that are
    // contiguous with each other in memory. Within a chunk, elements are evenly spaced
    // by the chunk's base stride, so the new dimensions that cover exactly that chunk can
    // take any sizes. A new dimension that would straddle two chunks cannot be expressed.
    Strides new_strides(new_shape.size());
    auto view_d = static_cast<std::int64_t>(new_shape.size()) - 1;
    std::int64_t chunk_base_stride = old_strides.back();
    std::int64_t tensor_numel = 1;
    std::int64_t view_numel = 1;
    for (auto tensor_d = static_cast<std::int64_t>(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
        tensor_numel *= old_shape[position(tensor_d)];
        // The sizes' products cannot overflow (both shapes hold numel(old_shape) elements), but
        // strides that no storage could hold can make these products overflow.
        const bool chunk_ends =
            tensor_d == 0 ||
            (old_shape[position(tensor_d - 1)] != 1 &&
             old_strides[position(tensor_d - 1)] != detail::checked_mul(tensor_numel, chunk_base_stride, "view stride"));
        if (!chunk_ends) {
            continue;
        }
        while (view_d >= 0 && (view_numel < tensor_numel || new_shape[position(view_d)] == 1)) {
            new_strides[position(view_d)] = detail::checked_mul(view_numel, chunk_base_stride, "view stride");
            view_numel *= new_shape[position(view_d)];
            --view_d;
        }
        if (view_numel != tensor_numel) {
            return std::nullopt;
        }
        if (tensor_d > 0) {
            chunk_base_stride = old_strides[position(tensor_d - 1)];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    if (view_d != -1) {
        return std::nullopt;
    }
    return new_strides;
}

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the views below autograd: kael::slice, which Tensor::slice
// calls, is the autograd layer's (autograd/functions/views.cpp), which makes the view here
// and records its backward.
namespace kael::native {
//< stage 7

Tensor as_strided(const Tensor& self, const Shape& shape, const Strides& strides, std::int64_t offset) {
    return make_view(self, shape, strides, offset);
}

Tensor view(const Tensor& self, const Shape& shape) {
    const Shape target = infer_size(shape, self.numel());
    const std::optional<Strides> strides = view_strides(self.shape(), self.strides(), target);
    KAEL_CHECK_VALUE(strides.has_value(),
                     "view size " << to_string(target) << " is not compatible with the size "
                                  << to_string(self.shape()) << " and strides "
                                  << to_string(self.strides())
                                  << " of the input (a new dimension would span two regions "
                                     "that are not contiguous with each other); use reshape()");
    return make_view(self, target, *strides, self.offset());
}

// A view when the strides allow one, a copy otherwise.
Tensor reshape(const Tensor& self, const Shape& shape) {
    const Shape target = infer_size(shape, self.numel());
    if (view_strides(self.shape(), self.strides(), target)) {
        return native::view(self, target);
    }
    return native::view(native::clone(self), target);
}

Tensor transpose(const Tensor& self, std::int64_t dim0, std::int64_t dim1) {
    if (self.dim() == 0) {
        (void)wrap_dim(dim0, 0);
        (void)wrap_dim(dim1, 0);
        return make_view(self, self.shape(), self.strides(), self.offset());
    }
    const std::size_t a = dim_position(dim0, self.dim());
    const std::size_t b = dim_position(dim1, self.dim());
    Shape shape = self.shape();
    Strides strides = self.strides();
    std::swap(shape[a], shape[b]);
    std::swap(strides[a], strides[b]);
    return make_view(self, shape, strides, self.offset());
}

Tensor permute(const Tensor& self, const std::vector<std::int64_t>& dims) {
    KAEL_CHECK_VALUE(static_cast<std::int64_t>(dims.size()) == self.dim(),
                     "permute got " << dims.size() << " dimensions " << to_string(dims)
                                    << " for a tensor with " << self.dim() << " dimensions");
    Shape shape(dims.size());
    Strides strides(dims.size());
    std::vector<bool> seen(dims.size(), false);
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const std::size_t source = dim_position(dims[i], self.dim());
        KAEL_CHECK_VALUE(!seen[source], "permute got dimension " << source << " twice in "
                                                                 << to_string(dims));
        seen[source] = true;
        shape[i] = self.shape()[source];
        strides[i] = self.strides()[source];
    }
    return make_view(self, shape, strides, self.offset());
}

Tensor slice(const Tensor& self, std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end, std::int64_t step) {
    const std::size_t d = dim_position(dim, self.dim());
    KAEL_CHECK_VALUE(step > 0, "slice step must be positive, got " << step);
    const std::int64_t size = self.shape()[d];
    // Python slicing: a negative bound counts from the end once, and what is still out of
    // range is clamped; an end before the start gives an empty slice.
    std::int64_t first = start.value_or(0);
    std::int64_t last = end.value_or(size);
    first = std::clamp<std::int64_t>(first < 0 ? first + size : first, 0, size);
    last = std::clamp<std::int64_t>(last < 0 ? last + size : last, first, size);
    Shape shape = self.shape();
    Strides strides = self.strides();
    // ceil((last - first) / step), written so that a step near the int64 limit cannot overflow.
    shape[d] = last == first ? 0 : (last - first - 1) / step + 1;
    const std::int64_t offset =
        detail::checked_add(self.offset(), detail::checked_mul(first, strides[d], "slice offset"),
                            "slice offset");
    strides[d] = detail::checked_mul(strides[d], step, "slice stride");
    return make_view(self, shape, strides, offset);
}

Tensor select(const Tensor& self, std::int64_t dim, std::int64_t index) {
    KAEL_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-d tensor");
    const std::size_t d = dim_position(dim, self.dim());
    const std::int64_t size = self.shape()[d];
    KAEL_CHECK_INDEX(index >= -size && index < size,
                     "select(): index " << index << " out of range for tensor of size "
                                        << to_string(self.shape()) << " at dimension " << d);
    const std::int64_t wrapped = index < 0 ? index + size : index;
    Shape shape = self.shape();
    Strides strides = self.strides();
    // Checked: an empty tensor's strides may be any size (it reads nothing), so this offset
    // can overflow even for an index in range.
    const std::int64_t offset = detail::checked_add(
        self.offset(), detail::checked_mul(wrapped, strides[d], "select offset"), "select offset");
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(d));
    strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(d));
    return make_view(self, shape, strides, offset);
}

Tensor expand(const Tensor& self, const Shape& shape) {
    KAEL_CHECK_VALUE(shape.size() >= self.shape().size(),
                     "expand: the number of sizes provided (" << shape.size()
                         << ") must be at least the number of dimensions of the tensor ("
                         << self.dim() << ")");
    const std::size_t added = shape.size() - self.shape().size();
    Shape sizes(shape.size());
    Strides strides(shape.size());
    for (std::size_t i = shape.size(); i-- > 0;) {
        const bool existing = i >= added;
        std::int64_t size = existing ? self.shape()[i - added] : 1;
        // A new leading dimension of size 1 steps over everything inside it. Only one that
        // stays size 1 needs that product (an expanded one gets stride 0 below), and it is
        // checked: an empty tensor's strides may be any size.
        const bool stays_one = !existing && shape[i] == 1 && i + 1 < shape.size();
        std::int64_t stride = existing    ? self.strides()[i - added]
                              : stays_one ? detail::checked_mul(sizes[i + 1], strides[i + 1], "expand stride")
                                          : 1;
        std::int64_t target = shape[i];
        if (target == -1) {
            KAEL_CHECK_VALUE(existing, "expand: -1 is not allowed for the new leading dimension "
                                           << i << " in " << to_string(shape));
            target = size;
        }
        KAEL_CHECK_VALUE(target >= 0, "expand: invalid size " << target << " in " << to_string(shape));
        if (size != target) {
            KAEL_CHECK_VALUE(size == 1, "expand: the expanded size " << target
                                            << " must match the existing size " << size
                                            << " at non-singleton dimension " << i
                                            << "; target sizes " << to_string(shape)
                                            << ", tensor sizes " << to_string(self.shape()));
            size = target;
            stride = 0;  // every position along this dimension reads the same element
        }
        sizes[i] = size;
        strides[i] = stride;
    }
    return make_view(self, sizes, strides, self.offset());
}

Tensor squeeze(const Tensor& self) {
    Shape shape;
    Strides strides;
    for (std::size_t i = 0; i < self.shape().size(); ++i) {
        if (self.shape()[i] != 1) {
            shape.push_back(self.shape()[i]);
            strides.push_back(self.strides()[i]);
        }
    }
    return make_view(self, shape, strides, self.offset());
}

Tensor squeeze(const Tensor& self, std::int64_t dim) {
    const std::int64_t d = wrap_dim(dim, self.dim());
    Shape shape = self.shape();
    Strides strides = self.strides();
    if (self.dim() > 0 && shape[position(d)] == 1) {
        shape.erase(shape.begin() + d);
        strides.erase(strides.begin() + d);
    }
    return make_view(self, shape, strides, self.offset());
}

Tensor unsqueeze(const Tensor& self, std::int64_t dim) {
    const std::int64_t d = wrap_dim(dim, self.dim() + 1);
    Shape shape = self.shape();
    Strides strides = self.strides();
    // The new dimension has size 1, so its stride is never used to step; PyTorch picks the
    // one that keeps a contiguous tensor contiguous. Checked: an empty tensor's strides may
    // be any size.
    const std::int64_t stride =
        d >= self.dim() ? 1 : detail::checked_mul(shape[position(d)], strides[position(d)], "unsqueeze stride");
    shape.insert(shape.begin() + d, 1);
    strides.insert(strides.begin() + d, stride);
    return make_view(self, shape, strides, self.offset());
}

Tensor unflatten(const Tensor& self, std::int64_t dim, const Shape& sizes) {
    const std::size_t d = dim_position(dim, self.dim());
    KAEL_CHECK_VALUE(!sizes.empty(), "unflatten: sizes must not be empty");
    const Shape split = infer_size(sizes, self.shape()[d]);
    // Splitting one dimension is always a view: the pieces step through it row-major.
    const Strides inner = contiguous_strides(split);
    Shape shape = self.shape();
    Strides strides = self.strides();
    const std::int64_t base = strides[d];
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(d));
    strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(d));
    for (std::size_t i = split.size(); i-- > 0;) {
        shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(d), split[i]);
        // Checked: an empty tensor's strides may be any size.
        strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d),
                       detail::checked_mul(inner[i], base, "unflatten stride"));
    }
    return make_view(self, shape, strides, self.offset());
}

}  // namespace

namespace kael {

Tensor Tensor::detach() const {
    return make_view(*this, shape(), strides(), offset());
}

// ---- overlap ----------------------------------------------------------------------------------

namespace {

// The dimensions that step (size above 1) as (stride, size) pairs, smallest stride first.
// Size-1 dimensions are left out: their stride never moves anything.
std::vector<std::pair<std::int64_t, std::int64_t>> steps_by_stride(const Tensor& t) {
    std::vector<std::pair<std::int64_t, std::int64_t>> steps;
    for (std::size_t i = 0; i < t.shape().size(); ++i) {
        if (t.shape()[i] > 1) {
            steps.emplace_back(t.strides()[i], t.shape()[i]);
        }
    }
    std::sort(steps.begin(), steps.end());
    return steps;
}

}  // namespace

MemOverlap has_internal_overlap(const Tensor& t) {
    if (t.is_contiguous()) {
        return MemOverlap::No;
    }
    // A dimension that steps with stride 0 names one element several times. Otherwise, if
    // each stride is larger than the furthest reach of all smaller-stride dimensions, no
    // two positions can meet.
    const auto steps = steps_by_stride(t);
    if (!steps.empty() && steps.front().first == 0) {
        return MemOverlap::Yes;
    }
    std::int64_t reach = 0;  // the largest offset the smaller dimensions can add
    for (const auto& [stride, size] : steps) {
        if (stride <= reach) {
            return MemOverlap::TooHard;
        }
        reach += stride * (size - 1);
    }
    return MemOverlap::No;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
    if (t.is_contiguous()) {
        return true;  // empty tensors included
    }
    // From the smallest stride up, each dimension must step exactly over everything inside it.
    std::int64_t expected = 1;
    for (const auto& [stride, size] : steps_by_stride(t)) {
        if (stride != expected) {
            return false;
        }
        expected *= size;
    }
    return true;
}

std::pair<std::int64_t, std::int64_t> reachable_bytes(const Tensor& t) {
    if (t.numel() == 0) {
        return {0, 0};
    }
    std::int64_t last = t.offset();
    for (std::size_t i = 0; i < t.shape().size(); ++i) {
        last += (t.shape()[i] - 1) * t.strides()[i];
    }
    const std::int64_t size = element_size(t.dtype());
    return {t.offset() * size, (last + 1) * size};
}

bool may_partially_overlap(const Tensor& a, const Tensor& b) {
    if (a.numel() == 0 || b.numel() == 0 || !a.shares_storage(b)) {
        return false;
    }
    if (a.shape() == b.shape() && a.strides() == b.strides() && a.offset() == b.offset() &&
        a.dtype() == b.dtype()) {
        return false;  // the very same elements: a full overlap, which element-wise ops handle
    }
    // Compare the byte ranges each tensor can reach.
    const auto [a_begin, a_end] = reachable_bytes(a);
    const auto [b_begin, b_end] = reachable_bytes(b);
    return a_begin < b_end && b_begin < a_end;
}

}  // namespace kael
