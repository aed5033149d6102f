// Softmax, losses, layer normalization, dropout and embedding.
#include "kael/ops/nn.h"

#include <algorithm>
#include <cmath>
#include <limits>
//> stage 13
#include <vector>
//< stage 13

#include "ops/native.h"
#include "kernels/cpu/fast_exp.h"
#include "kernels/cpu/simd.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/indexing.h"
#include "kael/ops/reduce.h"
#include "kael/random.h"
//> stage 13
#include "kael/parallel.h"
//< stage 13
//> stage 10
#include "kael/device.h"
#include "cuda/normalize.h"
#include "ops/device.h"
//< stage 10

namespace kael {
namespace {
//> stage 13

// How many rows of `length` elements one thread takes at least: about 16384 elements' work.
std::int64_t rows_per_piece(std::int64_t length) { return std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(length, 1)); }
//< stage 13

// Runs `per_row(in, out, length)` over every row along `dim`: the rows are contiguous in
// memory (a copy is made when they are not), and the result is returned in t's shape.
template <typename PerRow> Tensor along_rows(const Tensor& t, std::int64_t dim, const char* op, PerRow per_row) {
    return dispatch_floating(t.dtype(), op, [&]<typename T>() {
        if (t.dim() == 0) {
            (void)wrap_dim(dim, 0);
            Tensor out = empty({}, t.dtype());
            per_row(native::contiguous(t).template data_ptr<T>(), out.template data_ptr<T>(), std::int64_t{1});
            return out;
        }
        const std::int64_t d = wrap_dim(dim, t.dim());
        const bool last = d == t.dim() - 1;
        const Tensor rows = last ? native::contiguous(t) : native::contiguous(native::transpose(t, d, -1));
        Tensor out = empty_like(rows);
        const std::int64_t length = rows.size(-1);
        const T* in = rows.template data_ptr<T>();
        T* result = out.template data_ptr<T>();
        const std::int64_t count = rows.numel();
//> until 13
//|         for (std::int64_t start = 0; start < count; start += length) {
//|             per_row(in + start, result + start, length);
//|         }
//< until 13
//> stage 13
        // Each row is its own: rows run on several threads, each row on one.
        const std::int64_t row_count = length == 0 ? 0 : count / length;
        parallel_for(0, row_count, rows_per_piece(length), [&](std::int64_t first, std::int64_t end) {
            for (std::int64_t row = first; row < end; ++row) {
                per_row(in + row * length, result + row * length, length);
            }
        });
//< stage 13
        return last ? out : native::contiguous(native::transpose(out, d, -1));
    });
}

// The row loops below keep kVectors independent vectors of partial results: one vector
// would be one long chain of dependent instructions, each waiting for the last. They are
// explicit vectors (kernels/cpu/simd.h) because, written over a plain array of 16 floats,
// GCC 12 left the maximum scalar, with 38% of softmax's profile. Both are kept out
// of line, one call per row, so that scripts/check-vectorization can find their loops.
constexpr std::size_t kVectors = 4;

// The largest element of a row, NaN ignored: a NaN still reaches the result, because
// the exponential of NaN - max is NaN and so is every sum it enters. Written as
// "v > m ? v : m", which is exactly what the vector max instructions compute.
template <typename T> [[gnu::noinline]] T row_max(const T* x, std::int64_t n) {
    using Vector = detail::BuildVector<T>;
    constexpr std::int64_t kStep = Vector::lanes * static_cast<std::int64_t>(kVectors);
    typename Vector::type lanes[kVectors];
    std::fill_n(lanes, kVectors, Vector::broadcast(-std::numeric_limits<T>::infinity()));
    std::int64_t i = 0;
    for (; i + kStep <= n; i += kStep) {
        for (std::size_t v = 0; v < kVectors; ++v) {
            const typename Vector::type chunk = Vector::load(x + i + static_cast<std::int64_t>(v) * Vector::lanes);
            lanes[v] = chunk > lanes[v] ? chunk : lanes[v];
        }
    }
    T largest = -std::numeric_limits<T>::infinity();
    for (; i < n; ++i) {
        largest = x[i] > largest ? x[i] : largest;
    }
    for (const auto& vector : lanes) {
        for (std::int64_t lane = 0; lane < Vector::lanes; ++lane) {
            largest = vector[lane] > largest ? vector[lane] : largest;
        }
    }
    return largest;
}

// The sum of a row, in vectors of T, combined in double.
template <typename T> [[gnu::noinline]] double row_sum(const T* x, std::int64_t n) {
    using Vector = detail::BuildVector<T>;
    constexpr std::int64_t kStep = Vector::lanes * static_cast<std::int64_t>(kVectors);
    typename Vector::type lanes[kVectors] = {};
    std::int64_t i = 0;
    for (; i + kStep <= n; i += kStep) {
        for (std::size_t v = 0; v < kVectors; ++v) {
            lanes[v] += Vector::load(x + i + static_cast<std::int64_t>(v) * Vector::lanes);
        }
    }
    double total = 0;
    for (; i < n; ++i) {
        total += static_cast<double>(x[i]);
    }
    for (const auto& vector : lanes) {
        for (std::int64_t lane = 0; lane < Vector::lanes; ++lane) {
            total += static_cast<double>(vector[lane]);
        }
    }
    return total;
}

//> stage 10
// softmax and log_softmax on a device: the rows made contiguous as along_rows makes them,
// then one kernel of cuda/normalize.h over all of them.
Tensor device_softmax(const Tensor& t, std::int64_t dim, bool log) {
    detail::check_kernel_dtype<detail::Dtypes::Floating>(t.dtype(), log ? "log_softmax" : "softmax");
    const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(t.dim(), 1));
    const bool last = t.dim() == 0 || d == t.dim() - 1;
    const Tensor rows = last ? native::contiguous(t) : native::contiguous(native::transpose(t, d, -1));
    Tensor out = empty_like(rows);
    const std::int64_t length = t.dim() == 0 ? 1 : rows.size(-1);
    cuda::softmax(log, rows, length == 0 ? 0 : rows.numel() / length, length, out);
    return last ? out : native::contiguous(native::transpose(out, d, -1));
}

// The loss of each target on a device: the labels are checked on the host, as the CPU loop
// checks them, and the picked log-probabilities gathered on the device.
std::pair<Tensor, std::int64_t> device_losses(const Tensor& rows, const Tensor& targets, std::int64_t ignore_index) {
    check_same_device(rows.device(), targets.device());
    const std::int64_t classes = rows.size(1);
    const Tensor labels = native::to(targets, Device::CPU);
    const std::int64_t* label = labels.data_ptr<std::int64_t>();
    std::vector<std::int64_t> picked(static_cast<std::size_t>(labels.numel()), 0);
    std::vector<bool> counted(picked.size(), false);
    std::int64_t used = 0;
    for (std::size_t i = 0; i < picked.size(); ++i) {
        if (label[i] == ignore_index) {
            continue;  // its loss is 0; position 0 stands in for it
        }
        KAEL_CHECK_INDEX(label[i] >= 0 && label[i] < classes,
                         "target " << label[i] << " is out of bounds for " << classes << " classes");
        picked[i] = label[i];
        counted[i] = true;
        ++used;
    }
    if (classes == 0) {  // every target ignored: nothing to gather
        return {zeros({labels.numel()}, rows.dtype(), rows.device()), used};
    }
    const Tensor positions = native::unsqueeze(native::to(from_vector(picked), rows.device()), 1);
    const Tensor losses = native::neg(native::squeeze(native::gather(rows, 1, positions), 1));
    return {native::where(native::to(from_vector(counted), rows.device()), losses, scalar(0, rows.dtype())), used};
}
//< stage 10

}  // namespace

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the operations below autograd: kael::softmax, what users call,
// is the autograd layer's (autograd/functions/nn.cpp), which runs native::softmax and records
// its backward. The losses and layers built from other operations (below) need no formula
// of their own: their operations record themselves.
namespace kael::native {
//< stage 7

Tensor softmax(const Tensor& t, std::int64_t dim) {
//> stage 10
    if (detail::on_device(t)) {
        return device_softmax(t, dim, false);
    }
//< stage 10
    return along_rows(t, dim, "softmax", []<typename T>(const T* x, T* out, std::int64_t n) {
        // Subtracting the row's maximum keeps every exponential in (0, 1]: e^1000 would
        // overflow to inf, e^(1000 - 1000) does not, and the ratios are unchanged. It also
        // lets the exponential skip the guards against overflow (fast_exp_nonpositive).
        const T largest = row_max(x, n);
        for (std::int64_t i = 0; i < n; ++i) {
            out[i] = detail::exponential_nonpositive(x[i] - largest);
        }
        const auto scale = static_cast<T>(1.0 / row_sum(out, n));
        for (std::int64_t i = 0; i < n; ++i) {
            out[i] *= scale;
        }
    });
}

Tensor log_softmax(const Tensor& t, std::int64_t dim) {
//> stage 10
    if (detail::on_device(t)) {
        return device_softmax(t, dim, true);
    }
//< stage 10
    return along_rows(t, dim, "log_softmax", []<typename T>(const T* x, T* out, std::int64_t n) {
        // log(e^x_i / sum e^x_j) = x_i - (max + log sum e^(x_j - max)). The exponentials
        // go through `out` as scratch space before the result overwrites them.
        const T largest = row_max(x, n);
        for (std::int64_t i = 0; i < n; ++i) {
            out[i] = detail::exponential_nonpositive(x[i] - largest);
        }
        const auto log_sum = static_cast<T>(static_cast<double>(largest) + std::log(row_sum(out, n)));
        for (std::int64_t i = 0; i < n; ++i) {
            out[i] = x[i] - log_sum;
        }
    });
}

// The per-target losses reduced as asked; `used` counts the targets that were not ignored.
static Tensor reduce_losses(const Tensor& losses, std::int64_t used, Reduction reduction, const Shape& target_shape,
                            DType dtype) {
    switch (reduction) {
    case Reduction::None:
        return native::view(losses, target_shape);
    case Reduction::Sum:
        return native::sum(losses, {}, false);
    case Reduction::Mean:
        // Divide by the targets that count; with none left the mean is 0 / 0 = NaN.
        return native::div(native::sum(losses, {}, false), native::to(scalar(static_cast<double>(used), DType::F64), dtype));
    }
    detail::unreachable();
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction, std::int64_t ignore_index) {
    KAEL_CHECK_TYPE(target.dtype() == DType::I64,
                    "nll_loss expects int64 class indices as target, got dtype " << target.dtype());
    KAEL_CHECK_VALUE(log_probs.dim() >= 1, "nll_loss expects input of shape [C], [N, C] or [N, C, d1, ...], got "
                                               << to_string(log_probs.shape()));
    // Bring the class dimension last and flatten the rest: [M, C] against [M].
    const bool batched = log_probs.dim() >= 2;
    Shape expected_target = log_probs.shape();
    expected_target.erase(expected_target.begin() + (batched ? 1 : 0));
    KAEL_CHECK_VALUE(target.shape() == expected_target,
                     "nll_loss: target of shape " << to_string(target.shape()) << " does not match input of shape "
                                                  << to_string(log_probs.shape()) << " (expected target shape "
                                                  << to_string(expected_target) << ")");
    const std::int64_t classes = log_probs.size(batched ? 1 : 0);
    const Tensor moved = batched ? native::squeeze(native::transpose(native::unsqueeze(log_probs, -1), 1, -1), 1)
                                 : log_probs;
    const Tensor rows = native::contiguous(native::reshape(moved, {-1, classes}));
    const Tensor targets = native::contiguous(native::reshape(target, {-1}));
    const std::int64_t count = targets.numel();

//> stage 10
    if (detail::on_device(log_probs) || detail::on_device(target)) {
        detail::check_kernel_dtype<detail::Dtypes::Floating>(log_probs.dtype(), "nll_loss");
        const auto [losses, used] = device_losses(rows, targets, ignore_index);
        return reduce_losses(losses, used, reduction, target.shape(), log_probs.dtype());
    }
//< stage 10
    Tensor losses = empty({count}, log_probs.dtype());
    std::int64_t used = 0;
    dispatch_floating(log_probs.dtype(), "nll_loss", [&]<typename T>() {
        const std::int64_t* labels = targets.data_ptr<std::int64_t>();
        const T* probabilities = rows.data_ptr<T>();
        T* loss = losses.data_ptr<T>();
        for (std::int64_t i = 0; i < count; ++i) {
            const std::int64_t label = labels[i];
            if (label == ignore_index) {
                loss[i] = T{0};
                continue;
            }
            KAEL_CHECK_INDEX(label >= 0 && label < classes,
                             "target " << label << " is out of bounds for " << classes << " classes");
            loss[i] = -probabilities[i * classes + label];
            ++used;
        }
    });
    return reduce_losses(losses, used, reduction, target.shape(), log_probs.dtype());
}

// One row of layer_norm: its mean and biased variance in double, in two passes, then each
// element normalized, scaled and shifted.
template <typename T>
void normalize_row(const T* x, T* result, std::int64_t length, const T* scale, const T* shift, double eps) {
    double total = 0;
    for (std::int64_t i = 0; i < length; ++i) {
        total += static_cast<double>(x[i]);
    }
    const double mean = total / static_cast<double>(length);
    double squares = 0;
    for (std::int64_t i = 0; i < length; ++i) {
        const double deviation = static_cast<double>(x[i]) - mean;
        squares += deviation * deviation;
    }
    const double inverse_std = 1.0 / std::sqrt(squares / static_cast<double>(length) + eps);
    for (std::int64_t i = 0; i < length; ++i) {
        const double normalized = (static_cast<double>(x[i]) - mean) * inverse_std;
        result[i] = static_cast<T>(normalized * static_cast<double>(scale[i]) + static_cast<double>(shift[i]));
    }
}

Tensor layer_norm(const Tensor& t, const Shape& normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
    const auto trailing = static_cast<std::int64_t>(normalized_shape.size());
    const bool matches = trailing >= 1 && trailing <= t.dim() &&
                         Shape(t.shape().end() - trailing, t.shape().end()) == normalized_shape;
    KAEL_CHECK_VALUE(matches, "layer_norm: normalized_shape " << to_string(normalized_shape)
                                                             << " does not match the last dimensions of input shape "
                                                             << to_string(t.shape()));
    for (const std::optional<Tensor>& parameter : {weight, bias}) {
        if (parameter) {
            KAEL_CHECK_VALUE(parameter->shape() == normalized_shape,
                             "layer_norm: weight and bias need shape " << to_string(normalized_shape) << ", got "
                                                                       << to_string(parameter->shape()));
            KAEL_CHECK_TYPE(parameter->dtype() == t.dtype(), "layer_norm: weight and bias need dtype "
                                                                 << t.dtype() << ", got " << parameter->dtype());
        }
    }
    KAEL_CHECK_VALUE(eps >= 0, "layer_norm: eps must be non-negative, got " << eps);
    const std::int64_t length = numel(normalized_shape);
    const Tensor rows = native::contiguous(t);
    Tensor out = empty_like(rows);
//> stage 10
    if (detail::on_device(t)) {
        detail::check_kernel_dtype<detail::Dtypes::Floating>(t.dtype(), "layer_norm");
        const Tensor w = weight ? native::contiguous(*weight) : ones(normalized_shape, t.dtype(), t.device());
        const Tensor b = bias ? native::contiguous(*bias) : zeros(normalized_shape, t.dtype(), t.device());
        check_same_device(t.device(), w.device());
        check_same_device(t.device(), b.device());
        cuda::layer_norm(rows, length == 0 ? 0 : rows.numel() / length, length, w, b, eps, out);
        return out;
    }
//< stage 10
    dispatch_floating(t.dtype(), "layer_norm", [&]<typename T>() {
        const Tensor w = weight ? native::contiguous(*weight) : ones(normalized_shape, t.dtype());
        const Tensor b = bias ? native::contiguous(*bias) : zeros(normalized_shape, t.dtype());
        const T* scale = w.data_ptr<T>();
        const T* shift = b.data_ptr<T>();
        const T* in = rows.data_ptr<T>();
        T* result = out.data_ptr<T>();
        const std::int64_t count = rows.numel();
//> until 13
//|         for (std::int64_t start = 0; start < count; start += length) {
//|             normalize_row(in + start, result + start, length, scale, shift, eps);
//|         }
//< until 13
//> stage 13
        // Each row is its own: rows run on several threads, each row on one.
        const std::int64_t row_count = length == 0 ? 0 : count / length;
        parallel_for(0, row_count, rows_per_piece(length), [&](std::int64_t first, std::int64_t end) {
            for (std::int64_t row = first; row < end; ++row) {
                normalize_row(in + row * length, result + row * length, length, scale, shift, eps);
            }
        });
//< stage 13
    });
    return out;
}

//> stage 13

// ---- cross entropy over the rows of [N, C] logits, fused (chapter 12) ----------------------
// log_softmax then nll_loss writes N x C log-probabilities to read one per row, and their
// backward passes write three more arrays of that size: for GPT-2's 50,257 classes, a
// tenth of a training step went there. Fused, the forward reads each row once (its
// maximum, then the sum of its exponentials in a scratch row, exactly as log_softmax
// computes them, so the losses are the same to the bit) and keeps one number per row,
// log_sum_i = max_i + log sum_j e^(x_ij - max_i); the backward writes the gradient in one
// pass: d loss_i / d x_ij = e^(x_ij - log_sum_i) - [j = target_i].

// The class indices, checked on the calling thread (the rows then run in parallel): the
// targets that are not ignore_index must be in [0, classes).
std::int64_t count_used_targets(const Tensor& targets, std::int64_t classes, std::int64_t ignore_index) {
    const std::int64_t* label = targets.data_ptr<std::int64_t>();
    std::int64_t used = 0;
    for (std::int64_t i = 0; i < targets.numel(); ++i) {
        if (label[i] == ignore_index) {
            continue;
        }
        KAEL_CHECK_INDEX(label[i] >= 0 && label[i] < classes,
                         "target " << label[i] << " is out of bounds for " << classes << " classes");
        ++used;
    }
    return used;
}

CrossEntropyRows cross_entropy_rows(const Tensor& logits, const Tensor& target, Reduction reduction,
                                    std::int64_t ignore_index) {
    KAEL_CHECK_TYPE(target.dtype() == DType::I64,
                    "nll_loss expects int64 class indices as target, got dtype " << target.dtype());
    KAEL_CHECK_VALUE(logits.dim() == 2 && target.dim() == 1 && target.size(0) == logits.size(0),
                     "cross_entropy_rows: expected logits [N, C] and target [N], got "
                         << to_string(logits.shape()) << " and " << to_string(target.shape()));
    const Tensor rows = native::contiguous(logits);
    const Tensor targets = native::contiguous(target);
    const std::int64_t count = rows.size(0);
    const std::int64_t classes = rows.size(1);
    const std::int64_t used = count_used_targets(targets, classes, ignore_index);
    Tensor losses = empty({count}, rows.dtype());
    Tensor log_sums = empty({count}, rows.dtype());
    dispatch_floating(rows.dtype(), "cross_entropy", [&]<typename T>() {
        const T* x = rows.data_ptr<T>();
        const std::int64_t* label = targets.data_ptr<std::int64_t>();
        T* loss = losses.data_ptr<T>();
        T* log_sum = log_sums.data_ptr<T>();
        parallel_for(0, count, rows_per_piece(classes), [&](std::int64_t first, std::int64_t end) {
            std::vector<T> exponentials(static_cast<std::size_t>(classes));
            for (std::int64_t i = first; i < end; ++i) {
                const T* row = x + i * classes;
                const T largest = row_max(row, classes);
                for (std::int64_t j = 0; j < classes; ++j) {
                    exponentials[static_cast<std::size_t>(j)] = detail::exponential_nonpositive(row[j] - largest);
                }
                log_sum[i] = static_cast<T>(static_cast<double>(largest) + std::log(row_sum(exponentials.data(), classes)));
                loss[i] = label[i] == ignore_index ? T{0} : -(row[label[i]] - log_sum[i]);
            }
        });
    });
    return {reduce_losses(losses, used, reduction, target.shape(), rows.dtype()), log_sums, used};
}

Tensor cross_entropy_rows_backward(const Tensor& logits, const Tensor& target, const Tensor& log_sums,
                                   const Tensor& row_grads, std::int64_t ignore_index) {
    const Tensor rows = native::contiguous(logits);
    const Tensor targets = native::contiguous(target);
    const Tensor sums = native::contiguous(log_sums);
    const Tensor weights = native::contiguous(row_grads);
    const std::int64_t count = rows.size(0);
    const std::int64_t classes = rows.size(1);
    Tensor grad = empty_like(rows);
    dispatch_floating(rows.dtype(), "cross_entropy_backward", [&]<typename T>() {
        const T* x = rows.data_ptr<T>();
        const std::int64_t* label = targets.data_ptr<std::int64_t>();
        const T* log_sum = sums.data_ptr<T>();
        const T* weight = weights.data_ptr<T>();
        T* out = grad.data_ptr<T>();
        parallel_for(0, count, rows_per_piece(classes), [&](std::int64_t first, std::int64_t end) {
            for (std::int64_t i = first; i < end; ++i) {
                T* const result = out + i * classes;
                if (label[i] == ignore_index) {
                    std::fill_n(result, classes, T{0});
                    continue;
                }
                const T* const row = x + i * classes;
                const T w = weight[i];
                const T shift = log_sum[i];
                for (std::int64_t j = 0; j < classes; ++j) {
                    result[j] = w * detail::exponential(row[j] - shift);
                }
                result[label[i]] -= w;
            }
        });
    });
    return grad;
}
//< stage 13

}  // namespace
