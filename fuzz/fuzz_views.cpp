// libFuzzer target: views and the shape arithmetic under them. The bytes become a small
// real tensor and a sequence of calls on it, each with shapes, strides, offsets and
// dimensions from the bytes (fuzz_input.h). Any call may refuse its arguments, but only
// with a kael::Error. What it returns must hold up:
// - every view stays inside its storage, and every element is read through at();
// - a view that only regroups dimensions (view, reshape, flatten, ...) keeps the elements
//   in their order;
// - the overlap queries tell the truth about the positions the elements occupy;
// - the shape functions' results are checked against the same arithmetic done here.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "kael/factory.h"
#include "kael/shape.h"
#include "kael/view.h"

namespace {

using kael::DType;
using kael::Index;
using kael::Shape;
using kael::Strides;
using kael::Tensor;
using kael::fuzz::FuzzInput;
using kael::fuzz::require;
using kael::fuzz::succeeds;

constexpr std::int64_t kMaxBaseElements = 64;
// Views of more elements (an expand to [2^40] is one call) are read at their first and
// last element only.
constexpr std::int64_t kMaxReadElements = 4096;
// reshape() and contiguous() may copy; copying more would test the allocator, not views.
constexpr std::int64_t kMaxCopyElements = 1 << 16;
constexpr int kMaxCalls = 16;

// ---- Arithmetic done here, independently of kael -----------------------------------------

// offset + sum of index[i] * strides[i], or nothing when it overflows int64.
std::optional<std::int64_t> position_of(const Index& index, const Strides& strides, std::int64_t offset) {
    std::int64_t position = offset;
    for (std::size_t i = 0; i < index.size(); ++i) {
        std::int64_t step = 0;
        if (__builtin_mul_overflow(index[i], strides[i], &step) || __builtin_add_overflow(position, step, &position)) {
            return std::nullopt;
        }
    }
    return position;
}

// The product of the sizes, or nothing when it overflows int64.
std::optional<std::int64_t> product(const Shape& shape) {
    std::int64_t count = 1;
    for (const std::int64_t size : shape) {
        if (__builtin_mul_overflow(count, size, &count)) {
            return std::nullopt;
        }
    }
    return count;
}

// The index after `index` in row-major order; false after the last.
bool advance(Index& index, const Shape& shape) {
    for (std::size_t i = index.size(); i-- > 0;) {
        if (++index[i] < shape[i]) {
            return true;
        }
        index[i] = 0;
    }
    return false;
}

// The indices of a tensor's elements in row-major order: all of them, or for a large
// tensor its first and last, the two ends of its reach.
std::vector<Index> indices_to_read(const Tensor& t) {
    if (t.numel() == 0) {
        return {};
    }
    Index index(t.shape().size(), 0);
    if (t.numel() > kMaxReadElements) {
        Index last = t.shape();
        for (std::int64_t& i : last) {
            --i;
        }
        return {index, last};
    }
    std::vector<Index> all;
    do {
        all.push_back(index);
    } while (advance(index, t.shape()));
    return all;
}

// ---- What every view must satisfy ----------------------------------------------------------

// The element at each index lies inside the storage, at the position the strides give,
// and at() reads it there.
void check_inside_storage(const Tensor& t) {
    const std::int64_t element_size = kael::element_size(t.dtype());
    const std::int64_t storage_elements = t.impl()->storage->nbytes() / element_size;
    const std::byte* storage = t.impl()->storage->data();
    for (const Index& index : indices_to_read(t)) {
        const std::optional<std::int64_t> position = position_of(index, t.strides(), t.offset());
        require(position.has_value(), "a view's element position overflows int64");
        require(*position >= 0 && *position < storage_elements, "a view reaches outside its storage");
        kael::dispatch(t.dtype(), [&]<typename T>() {
            const T& element = t.at<T>(index);
            require(reinterpret_cast<const std::byte*>(&element) == storage + *position * element_size,
                    "at() reads another element than the strides name");
            volatile T keep = element;  // read it, so that AddressSanitizer sees the access
            (void)keep;
        });
    }
}

// The elements in row-major order, as doubles (every element of the base is a small integer).
std::vector<double> elements(const Tensor& t) {
    std::vector<double> values;
    kael::dispatch(t.dtype(), [&]<typename T>() {
        for (const Index& index : indices_to_read(t)) {
            values.push_back(static_cast<double>(t.at<T>(index)));
        }
    });
    return values;
}

// The storage positions of a tensor's elements (check_inside_storage has checked them).
std::multiset<std::int64_t> positions(const Tensor& t) {
    std::multiset<std::int64_t> all;
    for (const Index& index : indices_to_read(t)) {
        all.insert(*position_of(index, t.strides(), t.offset()));
    }
    return all;
}

// What the overlap queries claim about `t`, and about `t` and `other` over the same
// storage, checked against the positions their elements occupy.
void check_overlap_queries(const Tensor& t, const Tensor& other) {
    if (t.numel() > kMaxReadElements || other.numel() > kMaxReadElements) {
        return;
    }
    const std::multiset<std::int64_t> mine = positions(t);
    const std::set<std::int64_t> distinct(mine.begin(), mine.end());
    const bool repeats = distinct.size() != mine.size();
    switch (kael::has_internal_overlap(t)) {
    case kael::MemOverlap::No:
        require(!repeats, "has_internal_overlap says No, but two positions name one element");
        break;
    case kael::MemOverlap::Yes:
        require(repeats, "has_internal_overlap says Yes, but every position names its own element");
        break;
    case kael::MemOverlap::TooHard:
        break;
    }
    if (t.numel() > 0 && kael::is_non_overlapping_and_dense(t)) {
        require(!repeats && *distinct.rbegin() - *distinct.begin() + 1 == t.numel(),
                "is_non_overlapping_and_dense holds, but the elements do not fill one block exactly once");
    }
    // false promises that no element is shared, unless both are the very same layout.
    if (!kael::may_partially_overlap(t, other)) {
        const bool same_layout = t.shape() == other.shape() && t.strides() == other.strides() && t.offset() == other.offset();
        const std::multiset<std::int64_t> theirs = positions(other);
        const bool shared = std::any_of(distinct.begin(), distinct.end(), [&](std::int64_t p) { return theirs.count(p) > 0; });
        require(same_layout || !shared, "may_partially_overlap says no, but the two share an element");
    }
}

// ---- The views --------------------------------------------------------------------------

enum class ViewCall : std::uint8_t {
    AsStrided, View, Reshape, Slice, Select, Narrow, Expand, Permute, Transpose, Squeeze,
    SqueezeDim, Unsqueeze, Flatten, Unflatten, T, MT, Contiguous, Detach,
    kMaxValue = Detach,
};

// reshape, flatten and contiguous copy when the strides force them to, so they keep the
// order but may leave the storage.
bool keeps_order(ViewCall call) {
    return call == ViewCall::View || call == ViewCall::Reshape || call == ViewCall::Flatten ||
           call == ViewCall::Unflatten || call == ViewCall::Squeeze || call == ViewCall::SqueezeDim ||
           call == ViewCall::Unsqueeze || call == ViewCall::Contiguous || call == ViewCall::Detach;
}

bool may_copy(ViewCall call) {
    return call == ViewCall::Reshape || call == ViewCall::Flatten || call == ViewCall::Contiguous;
}

Tensor call_view(ViewCall call, const Tensor& t, FuzzInput& in) {
    switch (call) {
    case ViewCall::AsStrided: {
        const Shape shape = in.numbers();
        const Strides strides = in.numbers();
        return kael::as_strided(t, shape, strides, in.number());
    }
    case ViewCall::View:
        return t.view(in.numbers());
    case ViewCall::Reshape:
        return t.reshape(in.numbers());
    case ViewCall::Slice: {
        const std::int64_t dim = in.number();
        const std::optional<std::int64_t> start = in.maybe_number();
        const std::optional<std::int64_t> end = in.maybe_number();
        return t.slice(dim, start, end, in.number());
    }
    case ViewCall::Select: {
        const std::int64_t dim = in.number();
        return t.select(dim, in.number());
    }
    case ViewCall::Narrow: {
        const std::int64_t dim = in.number();
        const std::int64_t start = in.number();
        return t.narrow(dim, start, in.number());
    }
    case ViewCall::Expand:
        return t.expand(in.numbers());
    case ViewCall::Permute:
        return t.permute(in.numbers());
    case ViewCall::Transpose: {
        const std::int64_t dim0 = in.number();
        return t.transpose(dim0, in.number());
    }
    case ViewCall::Squeeze:
        return t.squeeze();
    case ViewCall::SqueezeDim:
        return t.squeeze(in.number());
    case ViewCall::Unsqueeze:
        return t.unsqueeze(in.number());
    case ViewCall::Flatten: {
        const std::int64_t start = in.number();
        return t.flatten(start, in.number());
    }
    case ViewCall::Unflatten: {
        const std::int64_t dim = in.number();
        return t.unflatten(dim, in.numbers());
    }
    case ViewCall::T:
        return t.T();
    case ViewCall::MT:
        return t.mT();
    case ViewCall::Contiguous:
        return t.contiguous();
    case ViewCall::Detach:
        return t.detach();
    }
    kael::detail::unreachable();
}

// ---- The shape arithmetic ------------------------------------------------------------------

enum class ShapeCall : std::uint8_t {
    Numel, ContiguousStrides, OffsetFromIndex, IndexFromLinear, WrapDim, DimPosition, InferSize, ViewStrides,
    kMaxValue = ViewStrides,
};

void check_shape_call(ShapeCall call, FuzzInput& in) {
    switch (call) {
    case ShapeCall::Numel: {
        const Shape shape = in.numbers();
        std::int64_t count = 0;
        if (succeeds([&] { count = kael::numel(shape); })) {
            const bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
            require(has_zero ? count == 0 : product(shape) == count, "numel is not the product of the sizes");
        }
        return;
    }
    case ShapeCall::ContiguousStrides: {
        const Shape shape = in.numbers();
        Strides strides;
        if (succeeds([&] { strides = kael::contiguous_strides(shape); })) {
            require(strides.size() == shape.size() && (shape.empty() || strides.back() == 1),
                    "contiguous strides must end in 1");
            for (std::size_t i = 0; i + 1 < shape.size(); ++i) {
                require(strides[i] == strides[i + 1] * std::max<std::int64_t>(shape[i + 1], 1),
                        "each contiguous stride is the next one times the next size");
            }
        }
        return;
    }
    case ShapeCall::OffsetFromIndex: {
        const Shape shape = in.numbers();
        const Strides strides = in.numbers();
        const std::int64_t offset = in.number();
        const Index index = in.numbers();
        std::int64_t position = 0;
        if (succeeds([&] { position = kael::offset_from_index(shape, strides, offset, index); })) {
            require(position_of(index, strides, offset) == position, "offset_from_index is not offset + index . strides");
        }
        return;
    }
    case ShapeCall::IndexFromLinear: {
        const std::int64_t linear = in.number();
        const Shape shape = in.numbers();
        Index index;
        if (succeeds([&] { index = kael::index_from_linear(linear, shape); })) {
            // Row-major positions of a contiguous layout count the elements: back to `linear`.
            std::int64_t back = -1;
            require(succeeds([&] { back = kael::offset_from_index(shape, kael::contiguous_strides(shape), 0, index); }),
                    "the index index_from_linear returns is refused by offset_from_index");
            require(back == linear, "index_from_linear and offset_from_index do not round-trip");
        }
        return;
    }
    case ShapeCall::WrapDim:
    case ShapeCall::DimPosition: {
        const std::int64_t dim = in.number();
        const std::int64_t ndim = in.number();
        std::int64_t wrapped = -1;
        if (succeeds([&] {
                wrapped = call == ShapeCall::WrapDim ? kael::wrap_dim(dim, ndim)
                                                     : static_cast<std::int64_t>(kael::dim_position(dim, ndim));
            })) {
            require(wrapped >= 0 && wrapped < std::max<std::int64_t>(ndim, 1), "a wrapped dimension is out of range");
            require(wrapped == dim || wrapped == dim + std::max<std::int64_t>(ndim, 1), "a wrapped dimension moved");
        }
        return;
    }
    case ShapeCall::InferSize: {
        const Shape shape = in.numbers();
        const std::int64_t count = in.number();
        Shape inferred;
        if (succeeds([&] { inferred = kael::infer_size(shape, count); })) {
            require(inferred.size() == shape.size(), "infer_size changed the number of dimensions");
            for (std::size_t i = 0; i < shape.size(); ++i) {
                require(shape[i] == -1 || inferred[i] == shape[i], "infer_size changed a size it was given");
            }
            require(kael::numel(inferred) == count, "infer_size's shape does not hold `count` elements");
        }
        return;
    }
    case ShapeCall::ViewStrides: {
        // Any arguments at all: the function is public, so nonsense must be refused, not read.
        const Shape old_shape = in.numbers();
        const Strides old_strides = in.numbers();
        const Shape new_shape = in.numbers();
        std::optional<Strides> strides;
        if (succeeds([&] { strides = kael::view_strides(old_shape, old_strides, new_shape); }) && strides) {
            require(strides->size() == new_shape.size(), "view_strides gave strides for another number of dimensions");
        }
        return;
    }
    }
    kael::detail::unreachable();
}

// ---- The target -------------------------------------------------------------------------

// A contiguous tensor of up to 64 elements 0, 1, 2, ... (Bool: 0, 1, 1, ...).
Tensor make_base(FuzzInput& in) {
    constexpr std::array<DType, 4> kDTypes{DType::F32, DType::F64, DType::I64, DType::Bool};
    const DType dtype = kDTypes[static_cast<std::size_t>(in.in_range(0, kDTypes.size() - 1))];
    const std::int64_t count = in.in_range(0, kMaxBaseElements);
    return kael::arange(static_cast<double>(count), DType::F64).to(dtype);
}

void check_view(ViewCall call, const Tensor& input, const Tensor& result) {
    require(result.dtype() == input.dtype(), "a view changed the dtype");
    require(may_copy(call) || result.shares_storage(input), "a view does not share its input's storage");
    check_inside_storage(result);
    // Large tensors are compared at their first and last element, which must match too.
    if (keeps_order(call)) {
        require(result.numel() == input.numel() && elements(result) == elements(input),
                "a view that regroups dimensions changed the elements or their order");
    }
    if (result.shares_storage(input)) {
        check_overlap_queries(result, input);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzInput in(data, size);
    Tensor current = make_base(in);
    for (int i = 0; i < kMaxCalls && !in.exhausted(); ++i) {
        if (in.flag()) {
            check_shape_call(in.pick<ShapeCall>(), in);
            continue;
        }
        const ViewCall call = in.pick<ViewCall>();
        if (may_copy(call) && current.numel() > kMaxCopyElements) {
            continue;
        }
        std::optional<Tensor> result;
        if (succeeds([&] { result = call_view(call, current, in); })) {
            check_view(call, current, *result);
            current = *result;
        }
    }
    return 0;
}
