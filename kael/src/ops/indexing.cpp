// Selecting and placing elements by index or mask.
#include "kael/ops/indexing.h"

#include <algorithm>
#include <cstring>

#include "ops/native.h"
#include "ops/elementwise.h"
#include "kael/factory.h"
#include "kael/ops/compare.h"
#include "kael/ops/inplace.h"
//> stage 10
#include "kael/device.h"
#include "cuda/indexing.h"
#include "ops/device.h"
//< stage 10

namespace kael {
namespace {

void check_index_dtype(const Tensor& index, const char* op) {
    KAEL_CHECK_TYPE(index.dtype() == DType::I64, op << " expects an int64 index, got dtype " << index.dtype());
}

// For gather and scatter_add: index has t's rank, and no dimension other than `dim` is
// larger than t's.
void check_gather_shapes(const Tensor& t, std::int64_t d, const Tensor& index, const char* op) {
    KAEL_CHECK_VALUE(index.dim() == t.dim(), op << ": index has " << index.dim()
                                                << " dimensions but the tensor has " << t.dim());
    for (std::int64_t i = 0; i < t.dim(); ++i) {
        KAEL_CHECK_VALUE(i == d || index.size(i) <= t.size(i),
                         op << ": index of shape " << to_string(index.shape()) << " is larger than the tensor of shape "
                            << to_string(t.shape()) << " at dimension " << i);
    }
}

// Calls visit(position in index/src, position along dim) for every element of `index`,
// with each operand's full position computed from its own strides.
template <typename Visit> void for_each_index(const Tensor& index, Visit visit) {
    const std::int64_t* values = index.data_ptr<std::int64_t>();
    const std::int64_t count = index.numel();
    for (std::int64_t linear = 0; linear < count; ++linear) {
        const Index position = index_from_linear(linear, index.shape());
        visit(position, values[offset_from_index(index.shape(), index.strides(), 0, position)]);
    }
}

template <bool lower> Tensor triangle(const Tensor& t, std::int64_t diagonal, const char* op) {
    KAEL_CHECK_VALUE(t.dim() >= 2, op << " expects a tensor with at least 2 dimensions, got " << t.dim());
    Tensor out = native::clone(native::contiguous(t));
    const std::int64_t rows = t.size(-2);
    const std::int64_t cols = t.size(-1);
//> stage 10
    if (detail::on_device(t)) {
        cuda::zero_triangle(lower, out, rows, cols, diagonal);
        return out;
    }
//< stage 10
    dispatch(t.dtype(), [&]<typename T>() {
        T* data = out.data_ptr<T>();
        const std::int64_t count = out.numel();
        for (std::int64_t start = 0; start < count; start += rows * cols) {
            for (std::int64_t r = 0; r < rows; ++r) {
                for (std::int64_t c = 0; c < cols; ++c) {
                    const bool keep = lower ? c - r <= diagonal : c - r >= diagonal;
                    if (!keep) {
                        data[start + r * cols + c] = T{0};
                    }
                }
            }
        }
    });
    return out;
}

//> stage 10
// ---- on a device --------------------------------------------------------------------------------
// A kernel cannot throw, so the indices are checked on the host first: copied over once,
// with the messages of the CPU loops.
void check_positions(const Tensor& index, std::int64_t size, std::int64_t d, const char* op) {
    const Tensor host = native::contiguous(native::to(index, Device::CPU));
    const std::int64_t* values = host.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < host.numel(); ++i) {
        KAEL_CHECK_INDEX(values[i] >= 0 && values[i] < size, op << "(): index " << values[i]
                                                             << " is out of bounds for dimension " << d
                                                             << " with size " << size);
    }
}

// `t` viewed with `shape` and stride 0 along `d`, for gather and scatter_add (cuda/indexing.h).
Tensor restrided(const Tensor& t, const Shape& shape, std::int64_t d) {
    Strides strides = t.strides();
    strides[static_cast<std::size_t>(d)] = 0;
    return native::as_strided(t, shape, strides, t.offset());
}

// index_select as a gather whose 1-d index is broadcast over every other dimension.
Tensor device_index_select(const Tensor& t, std::int64_t d, const Tensor& index) {
    check_same_device(t.device(), index.device());
    const Tensor positions = native::contiguous(native::reshape(index, {-1}));
    check_positions(positions, t.size(d), d, "index_select");
    Shape shape = t.shape();
    shape[static_cast<std::size_t>(d)] = positions.numel();
    Tensor out = empty(shape, t.dtype(), t.device());
    Strides along(shape.size(), 0);
    along[static_cast<std::size_t>(d)] = 1;
    cuda::gather(out, native::as_strided(positions, shape, along, positions.offset()), restrided(t, shape, d),
                 t.stride(d));
    return out;
}
//< stage 10

}  // namespace

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the operations below autograd: kael::gather, what users call,
// is the autograd layer's (autograd/functions/indexing.cpp), which runs native::gather and
// records its backward.
namespace kael::native {
//< stage 7

Tensor index_select(const Tensor& t, std::int64_t dim, const Tensor& index) {
    check_index_dtype(index, "index_select");
    KAEL_CHECK_VALUE(index.dim() <= 1, "index_select expects a 1-d or 0-d index, got shape " << to_string(index.shape()));
    if (t.dim() == 0) {
        (void)wrap_dim(dim, 0);
        return native::reshape(native::index_select(native::reshape(t, {1}), 0, index), index.shape());
    }
    const std::int64_t d = wrap_dim(dim, t.dim());
//> stage 10
    if (detail::on_device(t) || detail::on_device(index)) {
        return device_index_select(t, d, index);
    }
//< stage 10
    const Tensor positions = native::contiguous(native::reshape(index, {-1}));
    const std::int64_t* values = positions.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < positions.numel(); ++i) {
        KAEL_CHECK_INDEX(values[i] >= 0 && values[i] < t.size(d),
                         "index_select(): index " << values[i] << " is out of bounds for dimension " << d
                                                  << " with size " << t.size(d));
    }
    Shape shape = t.shape();
    shape[static_cast<std::size_t>(d)] = positions.numel();
    Tensor out = empty(shape, t.dtype());
    if (d == 0 && t.is_contiguous()) {
        // Rows of a contiguous tensor are contiguous blocks: copy each one whole (the
        // embedding lookup of every language model takes this path).
        const std::int64_t row_bytes = t.numel() == 0 ? 0 : t.nbytes() / t.size(0);
        for (std::int64_t i = 0; i < positions.numel() && row_bytes > 0; ++i) {
            std::memcpy(out.data_ptr_raw() + i * row_bytes, t.data_ptr_raw() + values[i] * row_bytes,
                        static_cast<std::size_t>(row_bytes));
        }
    } else {
        // Otherwise copy one slice per index: out.select(d, i) <- t.select(d, index[i]).
        for (std::int64_t i = 0; i < positions.numel(); ++i) {
            Tensor slot = native::select(out, d, i);
            native::copy_(slot, native::select(t, d, values[i]));
        }
    }
    return out;
}

Tensor gather(const Tensor& t, std::int64_t dim, const Tensor& index) {
    check_index_dtype(index, "gather");
    const std::int64_t d = wrap_dim(dim, t.dim());
    check_gather_shapes(t, d, index, "gather");
//> stage 10
    if ((detail::on_device(t) || detail::on_device(index)) && t.dim() > 0) {
        check_same_device(t.device(), index.device());
        check_positions(index, t.size(d), d, "gather");
        Tensor out = empty(index.shape(), t.dtype(), t.device());
        cuda::gather(out, index, restrided(t, index.shape(), d), t.stride(d));
        return out;
    }
    if (detail::on_device(t) || detail::on_device(index)) {  // 0-d: one element, on the host
        check_same_device(t.device(), index.device());
        return native::to(native::gather(native::to(t, Device::CPU), dim, native::to(index, Device::CPU)), t.device());
    }
//< stage 10
    Tensor out = empty(index.shape(), t.dtype());
    const auto axis = static_cast<std::size_t>(d);
    dispatch(t.dtype(), [&]<typename T>() {
        T* result = out.data_ptr<T>();
        std::int64_t written = 0;
        for_each_index(index, [&](Index position, std::int64_t value) {
            if (t.dim() > 0) {
                KAEL_CHECK_INDEX(value >= 0 && value < t.size(d), "gather(): index " << value
                                                                  << " is out of bounds for dimension " << d
                                                                  << " with size " << t.size(d));
                position[axis] = value;
            }
            result[written++] = t.at<T>(position);
        });
    });
    return out;
}

Tensor scatter_add(const Tensor& t, std::int64_t dim, const Tensor& index, const Tensor& src) {
    check_index_dtype(index, "scatter_add");
    KAEL_CHECK_TYPE(src.dtype() == t.dtype(), "scatter_add expects src of dtype " << t.dtype() << ", got " << src.dtype());
    const std::int64_t d = wrap_dim(dim, t.dim());
    Tensor out = native::clone(t);
    if (index.numel() == 0) {
        return out;  // nothing to add; PyTorch checks no shapes either
    }
    check_gather_shapes(t, d, index, "scatter_add");
    // Only the index's extent of src is read, so src may be larger than index, as in PyTorch.
    KAEL_CHECK_VALUE(src.dim() == index.dim(), "scatter_add: src has " << src.dim() << " dimensions but index has "
                                                                        << index.dim());
    for (std::int64_t i = 0; i < index.dim(); ++i) {
        KAEL_CHECK_VALUE(index.size(i) <= src.size(i), "scatter_add: index of shape " << to_string(index.shape())
                                                           << " is larger than src of shape " << to_string(src.shape())
                                                           << " at dimension " << i);
    }
//> stage 10
    if (detail::on_device(t) || detail::on_device(index) || detail::on_device(src)) {
        check_same_device(t.device(), index.device());
        check_same_device(t.device(), src.device());
        if (t.dim() == 0) {  // one element, on the host
            return native::to(native::scatter_add(native::to(t, Device::CPU), dim, native::to(index, Device::CPU), native::to(src, Device::CPU)), t.device());
        }
        check_positions(index, t.size(d), d, "scatter_add");
        cuda::scatter_add(restrided(out, index.shape(), d), out.stride(d), index,
                          native::as_strided(src, index.shape(), src.strides(), src.offset()));
        return out;
    }
//< stage 10
    const auto axis = static_cast<std::size_t>(d);
    dispatch(t.dtype(), [&]<typename T>() {
        for_each_index(index, [&](Index position, std::int64_t value) {
            const T addend = src.at<T>(position);
            if (t.dim() > 0) {
                KAEL_CHECK_INDEX(value >= 0 && value < t.size(d), "scatter_add(): index " << value
                                                                  << " is out of bounds for dimension " << d
                                                                  << " with size " << t.size(d));
                position[axis] = value;
            }
            T& target = out.at<T>(position);
            if constexpr (std::is_same_v<T, std::uint8_t>) {
                target = static_cast<T>(target | addend);
            } else {
                target = static_cast<T>(target + addend);
            }
        });
    });
    return out;
}

Tensor tril(const Tensor& t, std::int64_t diagonal) {
    return triangle<true>(t, diagonal, "tril");
}

Tensor triu(const Tensor& t, std::int64_t diagonal) {
    return triangle<false>(t, diagonal, "triu");
}

}  // namespace

namespace kael {

Tensor one_hot(const Tensor& indices, std::int64_t num_classes) {
    check_index_dtype(indices, "one_hot");
//> stage 10
    if (detail::on_device(indices)) {  // built on the host: it reads every index anyway
        return native::to(one_hot(native::to(indices, Device::CPU), num_classes), indices.device());
    }
//< stage 10
    const Tensor flat = native::contiguous(native::reshape(indices, {-1}));
    const std::int64_t* values = flat.data_ptr<std::int64_t>();
    const std::int64_t count = flat.numel();
    for (std::int64_t i = 0; i < count; ++i) {
        KAEL_CHECK_VALUE(values[i] >= 0, "one_hot: class values must be non-negative, got " << values[i]);
    }
    if (num_classes == -1) {
        KAEL_CHECK_VALUE(count > 0, "one_hot: cannot infer the number of classes from an empty tensor");
        num_classes = *std::max_element(values, values + count) + 1;
    }
    KAEL_CHECK_VALUE(num_classes >= 0, "one_hot: num_classes must be -1 or non-negative, got " << num_classes);
    Shape shape = indices.shape();
    shape.push_back(num_classes);
    Tensor out = zeros(shape, DType::I64);
    std::int64_t* codes = out.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < count; ++i) {
        KAEL_CHECK_VALUE(values[i] < num_classes, "one_hot: class value " << values[i]
                                                                          << " must be smaller than num_classes "
                                                                          << num_classes);
        codes[i * num_classes + values[i]] = 1;
    }
    return out;
}

}  // namespace kael
