// The reduction kernels of the device (chapter 09): one block per run, each thread folding
// a strided share of the run, block_reduce combining the shares. The reducers mirror the
// CPU's in ops/reduce.cpp (the same identities, accumulator types and NaN rule), so a
// result differs from the CPU's only by the order of the floating additions.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuda/block_reduce.cuh"
#include "cuda/reduce.h"
#include "kernels/cpu/extreme.h"
#include "kernels/cpu/integer_math.h"

namespace kael::cuda {
namespace {

// Floating sums accumulate in double, integer and Bool sums in int64 with wrap-around.
template <typename T> using SumAcc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
template <typename T> using SumOut = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;

template <typename T, bool product> struct ArithmeticReducer {
    using Acc = SumAcc<T>;
    __device__ Acc init() const { return Acc{product ? 1 : 0}; }
    __device__ Acc merge(Acc a, Acc b) const {
        return product ? detail::wrapping_mul(a, b) : detail::wrapping_add(a, b);
    }
    __device__ Acc step(Acc a, T x) const { return merge(a, static_cast<Acc>(x)); }
    __device__ SumOut<T> finish(Acc a, std::int64_t) const { return static_cast<SumOut<T>>(a); }
};

template <typename T> struct MeanReducer : ArithmeticReducer<T, false> {
    __device__ T finish(double a, std::int64_t n) const { return static_cast<T>(a / static_cast<double>(n)); }
};

template <typename T, bool largest> struct ExtremeReducer {
    using Acc = T;
    __device__ T init() const {
        if constexpr (std::is_floating_point_v<T>) {
            return largest ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
        } else {
            return largest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
        }
    }
    __device__ T merge(T a, T b) const { return detail::extreme<largest>(a, b); }
    __device__ T step(T a, T x) const { return merge(a, x); }
    __device__ T finish(T a, std::int64_t) const { return a; }
};

template <typename T, bool any> struct TruthReducer {
    using Acc = std::uint8_t;
    __device__ Acc init() const { return any ? 0 : 1; }
    __device__ Acc merge(Acc a, Acc b) const { return any ? static_cast<Acc>(a | b) : static_cast<Acc>(a & b); }
    __device__ Acc step(Acc a, T x) const { return merge(a, static_cast<Acc>(x != T{0})); }
    __device__ std::uint8_t finish(Acc a, std::int64_t) const { return a; }
};

template <typename T, typename Out, typename Reducer>
__global__ void reduce_runs_kernel(const T* in, Out* out, std::int64_t outputs, std::int64_t length, Reducer r) {
    for (std::int64_t run = blockIdx.x; run < outputs; run += gridDim.x) {
        const T* x = in + run * length;
        typename Reducer::Acc partial = r.init();
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            partial = r.step(partial, x[i]);
        }
        const auto total = block_reduce(partial, [&](auto a, auto b) { return r.merge(a, b); });
        if (threadIdx.x == 0) {
            out[run] = r.finish(total, length);
        }
    }
}

template <typename T, typename Out, typename Reducer>
void launch_reduce(const Tensor& runs, std::int64_t outputs, std::int64_t length, const Tensor& out, Reducer r) {
    reduce_runs_kernel<<<row_blocks(outputs), kBlockSize>>>(reinterpret_cast<const T*>(runs.device_data()),
                                                            reinterpret_cast<Out*>(out.device_data()), outputs,
                                                            length, r);
    check_launch();
}

// The candidate of a position reduction: an element and its position in the run, or none
// yet (position kNone).
template <typename T> struct Candidate {
    T value;
    std::int64_t position;
};
inline constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

// The better of two candidates: a NaN beats everything, a strictly larger (or smaller)
// value beats a lesser one, and among equals the earlier position wins. Because the rule
// looks at positions, the order in which the block merges candidates does not matter.
template <typename T, bool largest> __device__ Candidate<T> better(Candidate<T> a, Candidate<T> b) {
    if (a.position == kNone || b.position == kNone) {
        return a.position == kNone ? b : a;
    }
    bool a_wins_on_value = false;
    bool b_wins_on_value = false;
    if constexpr (std::is_floating_point_v<T>) {
        const bool a_nan = a.value != a.value;
        const bool b_nan = b.value != b.value;
        a_wins_on_value = a_nan && !b_nan;
        b_wins_on_value = b_nan && !a_nan;
        if (a_nan && b_nan) {
            return a.position < b.position ? a : b;
        }
    }
    if (!a_wins_on_value && !b_wins_on_value) {
        a_wins_on_value = largest ? a.value > b.value : a.value < b.value;
        b_wins_on_value = largest ? b.value > a.value : b.value < a.value;
    }
    if (a_wins_on_value != b_wins_on_value) {
        return a_wins_on_value ? a : b;
    }
    return a.position < b.position ? a : b;
}

template <typename T, bool largest>
__global__ void extreme_positions_kernel(const T* in, T* values, std::int64_t* indices, std::int64_t outputs,
                                         std::int64_t length) {
    for (std::int64_t run = blockIdx.x; run < outputs; run += gridDim.x) {
        const T* x = in + run * length;
        Candidate<T> partial{T{}, kNone};
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            partial = better<T, largest>(partial, Candidate<T>{x[i], i});
        }
        const Candidate<T> best = block_reduce(partial, [](Candidate<T> a, Candidate<T> b) {
            return better<T, largest>(a, b);
        });
        if (threadIdx.x == 0) {
            values[run] = best.value;
            indices[run] = best.position;
        }
    }
}

template <typename T>
__global__ void variance_kernel(const T* in, T* out, std::int64_t outputs, std::int64_t length, double correction) {
    const auto n = static_cast<double>(length);
    for (std::int64_t run = blockIdx.x; run < outputs; run += gridDim.x) {
        const T* x = in + run * length;
        // As on the CPU: two passes relative to the first element, so equal values give 0.
        const double shift = length > 0 ? static_cast<double>(x[0]) : 0.0;
        double partial = 0;
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            partial += static_cast<double>(x[i]) - shift;
        }
        const double mean = block_reduce(partial, AddDoubles{}) / n;
        partial = 0;
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            const double deviation = (static_cast<double>(x[i]) - shift) - mean;
            partial += deviation * deviation;
        }
        const double squares = block_reduce(partial, AddDoubles{});
        if (threadIdx.x == 0) {
            const double divisor = n - correction;
            out[run] = static_cast<T>(divisor > 0 ? squares / divisor : std::numeric_limits<double>::quiet_NaN());
        }
    }
}

template <typename T>
__global__ void logsumexp_kernel(const T* in, T* out, std::int64_t outputs, std::int64_t length) {
    const ExtremeReducer<T, true> largest_of;
    for (std::int64_t run = blockIdx.x; run < outputs; run += gridDim.x) {
        const T* x = in + run * length;
        T partial_max = largest_of.init();
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            partial_max = largest_of.step(partial_max, x[i]);
        }
        const T largest = block_reduce(partial_max, [&](T a, T b) { return largest_of.merge(a, b); });
        if (!isfinite(largest)) {  // the same for the whole block: no thread skips a barrier
            if (threadIdx.x == 0) {
                out[run] = largest;  // NaN, +inf, or -inf for an empty or all -inf run
            }
            continue;
        }
        double partial = 0;
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            partial += exp(static_cast<double>(x[i]) - static_cast<double>(largest));
        }
        const double total = block_reduce(partial, AddDoubles{});
        if (threadIdx.x == 0) {
            out[run] = static_cast<T>(static_cast<double>(largest) + log(total));
        }
    }
}

// One thread scans one run: a scan is sequential along its run, and the runs are many
// (every row of a batch) in the cases this backend serves.
template <typename T>
__global__ void cumsum_kernel(const T* in, T* out, std::int64_t outputs, std::int64_t length) {
    using Running = std::conditional_t<std::is_floating_point_v<T>, double, T>;
    const std::int64_t step = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t run = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; run < outputs; run += step) {
        Running running{0};
        for (std::int64_t i = run * length; i < (run + 1) * length; ++i) {
            running = detail::wrapping_add(running, static_cast<Running>(in[i]));
            out[i] = static_cast<T>(running);
        }
    }
}

}  // namespace

void reduce_runs(ReduceOp op, const Tensor& runs, std::int64_t outputs, std::int64_t length, const Tensor& out) {
    if (outputs == 0) {
        return;
    }
    dispatch(runs.dtype(), [&]<typename T>() {
        switch (op) {
        case ReduceOp::Sum:
            return launch_reduce<T, SumOut<T>>(runs, outputs, length, out, ArithmeticReducer<T, false>{});
        case ReduceOp::Prod:
            return launch_reduce<T, SumOut<T>>(runs, outputs, length, out, ArithmeticReducer<T, true>{});
        case ReduceOp::Mean:
            if constexpr (std::is_floating_point_v<T>) {
                return launch_reduce<T, T>(runs, outputs, length, out, MeanReducer<T>{});
            }
            break;  // the operations layer sends floating dtypes only
        case ReduceOp::Max:
            return launch_reduce<T, T>(runs, outputs, length, out, ExtremeReducer<T, true>{});
        case ReduceOp::Min:
            return launch_reduce<T, T>(runs, outputs, length, out, ExtremeReducer<T, false>{});
        case ReduceOp::Any:
            return launch_reduce<T, std::uint8_t>(runs, outputs, length, out, TruthReducer<T, true>{});
        case ReduceOp::All:
            return launch_reduce<T, std::uint8_t>(runs, outputs, length, out, TruthReducer<T, false>{});
        }
    });
}

void extreme_positions(bool largest, const Tensor& runs, std::int64_t outputs, std::int64_t length,
                       const Tensor& values, const Tensor& indices) {
    if (outputs == 0) {
        return;
    }
    dispatch(runs.dtype(), [&]<typename T>() {
        const auto* in = reinterpret_cast<const T*>(runs.device_data());
        auto* value = reinterpret_cast<T*>(values.device_data());
        auto* index = reinterpret_cast<std::int64_t*>(indices.device_data());
        if (largest) {
            extreme_positions_kernel<T, true><<<row_blocks(outputs), kBlockSize>>>(in, value, index, outputs, length);
        } else {
            extreme_positions_kernel<T, false><<<row_blocks(outputs), kBlockSize>>>(in, value, index, outputs, length);
        }
    });
    check_launch();
}

void variance(const Tensor& runs, std::int64_t outputs, std::int64_t length, double correction, const Tensor& out) {
    if (outputs == 0) {
        return;
    }
    dispatch_floating(runs.dtype(), "var", [&]<typename T>() {
        variance_kernel<T><<<row_blocks(outputs), kBlockSize>>>(reinterpret_cast<const T*>(runs.device_data()),
                                                                reinterpret_cast<T*>(out.device_data()), outputs,
                                                                length, correction);
    });
    check_launch();
}

void logsumexp(const Tensor& runs, std::int64_t outputs, std::int64_t length, const Tensor& out) {
    if (outputs == 0) {
        return;
    }
    dispatch_floating(runs.dtype(), "logsumexp", [&]<typename T>() {
        logsumexp_kernel<T><<<row_blocks(outputs), kBlockSize>>>(reinterpret_cast<const T*>(runs.device_data()),
                                                                 reinterpret_cast<T*>(out.device_data()), outputs,
                                                                 length);
    });
    check_launch();
}

void cumsum(const Tensor& runs, std::int64_t outputs, std::int64_t length, const Tensor& out) {
    if (outputs == 0 || length == 0) {
        return;
    }
    dispatch_no_bool(runs.dtype(), "cumsum", [&]<typename T>() {
        cumsum_kernel<T><<<blocks_for(outputs), kBlockSize>>>(reinterpret_cast<const T*>(runs.device_data()),
                                                              reinterpret_cast<T*>(out.device_data()), outputs,
                                                              length);
    });
    check_launch();
}

}  // namespace kael::cuda
