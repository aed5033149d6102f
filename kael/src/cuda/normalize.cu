// softmax, log_softmax and layer_norm on the device (chapter 09): the CPU's row loops of
// ops/nn.cpp with the row split across a block. Each pass over the row is a strided loop of
// the block's threads, and each statistic (the maximum, a sum) a block_reduce.
#include <cmath>
#include <cstdint>
#include <limits>

#include "cuda/block_reduce.cuh"
#include "cuda/normalize.h"

namespace kael::cuda {
namespace {

// The larger of two values with NaN ignored, as the CPU's row_max: "a NaN still reaches
// the result, because exp(NaN - max) is NaN and so is every sum it enters".
template <typename T> struct IgnoreNaNMax {
    __device__ T operator()(T a, T b) const { return b > a ? b : a; }
};

template <typename T>
__global__ void softmax_kernel(bool log_result, const T* in, T* out, std::int64_t rows, std::int64_t length) {
    for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* x = in + row * length;
        T* y = out + row * length;
        T partial_max = -std::numeric_limits<T>::infinity();
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            partial_max = IgnoreNaNMax<T>{}(partial_max, x[i]);
        }
        const T largest = block_reduce(partial_max, IgnoreNaNMax<T>{});
        double partial = 0;
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            const T e = exp(x[i] - largest);
            if (!log_result) {
                y[i] = e;  // kept for the last pass, which scales it
            }
            partial += static_cast<double>(e);
        }
        const double total = block_reduce(partial, AddDoubles{});
        if (log_result) {
            const auto log_sum = static_cast<T>(static_cast<double>(largest) + log(total));
            for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
                y[i] = x[i] - log_sum;
            }
        } else {
            const auto scale = static_cast<T>(1.0 / total);
            for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
                y[i] *= scale;  // the same thread wrote y[i]: no barrier needed
            }
        }
    }
}

template <typename T>
__global__ void layer_norm_kernel(const T* in, const T* weight, const T* bias, T* out, std::int64_t rows,
                                  std::int64_t length, double eps) {
    const auto n = static_cast<double>(length);
    for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* x = in + row * length;
        T* y = out + row * length;
        double partial = 0;
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            partial += static_cast<double>(x[i]);
        }
        const double mean = block_reduce(partial, AddDoubles{}) / n;
        partial = 0;
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            const double deviation = static_cast<double>(x[i]) - mean;
            partial += deviation * deviation;
        }
        const double inverse_std = 1.0 / sqrt(block_reduce(partial, AddDoubles{}) / n + eps);
        for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
            const double normalized = (static_cast<double>(x[i]) - mean) * inverse_std;
            y[i] = static_cast<T>(normalized * static_cast<double>(weight[i]) + static_cast<double>(bias[i]));
        }
    }
}

}  // namespace

void softmax(bool log, const Tensor& in, std::int64_t rows, std::int64_t length, const Tensor& out) {
    if (rows == 0 || length == 0) {
        return;
    }
    dispatch_floating(in.dtype(), log ? "log_softmax" : "softmax", [&]<typename T>() {
        softmax_kernel<T><<<row_blocks(rows), kBlockSize>>>(log, reinterpret_cast<const T*>(in.device_data()),
                                                            reinterpret_cast<T*>(out.device_data()), rows, length);
    });
    check_launch();
}

void layer_norm(const Tensor& in, std::int64_t rows, std::int64_t length, const Tensor& weight, const Tensor& bias,
                double eps, const Tensor& out) {
    if (rows == 0 || length == 0) {
        return;
    }
    dispatch_floating(in.dtype(), "layer_norm", [&]<typename T>() {
        layer_norm_kernel<T><<<row_blocks(rows), kBlockSize>>>(
            reinterpret_cast<const T*>(in.device_data()), reinterpret_cast<const T*>(weight.device_data()),
            reinterpret_cast<const T*>(bias.device_data()), reinterpret_cast<T*>(out.device_data()), rows, length,
            eps);
    });
    check_launch();
}

}  // namespace kael::cuda
