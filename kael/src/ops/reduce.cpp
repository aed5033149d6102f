// Reductions. Most are a small Reducer (how to start, add an element, merge two partial
// results and finish) run over the input in place, through its strides, in memory order:
// the elements reduced into one result are either runs (summing rows) or one element of
// each of several runs (summing columns). The few that need each result's elements in
// index order (argmax's first position, var's two passes) read contiguous runs instead.
#include "kael/ops/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/native.h"
#include "kernels/cpu/extreme.h"
#include "kernels/cpu/integer_math.h"
#include "kernels/cpu/simd.h"
#include "kael/factory.h"
//> stage 13
#include "kael/parallel.h"
//< stage 13
//> stage 10
#include "cuda/reduce.h"
#include "ops/device.h"
//< stage 10

namespace kael {
namespace {

// ---- planning --------------------------------------------------------------------------------

// What a reduction computes, whatever the input's layout: which dimensions are reduced, the
// result's shape, how many results and how many elements each one reduces.
struct ReductionPlan {
    std::vector<bool> reduced;  // one flag per input dimension
    Shape result_shape;         // with or without the kept size-1 dimensions
    std::int64_t outputs;       // how many results
    std::int64_t length;        // how many elements each result reduces
};

ReductionPlan describe(const Tensor& t, const Dims& dims, bool keepdim) {
    const auto ndim = static_cast<std::size_t>(t.dim());
    ReductionPlan r{std::vector<bool>(ndim, dims.empty()), {}, 1, 1};
    for (const std::int64_t dim : dims) {
        const std::int64_t d = wrap_dim(dim, t.dim());
        if (ndim == 0) {
            continue;  // a 0-d tensor accepts dim 0 or -1 and has nothing to reduce
        }
        const auto position = static_cast<std::size_t>(d);
        KAEL_CHECK_VALUE(!r.reduced[position], "dim " << d << " appears more than once in the list of dims "
                                                      << to_string(dims));
        r.reduced[position] = true;
    }
    for (std::size_t i = 0; i < ndim; ++i) {
        const std::int64_t size = t.shape()[i];
        if (r.reduced[i]) {
            r.length *= size;
            if (keepdim) {
                r.result_shape.push_back(1);
            }
        } else {
            r.outputs *= size;
            r.result_shape.push_back(size);
        }
    }
    return r;
}

// The messages show the user's shape, never a rearranged one.
void check_not_empty(const Tensor& t, const ReductionPlan& r, const char* op) {
    KAEL_CHECK_INDEX(r.length > 0 || r.outputs == 0,
                     op << "(): cannot reduce over an empty dimension because the operation has no "
                           "identity; the input has shape " << to_string(t.shape()));
}

// The loops a reduction runs over its input, read in place through its strides. As the
// element-wise iterator does (chapter 04), the dimensions are put in memory order, the
// smallest input stride innermost, and neighbours that step like one dimension are merged:
// sum(a.T(), {1}) then reads a's memory front to back, exactly like sum(a, {0}).
struct ReductionLoops {
    std::vector<std::int64_t> sizes;           // outermost first
    std::vector<std::int64_t> input_strides;   // in elements
    std::vector<std::int64_t> result_strides;  // in results; 0 along a reduced dimension
};

ReductionLoops memory_order_loops(const Tensor& t, const ReductionPlan& r) {
    // Each kept dimension steps through the results in row-major order.
    std::vector<std::int64_t> result_stride(r.reduced.size(), 0);
    std::int64_t step = 1;
    for (std::size_t i = r.reduced.size(); i-- > 0;) {
        if (!r.reduced[i]) {
            result_stride[i] = step;
            step *= t.shape()[i];
        }
    }
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < r.reduced.size(); ++i) {
        if (t.shape()[i] != 1) {
            order.push_back(i);  // a size-1 dimension is never stepped along
        }
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return t.strides()[a] > t.strides()[b]; });
    ReductionLoops loops;
    for (const std::size_t i : order) {
        const std::int64_t size = t.shape()[i];
        const std::int64_t input = t.strides()[i];
        const std::int64_t result = result_stride[i];
        // The previous (outer) loop and this one step like one longer loop: merge them.
        if (!loops.sizes.empty() && loops.input_strides.back() == input * size &&
            loops.result_strides.back() == result * size) {
            loops.sizes.back() *= size;
            loops.input_strides.back() = input;
            loops.result_strides.back() = result;
            continue;
        }
        loops.sizes.push_back(size);
        loops.input_strides.push_back(input);
        loops.result_strides.push_back(result);
    }
    if (loops.sizes.empty()) {  // one element: a loop of length 1
        loops = {{1}, {1}, {0}};
    }
    return loops;
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

// Reduces n elements `stride` apart. A contiguous run takes reduce_run's vector path.
template <typename T, typename Reducer>
typename Reducer::Acc reduce_strided_run(const T* x, std::int64_t n, std::int64_t stride, const Reducer& r) {
    if (stride == 1) {
        return reduce_run(x, n, r);
    }
    typename Reducer::Acc total = r.init();
    for (std::int64_t i = 0; i < n; ++i) {
        total = r.step(total, x[i * stride]);
    }
    return total;
}

//> stage 13
// Where every outer loop is kept and the innermost is reduced (a sum over the last
// dimension, the mean of each row), each result is one run of the input: the runs are
// shared out among threads (chapter 12). Each result is then the one merge of its run that
// the serial walk of run_reduction computes, so it does not depend on the thread count.
// Returns false, having done nothing, for any other layout and for small inputs.
template <typename T, typename Reducer>
bool reduce_runs_in_parallel(const Tensor& t, const ReductionPlan& reduction, typename Reducer::Acc* results,
                             const Reducer& r) {
    constexpr std::int64_t kGrainElements = 32768;  // as the element-wise kernels' grain
    if (t.numel() < 2 * kGrainElements) {
        return false;
    }
    const ReductionLoops loops = memory_order_loops(t, reduction);
    const std::size_t inner = loops.sizes.size() - 1;
    if (inner == 0 || loops.result_strides[inner] != 0) {
        return false;
    }
    for (std::size_t d = 0; d < inner; ++d) {
        if (loops.result_strides[d] == 0) {
            return false;  // an outer loop is reduced too: a result takes several runs
        }
    }
    const std::int64_t n = loops.sizes[inner];
    const T* x = t.data_ptr<T>();
    parallel_for(0, reduction.outputs, std::max<std::int64_t>(1, kGrainElements / n), [&](std::int64_t first, std::int64_t end) {
        for (std::int64_t run = first; run < end; ++run) {
            // The run's position in the outer loops, innermost fastest, as the walk visits them.
            std::int64_t in = 0;
            std::int64_t out = 0;
            std::int64_t rest = run;
            for (std::size_t d = inner; d-- > 0;) {
                const std::int64_t i = rest % loops.sizes[d];
                rest /= loops.sizes[d];
                in += i * loops.input_strides[d];
                out += i * loops.result_strides[d];
            }
            results[out] = r.merge(results[out], reduce_strided_run(x + in, n, loops.input_strides[inner], r));
        }
    });
    return true;
}

//< stage 13
// Runs a reducer over t in place. One accumulator per result; the innermost loop either
// reduces a run into one accumulator (the innermost dimension is reduced: summing rows) or
// adds one element into each of a run of accumulators (it is kept: summing columns, every
// read still a sweep through memory).
template <typename T, typename Out, typename Reducer>
Tensor run_reduction(const Tensor& t, const ReductionPlan& reduction, DType out_dtype, const Reducer& r) {
    using Acc = typename Reducer::Acc;
    std::vector<Acc> acc(static_cast<std::size_t>(reduction.outputs), r.init());
//> until 13
//|     if (t.numel() > 0) {
//< until 13
//> stage 13
    const bool done_in_parallel = reduce_runs_in_parallel<T>(t, reduction, acc.data(), r);
    if (t.numel() > 0 && !done_in_parallel) {
//< stage 13
        const ReductionLoops loops = memory_order_loops(t, reduction);
        const std::size_t inner = loops.sizes.size() - 1;
        const std::int64_t n = loops.sizes[inner];
        const std::int64_t in_step = loops.input_strides[inner];
        const std::int64_t out_step = loops.result_strides[inner];
        const T* x = t.data_ptr<T>();
        Acc* results = acc.data();
        std::vector<std::int64_t> index(inner, 0);  // the position in the outer loops
        std::int64_t in = 0;
        std::int64_t out = 0;
        bool done = false;
        while (!done) {
            if (out_step == 0) {
                results[out] = r.merge(results[out], reduce_strided_run(x + in, n, in_step, r));
            } else {
                for (std::int64_t j = 0; j < n; ++j) {
                    results[out + j * out_step] = r.step(results[out + j * out_step], x[in + j * in_step]);
                }
            }
            // Advance the outer loops like an odometer, innermost first.
            done = true;
            for (std::size_t d = inner; d-- > 0;) {
                if (++index[d] < loops.sizes[d]) {
                    in += loops.input_strides[d];
                    out += loops.result_strides[d];
                    done = false;
                    break;
                }
                index[d] = 0;
                in -= (loops.sizes[d] - 1) * loops.input_strides[d];
                out -= (loops.sizes[d] - 1) * loops.result_strides[d];
            }
        }
    }
    Tensor result = empty(reduction.result_shape, out_dtype);
    Out* values = result.data_ptr<Out>();
    for (std::size_t o = 0; o < acc.size(); ++o) {
        values[o] = r.finish(acc[o], reduction.length);
    }
    return result;
}

// For the reductions that read each result's elements in index order (the first position
// of an extreme, the two passes of var): t arranged so that those elements form one
// contiguous run per result, copied only when t is not already laid out that way.
Tensor as_runs(const Tensor& t, const ReductionPlan& r) {
    std::vector<std::int64_t> order;
    for (const bool reduced_pass : {false, true}) {  // kept dimensions first, then reduced
        for (std::size_t i = 0; i < r.reduced.size(); ++i) {
            if (r.reduced[i] == reduced_pass) {
                order.push_back(static_cast<std::int64_t>(i));
            }
        }
    }
    return native::contiguous(native::permute(t, order));
}
//> stage 10

// On a device every reduction reads its input as runs and runs one kernel of cuda/reduce.h
// over them, writing the results to a new tensor on that device.
Tensor device_reduction(cuda::ReduceOp op, const Tensor& t, const ReductionPlan& r, DType out_dtype) {
    Tensor out = empty(r.result_shape, out_dtype, t.device());
    cuda::reduce_runs(op, as_runs(t, r), r.outputs, r.length, out);
    return out;
}
//< stage 10

// ---- reducers -----------------------------------------------------------------------------------

// Floating sums accumulate in double, integer and Bool sums in int64 with wrap-around.
template <typename T>
using SumAcc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;

// Sums and products: the same reducer with another identity and combining operation.
template <typename T, typename Out, bool product> struct ArithmeticReducer {
    using Acc = SumAcc<T>;
    static Acc combine(Acc a, Acc b) { return product ? detail::wrapping_mul(a, b) : detail::wrapping_add(a, b); }
    Acc init() const { return Acc{product ? 1 : 0}; }
    Acc step(Acc a, T x) const { return combine(a, static_cast<Acc>(x)); }
    Acc merge(Acc a, Acc b) const { return combine(a, b); }
    Out finish(Acc a, std::int64_t) const { return static_cast<Out>(a); }

    // A float run is summed in blocks: within a block, 32 float partial sums (each adding
    // 128 elements at most, so their rounding error stays small); the block totals are then
    // added in double. Twice as many elements per instruction as converting every element
    // to double.
    //
    // The partial sums are explicit vectors of the build's width (GCC's vector extension,
    // as in the matrix kernel): two zmm registers with AVX-512, four ymm with AVX2, eight
    // xmm with SSE2. Written as an array of 32 floats, GCC 12 kept them on the stack in its
    // unrolled loop, so that every addition waited for a store and a reload.
    double run(const float* x, std::int64_t n) const
        requires(std::is_same_v<T, float> && !product)
    {
        using Lanes = detail::BuildVector<float>::type;
        constexpr std::int64_t kBlock = 4096;
        constexpr std::int64_t kFloatLanes = 32;
        constexpr std::int64_t kPerVector = detail::BuildVector<float>::lanes;
        constexpr auto kVectors = static_cast<std::size_t>(kFloatLanes / kPerVector);
        double total = 0;
        for (std::int64_t start = 0; start < n; start += kBlock) {
            const std::int64_t end = std::min(n, start + kBlock);
            Lanes lanes[kVectors] = {};
            std::int64_t i = start;
            for (; i + kFloatLanes <= end; i += kFloatLanes) {
                for (std::size_t v = 0; v < kVectors; ++v) {
                    const float* chunk = x + i + static_cast<std::int64_t>(v) * kPerVector;
                    lanes[v] += detail::BuildVector<float>::load(chunk);
                }
            }
            // The 32 partial sums in lane order: the same rounding as a plain array of them.
            float block = 0;
            for (const Lanes& vector : lanes) {
                for (std::int64_t lane = 0; lane < kPerVector; ++lane) {
                    block += vector[lane];
                }
            }
            for (; i < end; ++i) {
                block += x[i];
            }
            total += static_cast<double>(block);
        }
        return total;
    }
};

template <typename T, typename Out> using SumReducer = ArithmeticReducer<T, Out, false>;
template <typename T, typename Out> using ProdReducer = ArithmeticReducer<T, Out, true>;

template <typename T> struct MeanReducer : SumReducer<T, T> {
    T finish(double a, std::int64_t n) const {
        return static_cast<T>(a / static_cast<double>(n));  // 0 / 0 is NaN: the mean of nothing
    }
};

template <typename T, bool largest> struct ExtremeReducer {
    using Acc = T;
    T init() const {
        if constexpr (std::is_floating_point_v<T>) {
            return largest ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
        } else {
            return largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
        }
    }
    T step(T a, T x) const { return detail::extreme<largest>(a, x); }
    T merge(T a, T b) const { return detail::extreme<largest>(a, b); }
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
    const ReductionPlan reduction = describe(t, dims, keepdim);
    const DType out_dtype = sum_dtype(t.dtype());
//> stage 10
    if (detail::on_device(t)) {
        return device_reduction(product ? cuda::ReduceOp::Prod : cuda::ReduceOp::Sum, t, reduction, out_dtype);
    }
//< stage 10
    return dispatch(t.dtype(), [&]<typename T>() {
        using Out = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;
        return product ? run_reduction<T, Out>(t, reduction, out_dtype, ProdReducer<T, Out>{})
                       : run_reduction<T, Out>(t, reduction, out_dtype, SumReducer<T, Out>{});
    });
}

template <bool largest> Tensor extreme_values(const Tensor& t, const Dims& dims, bool keepdim, const char* op) {
    const ReductionPlan reduction = describe(t, dims, keepdim);
    check_not_empty(t, reduction, op);
//> stage 10
    if (detail::on_device(t)) {
        return device_reduction(largest ? cuda::ReduceOp::Max : cuda::ReduceOp::Min, t, reduction, t.dtype());
    }
//< stage 10
    return dispatch(t.dtype(), [&]<typename T>() {
        return run_reduction<T, T>(t, reduction, t.dtype(), ExtremeReducer<T, largest>{});
    });
}

template <bool any> Tensor truth_reduction(const Tensor& t, const Dims& dims, bool keepdim) {
    const ReductionPlan reduction = describe(t, dims, keepdim);
//> stage 10
    if (detail::on_device(t)) {
        return device_reduction(any ? cuda::ReduceOp::Any : cuda::ReduceOp::All, t, reduction, DType::Bool);
    }
//< stage 10
    return dispatch(t.dtype(), [&]<typename T>() {
        return run_reduction<T, std::uint8_t>(t, reduction, DType::Bool, TruthReducer<T, any>{});
    });
}

// The position of the first extreme in each run (the first NaN counts as the extreme).
template <bool largest> ValuesIndices extreme_positions(const Tensor& t, const Dims& dims, bool keepdim,
                                                        const char* op) {
    const ReductionPlan plan = describe(t, dims, keepdim);
    check_not_empty(t, plan, op);
//> stage 10
    if (detail::on_device(t)) {
        Tensor values = empty(plan.result_shape, t.dtype(), t.device());
        Tensor indices = empty(plan.result_shape, DType::I64, t.device());
        cuda::extreme_positions(largest, as_runs(t, plan), plan.outputs, plan.length, values, indices);
        return {values, indices};
    }
//< stage 10
    const Tensor runs = as_runs(t, plan);
    Tensor indices = empty(plan.result_shape, DType::I64);
    Tensor values = empty(plan.result_shape, t.dtype());
    dispatch(t.dtype(), [&]<typename T>() {
        const T* in = runs.data_ptr<T>();
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

// max(dim) accepts Bool, argmax does not: PyTorch has no argmax kernel for bool tensors.
template <bool largest> Tensor extreme_position(const Tensor& t, const Dims& dims, bool keepdim, const char* op) {
    KAEL_CHECK_TYPE(t.dtype() != DType::Bool,
                    op << "() is not defined for a bool tensor; convert it with to(DType::I64) first");
    return extreme_positions<largest>(t, dims, keepdim, op).indices;
}


}  // namespace

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the operations below autograd: kael::sum, what users call, is
// the autograd layer's (autograd/functions/reduce.cpp), which runs native::sum and records
// its backward. The reductions that return indices or Bool (argmax, any, all) stay below.
namespace kael::native {
//< stage 7

// ---- sums, means, products ------------------------------------------------------------------------

Tensor sum(const Tensor& t, const Dims& dims, bool keepdim) {
    return sum_like(t, dims, keepdim, false);
}

Tensor prod(const Tensor& t, const Dims& dims, bool keepdim) {
    return sum_like(t, dims, keepdim, true);
}

Tensor mean(const Tensor& t, const Dims& dims, bool keepdim) {
    check_floating(t, "mean");
    const ReductionPlan reduction = describe(t, dims, keepdim);
//> stage 10
    if (detail::on_device(t)) {
        return device_reduction(cuda::ReduceOp::Mean, t, reduction, t.dtype());
    }
//< stage 10
    return dispatch_floating(t.dtype(), "mean", [&]<typename T>() {
        return run_reduction<T, T>(t, reduction, t.dtype(), MeanReducer<T>{});
    });
}

// ---- extremes ---------------------------------------------------------------------------------------

Tensor amax(const Tensor& t, const Dims& dims, bool keepdim) {
    return extreme_values<true>(t, dims, keepdim, "amax");
}

Tensor amin(const Tensor& t, const Dims& dims, bool keepdim) {
    return extreme_values<false>(t, dims, keepdim, "amin");
}

Tensor max(const Tensor& t) {
    return extreme_values<true>(t, {}, false, "max");
}

Tensor min(const Tensor& t) {
    return extreme_values<false>(t, {}, false, "min");
}

ValuesIndices max(const Tensor& t, std::int64_t dim, bool keepdim) {
    ValuesIndices out = extreme_positions<true>(t, {dim}, keepdim, "max");
    return out;
}

ValuesIndices min(const Tensor& t, std::int64_t dim, bool keepdim) {
    ValuesIndices out = extreme_positions<false>(t, {dim}, keepdim, "min");
    return out;
}

// ---- variance, logsumexp ----------------------------------------------------------------------------

Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
    check_floating(t, "var");
    const ReductionPlan plan = describe(t, dims, keepdim);
//> stage 10
    if (detail::on_device(t)) {
        Tensor result = empty(plan.result_shape, t.dtype(), t.device());
        cuda::variance(as_runs(t, plan), plan.outputs, plan.length, correction, result);
        return result;
    }
//< stage 10
    const Tensor runs = as_runs(t, plan);
    Tensor result = empty(plan.result_shape, t.dtype());
    dispatch_floating(t.dtype(), "var", [&]<typename T>() {
        const T* in = runs.data_ptr<T>();
        T* out = result.data_ptr<T>();
        const auto n = static_cast<double>(plan.length);
        for (std::int64_t o = 0; o < plan.outputs; ++o) {
            // Two passes in double: the mean, then the squared deviations from it. The
            // one-pass formula E[x^2] - E[x]^2 cancels catastrophically. Both passes work
            // relative to the run's first element, so a run of equal values has deviations
            // of exactly 0 (a mean computed as sum / n need not equal the value itself).
            const T* run = in + o * plan.length;
            const double shift = plan.length > 0 ? static_cast<double>(run[0]) : 0.0;
            double total = 0;
            for (std::int64_t i = 0; i < plan.length; ++i) {
                total += static_cast<double>(run[i]) - shift;
            }
            const double mean = total / n;
            double squares = 0;
            for (std::int64_t i = 0; i < plan.length; ++i) {
                const double deviation = (static_cast<double>(run[i]) - shift) - mean;
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
    Tensor v = native::var(t, dims, correction, keepdim);
//> stage 10
    if (detail::on_device(v)) {
        return detail::device_unary<detail::Dtypes::Floating>(cuda::UnaryOp::Sqrt, v, v.dtype(), "std");
    }
//< stage 10
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
    const ReductionPlan plan = describe(t, dims, keepdim);
//> stage 10
    if (detail::on_device(t)) {
        Tensor result = empty(plan.result_shape, dtype, t.device());
        cuda::logsumexp(as_runs(native::to(t, dtype), plan), plan.outputs, plan.length, result);
        return result;
    }
//< stage 10
    const Tensor runs = as_runs(native::to(t, dtype), plan);
    Tensor result = empty(plan.result_shape, dtype);
    dispatch_floating(dtype, "logsumexp", [&]<typename T>() {
        const T* in = runs.data_ptr<T>();
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

// ---- cumulative sum ---------------------------------------------------------------------------------

Tensor cumsum(const Tensor& t, std::int64_t dim) {
    const DType dtype = sum_dtype(t.dtype());
    if (t.dim() == 0) {
        (void)wrap_dim(dim, 0);
        return native::clone(native::to(t, dtype));
    }
    const std::int64_t d = wrap_dim(dim, t.dim());
    // Scan contiguous rows: move `dim` last, scan, and move it back.
    const Tensor rows = native::contiguous(native::transpose(native::to(t, dtype), d, -1));
    Tensor scanned = empty_like(rows);
    const std::int64_t length = rows.size(-1);
//> stage 10
    if (detail::on_device(t)) {
        cuda::cumsum(rows, length == 0 ? 0 : rows.numel() / length, length, scanned);
        return native::contiguous(native::transpose(scanned, d, -1));
    }
//< stage 10
    dispatch(dtype, [&]<typename T>() {
        if constexpr (std::is_same_v<T, std::uint8_t>) {
            detail::unreachable();  // Bool sums are int64
        } else {
            const T* in = rows.data_ptr<T>();
            T* out = scanned.data_ptr<T>();
            const std::int64_t count = rows.numel();
            // Floating sums run in double, as PyTorch's CPU kernel does: a float32 running sum
            // of a long row would lose digits with every addition.
            using Running = std::conditional_t<std::is_floating_point_v<T>, double, T>;
            for (std::int64_t start = 0; start < count; start += length) {
                Running running{0};
                for (std::int64_t i = start; i < start + length; ++i) {
                    running = detail::wrapping_add(running, static_cast<Running>(in[i]));
                    out[i] = static_cast<T>(running);
                }
            }
        }
    });
    return native::contiguous(native::transpose(scanned, d, -1));
}

}  // namespace

namespace kael {

// ---- positions -------------------------------------------------------------------------------------

Tensor argmax(const Tensor& t) { return extreme_position<true>(native::reshape(t, {-1}), {0}, false, "argmax"); }
Tensor argmin(const Tensor& t) { return extreme_position<false>(native::reshape(t, {-1}), {0}, false, "argmin"); }
Tensor argmax(const Tensor& t, std::int64_t dim, bool keepdim) {
    return extreme_position<true>(t, {dim}, keepdim, "argmax");
}
Tensor argmin(const Tensor& t, std::int64_t dim, bool keepdim) {
    return extreme_position<false>(t, {dim}, keepdim, "argmin");
}

// ---- logical ------------------------------------------------------------------------------------------

Tensor any(const Tensor& t) { return truth_reduction<true>(t, {}, false); }
Tensor any(const Tensor& t, const Dims& dims, bool keepdim) { return truth_reduction<true>(t, dims, keepdim); }
Tensor all(const Tensor& t) { return truth_reduction<false>(t, {}, false); }
Tensor all(const Tensor& t, const Dims& dims, bool keepdim) { return truth_reduction<false>(t, dims, keepdim); }

}  // namespace kael
