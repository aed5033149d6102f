// Reductions. Every reduction is planned the same way: the input is arranged so that the
// elements reduced into one result are either one contiguous run ("inner": summing rows)
// or one element of each of several contiguous rows ("outer": summing columns), and a
// small Reducer says how to start, add an element, merge partial results and finish.
#include "kael/ops/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "internal/integer_math.h"
#include "kael/factory.h"

namespace kael {
namespace {

// ---- planning --------------------------------------------------------------------------------

struct Plan {
    Tensor input;          // contiguous, in the layout the loops below read
    Shape result_shape;    // the shape of the result (with or without kept dims)
    std::int64_t outputs;  // how many results
    std::int64_t length;   // how many elements each result reduces
    bool outer;            // input is [length][outputs] instead of [outputs][length]
};

std::vector<bool> reduced_dims(const Tensor& t, const Dims& dims) {
    const auto ndim = static_cast<std::size_t>(t.dim());
    std::vector<bool> reduced(ndim, dims.empty());
    for (const std::int64_t dim : dims) {
        const std::int64_t d = wrap_dim(dim, t.dim());
        if (ndim == 0) {
            continue;  // a 0-d tensor accepts dim 0 or -1 and has nothing to reduce
        }
        const auto position = static_cast<std::size_t>(d);
        KAEL_CHECK_VALUE(!reduced[position], "dim " << d << " appears more than once in the list of dims "
                                                    << to_string(dims));
        reduced[position] = true;
    }
    return reduced;
}

Plan plan_reduction(const Tensor& t, const Dims& dims, bool keepdim, bool allow_outer) {
    const std::vector<bool> reduced = reduced_dims(t, dims);
    Shape result_shape;
    std::int64_t outputs = 1;
    std::int64_t length = 1;
    std::vector<std::int64_t> kept_order;
    std::vector<std::int64_t> reduced_order;
    for (std::size_t i = 0; i < reduced.size(); ++i) {
        const std::int64_t size = t.shape()[i];
        if (reduced[i]) {
            reduced_order.push_back(static_cast<std::int64_t>(i));
            length *= size;
            if (keepdim) {
                result_shape.push_back(1);
            }
        } else {
            kept_order.push_back(static_cast<std::int64_t>(i));
            outputs *= size;
            result_shape.push_back(size);
        }
    }
    // Which layout can be read as it is? Reducing the trailing dimensions of a contiguous
    // tensor reads contiguous runs; reducing the leading ones reads whole rows at a time.
    const auto all_before_any_other = [&](bool value) {
        const auto first_other = std::find(reduced.begin(), reduced.end(), !value);
        return std::find(first_other, reduced.end(), value) == reduced.end();
    };
    if (t.is_contiguous() && all_before_any_other(false)) {
        return Plan{t, result_shape, outputs, length, false};
    }
    if (allow_outer && t.is_contiguous() && all_before_any_other(true)) {
        return Plan{t, result_shape, outputs, length, true};
    }
    std::vector<std::int64_t> order = kept_order;
    order.insert(order.end(), reduced_order.begin(), reduced_order.end());
    return Plan{t.permute(order).contiguous(), result_shape, outputs, length, false};
}

void check_not_empty(const Plan& plan, const char* op) {
    KAEL_CHECK_INDEX(plan.length > 0 || plan.outputs == 0,
                     op << "(): cannot reduce over an empty dimension because the operation has no "
                           "identity; the input has shape " << to_string(plan.input.shape()));
}

// ---- running a reducer ------------------------------------------------------------------------

// Reduces one contiguous run. Independent partial results ("lanes") let the compiler keep
// them in vector registers instead of waiting on a single running total.
template <typename T, typename Reducer>
typename Reducer::Acc reduce_run(const T* x, std::int64_t n, const Reducer& r) {
    if constexpr (requires { r.run(x, n); }) {
        return r.run(x, n);  // the reducer knows a faster way for a whole run
    }
    using Acc = typename Reducer::Acc;
    constexpr std::int64_t kLanes = 32;
    Acc lanes[kLanes];
    std::fill(lanes, lanes + kLanes, r.init());
    std::int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (std::int64_t lane = 0; lane < kLanes; ++lane) {
            lanes[lane] = r.step(lanes[lane], x[i + lane]);
        }
    }
    Acc total = r.init();
    for (const Acc lane : lanes) {
        total = r.merge(total, lane);
    }
    for (; i < n; ++i) {
        total = r.step(total, x[i]);
    }
    return total;
}

template <typename T, typename Out, typename Reducer>
Tensor run_reduction(const Plan& plan, DType out_dtype, const Reducer& r) {
    Tensor result = empty(plan.result_shape, out_dtype);
    Out* out = result.data_ptr<Out>();
    const T* in = plan.input.data_ptr<T>();
    if (!plan.outer) {
        for (std::int64_t o = 0; o < plan.outputs; ++o) {
            out[o] = r.finish(reduce_run(in + o * plan.length, plan.length, r), plan.length);
        }
        return result;
    }
    // Column-wise: one accumulator per result, updated row by row, so every read is a
    // contiguous sweep of a row.
    std::vector<typename Reducer::Acc> acc(static_cast<std::size_t>(plan.outputs), r.init());
    for (std::int64_t i = 0; i < plan.length; ++i) {
        const T* row = in + i * plan.outputs;
        for (std::int64_t o = 0; o < plan.outputs; ++o) {
            acc[static_cast<std::size_t>(o)] = r.step(acc[static_cast<std::size_t>(o)], row[o]);
        }
    }
    for (std::int64_t o = 0; o < plan.outputs; ++o) {
        out[o] = r.finish(acc[static_cast<std::size_t>(o)], plan.length);
    }
    return result;
}

// ---- reducers -----------------------------------------------------------------------------------

// Floating sums accumulate in double, integer and Bool sums in int64 with wrap-around.
template <typename T>
using SumAcc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;

template <typename T, typename Out> struct SumReducer {
    using Acc = SumAcc<T>;
    Acc init() const { return Acc{0}; }
    Acc step(Acc a, T x) const { return detail::wrapping_add(a, static_cast<Acc>(x)); }
    Acc merge(Acc a, Acc b) const { return detail::wrapping_add(a, b); }
    Out finish(Acc a, std::int64_t) const { return static_cast<Out>(a); }

    // A float run is summed in blocks: within a block, 32 float partial sums (two vector
    // registers, each adding 128 elements at most, so their rounding error stays small);
    // the block totals are then added in double. Twice as many elements per instruction
    // as converting every element to double.
    double run(const float* x, std::int64_t n) const
        requires std::is_same_v<T, float>
    {
        constexpr std::int64_t kBlock = 4096;
        constexpr std::int64_t kFloatLanes = 32;
        double total = 0;
        for (std::int64_t start = 0; start < n; start += kBlock) {
            const std::int64_t end = std::min(n, start + kBlock);
            float lanes[kFloatLanes] = {};
            std::int64_t i = start;
            for (; i + kFloatLanes <= end; i += kFloatLanes) {
                for (std::int64_t lane = 0; lane < kFloatLanes; ++lane) {
                    lanes[lane] += x[i + lane];
                }
            }
            float block = 0;
            for (const float lane : lanes) {
                block += lane;
            }
            for (; i < end; ++i) {
                block += x[i];
            }
            total += static_cast<double>(block);
        }
        return total;
    }
};

template <typename T> struct MeanReducer : SumReducer<T, T> {
    T finish(double a, std::int64_t n) const {
        return static_cast<T>(a / static_cast<double>(n));  // 0 / 0 is NaN: the mean of nothing
    }
};

template <typename T, typename Out> struct ProdReducer {
    using Acc = SumAcc<T>;
    Acc init() const { return Acc{1}; }
    Acc step(Acc a, T x) const { return detail::wrapping_mul(a, static_cast<Acc>(x)); }
    Acc merge(Acc a, Acc b) const { return detail::wrapping_mul(a, b); }
    Out finish(Acc a, std::int64_t) const { return static_cast<Out>(a); }
};

// The larger (or smaller) of two values, NaN winning over everything.
template <typename T, bool largest> T extreme(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (a != a || b != b) {
            return a != a ? a : b;
        }
    }
    return (largest ? b > a : b < a) ? b : a;
}

template <typename T, bool largest> struct ExtremeReducer {
    using Acc = T;
    T init() const {
        if constexpr (std::is_floating_point_v<T>) {
            return largest ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
        } else {
            return largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
        }
    }
    T step(T a, T x) const { return extreme<T, largest>(a, x); }
    T merge(T a, T b) const { return extreme<T, largest>(a, b); }
    T finish(T a, std::int64_t) const { return a; }
};

template <typename T, bool any> struct TruthReducer {
    using Acc = std::uint8_t;
    Acc init() const { return any ? 0 : 1; }
    Acc step(Acc a, T x) const {
        const auto truth = static_cast<Acc>(x != T{0});
        return any ? static_cast<Acc>(a | truth) : static_cast<Acc>(a & truth);
    }
    Acc merge(Acc a, Acc b) const { return any ? static_cast<Acc>(a | b) : static_cast<Acc>(a & b); }
    std::uint8_t finish(Acc a, std::int64_t) const { return a; }
};

DType sum_dtype(DType dtype) { return is_floating_point(dtype) ? dtype : DType::I64; }

Tensor sum_like(const Tensor& t, const Dims& dims, bool keepdim, bool product) {
    const Plan plan = plan_reduction(t, dims, keepdim, true);
    const DType out_dtype = sum_dtype(t.dtype());
    return dispatch(t.dtype(), [&]<typename T>() {
        using Out = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;
        return product ? run_reduction<T, Out>(plan, out_dtype, ProdReducer<T, Out>{})
                       : run_reduction<T, Out>(plan, out_dtype, SumReducer<T, Out>{});
    });
}

template <bool largest> Tensor extreme_values(const Tensor& t, const Dims& dims, bool keepdim, const char* op) {
    const Plan plan = plan_reduction(t, dims, keepdim, true);
    check_not_empty(plan, op);
    return dispatch(t.dtype(), [&]<typename T>() {
        return run_reduction<T, T>(plan, t.dtype(), ExtremeReducer<T, largest>{});
    });
}

template <bool any> Tensor truth_reduction(const Tensor& t, const Dims& dims, bool keepdim) {
    const Plan plan = plan_reduction(t, dims, keepdim, true);
    return dispatch(t.dtype(), [&]<typename T>() {
        return run_reduction<T, std::uint8_t>(plan, DType::Bool, TruthReducer<T, any>{});
    });
}

// The position of the first extreme in each run (the first NaN counts as the extreme).
template <bool largest> ValuesIndices extreme_positions(const Tensor& t, const Dims& dims, bool keepdim,
                                                        const char* op) {
    const Plan plan = plan_reduction(t, dims, keepdim, false);
    check_not_empty(plan, op);
    Tensor indices = empty(plan.result_shape, DType::I64);
    Tensor values = empty(plan.result_shape, t.dtype());
    dispatch(t.dtype(), [&]<typename T>() {
        const T* in = plan.input.data_ptr<T>();
        T* value = values.data_ptr<T>();
        std::int64_t* index = indices.data_ptr<std::int64_t>();
        for (std::int64_t o = 0; o < plan.outputs; ++o) {
            const T* run = in + o * plan.length;
            std::int64_t best = 0;
            for (std::int64_t i = 1; i < plan.length; ++i) {
                const T current = run[best];
                if constexpr (std::is_floating_point_v<T>) {
                    if (current != current) {
                        break;  // a NaN is already chosen: nothing beats it
                    }
                    if (run[i] != run[i]) {
                        best = i;
                        break;
                    }
                }
                if (largest ? run[i] > current : run[i] < current) {
                    best = i;
                }
            }
            index[o] = best;
            value[o] = run[best];
        }
    });
    return {values, indices};
}

void check_floating(const Tensor& t, const char* op) {
    KAEL_CHECK_TYPE(is_floating_point(t.dtype()),
                    op << "() needs a floating point input, got dtype " << t.dtype()
                       << "; convert it with to(DType::F32) first");
}

}  // namespace

// ---- sums, means, products ------------------------------------------------------------------------

Tensor sum(const Tensor& t) { return sum(t, {}, false); }
Tensor sum(const Tensor& t, const Dims& dims, bool keepdim) { return sum_like(t, dims, keepdim, false); }
Tensor prod(const Tensor& t) { return prod(t, {}, false); }
Tensor prod(const Tensor& t, const Dims& dims, bool keepdim) { return sum_like(t, dims, keepdim, true); }

Tensor mean(const Tensor& t) { return mean(t, {}, false); }

Tensor mean(const Tensor& t, const Dims& dims, bool keepdim) {
    check_floating(t, "mean");
    const Plan plan = plan_reduction(t, dims, keepdim, true);
    return dispatch_floating(t.dtype(), "mean", [&]<typename T>() {
        return run_reduction<T, T>(plan, t.dtype(), MeanReducer<T>{});
    });
}

// ---- extremes ---------------------------------------------------------------------------------------

Tensor amax(const Tensor& t, const Dims& dims, bool keepdim) { return extreme_values<true>(t, dims, keepdim, "amax"); }
Tensor amin(const Tensor& t, const Dims& dims, bool keepdim) { return extreme_values<false>(t, dims, keepdim, "amin"); }
Tensor max(const Tensor& t) { return extreme_values<true>(t, {}, false, "max"); }
Tensor min(const Tensor& t) { return extreme_values<false>(t, {}, false, "min"); }

ValuesIndices max(const Tensor& t, std::int64_t dim, bool keepdim) {
    return extreme_positions<true>(t, {dim}, keepdim, "max");
}

ValuesIndices min(const Tensor& t, std::int64_t dim, bool keepdim) {
    return extreme_positions<false>(t, {dim}, keepdim, "min");
}

Tensor argmax(const Tensor& t) { return extreme_positions<true>(t.reshape({-1}), {0}, false, "argmax").indices; }
Tensor argmin(const Tensor& t) { return extreme_positions<false>(t.reshape({-1}), {0}, false, "argmin").indices; }

Tensor argmax(const Tensor& t, std::int64_t dim, bool keepdim) {
    return extreme_positions<true>(t, {dim}, keepdim, "argmax").indices;
}

Tensor argmin(const Tensor& t, std::int64_t dim, bool keepdim) {
    return extreme_positions<false>(t, {dim}, keepdim, "argmin").indices;
}

// ---- variance, logsumexp ----------------------------------------------------------------------------

Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
    check_floating(t, "var");
    const Plan plan = plan_reduction(t, dims, keepdim, false);
    Tensor result = empty(plan.result_shape, t.dtype());
    dispatch_floating(t.dtype(), "var", [&]<typename T>() {
        const T* in = plan.input.data_ptr<T>();
        T* out = result.data_ptr<T>();
        const auto n = static_cast<double>(plan.length);
        for (std::int64_t o = 0; o < plan.outputs; ++o) {
            // Two passes in double: the mean, then the squared deviations from it. The
            // one-pass formula E[x^2] - E[x]^2 cancels catastrophically.
            const T* run = in + o * plan.length;
            double total = 0;
            for (std::int64_t i = 0; i < plan.length; ++i) {
                total += static_cast<double>(run[i]);
            }
            const double mean = total / n;
            double squares = 0;
            for (std::int64_t i = 0; i < plan.length; ++i) {
                const double deviation = static_cast<double>(run[i]) - mean;
                squares += deviation * deviation;
            }
            const double divisor = n - correction;
            out[o] = static_cast<T>(divisor > 0 ? squares / divisor
                                                : std::numeric_limits<double>::quiet_NaN());
        }
    });
    return result;
}

Tensor std(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
    check_floating(t, "std");
    Tensor v = var(t, dims, correction, keepdim);
    dispatch_floating(v.dtype(), "std", [&]<typename T>() {
        T* values = v.data_ptr<T>();
        const std::int64_t count = v.numel();
        for (std::int64_t i = 0; i < count; ++i) {
            values[i] = std::sqrt(values[i]);
        }
    });
    return v;
}

Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim) {
    const DType dtype = is_floating_point(t.dtype()) ? t.dtype() : DType::F32;
    const Plan plan = plan_reduction(t.to(dtype), dims, keepdim, false);
    Tensor result = empty(plan.result_shape, dtype);
    dispatch_floating(dtype, "logsumexp", [&]<typename T>() {
        const T* in = plan.input.data_ptr<T>();
        T* out = result.data_ptr<T>();
        for (std::int64_t o = 0; o < plan.outputs; ++o) {
            const T* run = in + o * plan.length;
            const T largest = reduce_run(run, plan.length, ExtremeReducer<T, true>{});
            if (!std::isfinite(largest)) {
                out[o] = largest;  // NaN, +inf, or -inf for an empty or all -inf run
                continue;
            }
            // Shifting by the largest element keeps every exp() at most 1: no overflow.
            double total = 0;
            for (std::int64_t i = 0; i < plan.length; ++i) {
                total += std::exp(static_cast<double>(run[i]) - static_cast<double>(largest));
            }
            out[o] = static_cast<T>(static_cast<double>(largest) + std::log(total));
        }
    });
    return result;
}

// ---- logical ------------------------------------------------------------------------------------------

Tensor any(const Tensor& t) { return truth_reduction<true>(t, {}, false); }
Tensor any(const Tensor& t, const Dims& dims, bool keepdim) { return truth_reduction<true>(t, dims, keepdim); }
Tensor all(const Tensor& t) { return truth_reduction<false>(t, {}, false); }
Tensor all(const Tensor& t, const Dims& dims, bool keepdim) { return truth_reduction<false>(t, dims, keepdim); }

// ---- cumulative sum ---------------------------------------------------------------------------------

Tensor cumsum(const Tensor& t, std::int64_t dim) {
    const DType dtype = sum_dtype(t.dtype());
    if (t.dim() == 0) {
        (void)wrap_dim(dim, 0);
        return t.to(dtype).clone();
    }
    const std::int64_t d = wrap_dim(dim, t.dim());
    // Scan contiguous rows: move `dim` last, scan, and move it back.
    const Tensor rows = t.to(dtype).transpose(d, -1).contiguous();
    Tensor scanned = empty_like(rows);
    const std::int64_t length = rows.size(-1);
    dispatch(dtype, [&]<typename T>() {
        if constexpr (std::is_same_v<T, std::uint8_t>) {
            detail::unreachable();  // Bool sums are int64
        } else {
            const T* in = rows.data_ptr<T>();
            T* out = scanned.data_ptr<T>();
            const std::int64_t count = rows.numel();
            for (std::int64_t start = 0; start < count; start += length) {
                T running{0};
                for (std::int64_t i = start; i < start + length; ++i) {
                    running = detail::wrapping_add(running, in[i]);
                    out[i] = running;
                }
            }
        }
    });
    return scanned.transpose(d, -1).contiguous();
}

}  // namespace kael
