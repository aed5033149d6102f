// The device benchmarks of chapter 09, run by scripts/gpu-check on a machine with a GPU:
// element-wise work against the device's own copy bandwidth (the practical limit of its
// memory), reductions and row operations against the same limit, and kael's matrix product
// against a direct cuBLAS call on the same buffers.
// Prints a Markdown table; every figure is the median of repeated timed runs, each run
// ended by cuda_synchronize() so that the kernels have really finished.
#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::Device;
using kael::DType;
using kael::Tensor;

// Median seconds of `runs` calls of `work` after two warm-up calls.
double median_seconds(const std::function<void()>& work, int runs = 15) {
    work();
    work();
    kael::cuda_synchronize();
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        work();
        kael::cuda_synchronize();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

void row(const std::string& name, double seconds, double bytes, double reference_gbps) {
    const double gbps = bytes / seconds / 1e9;
    std::printf("| %s | %.3f ms | %.0f GB/s | %.0f%% |\n", name.c_str(), seconds * 1e3, gbps,
                100.0 * gbps / reference_gbps);
}

}  // namespace

int main() {
    if (!kael::cuda_is_available()) {
        std::printf("bench_cuda: no CUDA device\n");
        return 1;
    }
    constexpr std::int64_t n = std::int64_t{1} << 26;  // 64 Mi floats: 256 MiB per tensor
    constexpr double tensor_bytes = 4.0 * static_cast<double>(n);
    const Tensor a = kael::randn({n}).cuda();
    const Tensor b = kael::randn({n}).cuda();
    const Tensor square = a.view({8192, 8192});
    const Tensor row_vector = kael::randn({8192}).cuda();

    std::printf("| memory-bound operation (64 Mi float32) | time | bandwidth | of copy |\n|---|---:|---:|---:|\n");
    const double copy_s = median_seconds([&] { (void)a.clone(); });
    const double copy_gbps = 2 * tensor_bytes / copy_s / 1e9;
    row("device-to-device copy (clone)", copy_s, 2 * tensor_bytes, copy_gbps);
    row("a + b", median_seconds([&] { (void)(a + b); }), 3 * tensor_bytes, copy_gbps);
    row("a * 2.5", median_seconds([&] { (void)(a * 2.5); }), 2 * tensor_bytes, copy_gbps);
    row("[8192, 8192] + [8192] (broadcast)", median_seconds([&] { (void)(square + row_vector); }),
        2 * tensor_bytes, copy_gbps);
    row("exp(a)", median_seconds([&] { (void)kael::exp(a); }), 2 * tensor_bytes, copy_gbps);
    row("transpose().contiguous() (strided copy)", median_seconds([&] { (void)square.transpose(0, 1).contiguous(); }),
        2 * tensor_bytes, copy_gbps);

    // The row kernels: one block per row (cuda/block_reduce.cuh). A reduction over the first
    // dimension first copies the input into rows (as_runs); a reduction of everything is one
    // row, so one block, and shows what the missing two-stage split would win.
    std::printf("\n| reduction or row operation (64 Mi float32) | time | bandwidth | of copy |\n|---|---:|---:|---:|\n");
    row("sum over the last dim of [8192, 8192]", median_seconds([&] { (void)kael::sum(square, {1}); }), tensor_bytes,
        copy_gbps);
    row("sum over the first dim (through a copy)", median_seconds([&] { (void)kael::sum(square, {0}); }),
        tensor_bytes, copy_gbps);
    row("sum of everything (one block)", median_seconds([&] { (void)kael::sum(a); }), tensor_bytes, copy_gbps);
    row("softmax over the last dim", median_seconds([&] { (void)kael::softmax(square, 1); }), 2 * tensor_bytes,
        copy_gbps);
    row("layer_norm over the last dim", median_seconds([&] { (void)kael::layer_norm(square, {8192}); }),
        2 * tensor_bytes, copy_gbps);
    row("argmax over the last dim", median_seconds([&] { (void)kael::argmax(square, 1); }), tensor_bytes, copy_gbps);

    std::printf("\n| float32 matmul | kael | direct cuBLAS | kael / cuBLAS throughput |\n|---|---:|---:|---:|\n");
    cublasHandle_t handle = nullptr;
    cublasCreate(&handle);
    for (const std::int64_t size : {1024, 4096}) {
        const Tensor x = kael::randn({size, size}).cuda();
        const Tensor y = kael::randn({size, size}).cuda();
        Tensor z = kael::empty({size, size}, DType::F32, Device::CUDA);
        const int s = static_cast<int>(size);
        const float one = 1.0F;
        const float zero = 0.0F;
        const double direct = median_seconds([&] {
            cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &one, reinterpret_cast<const float*>(y.device_data()), s,
                        reinterpret_cast<const float*>(x.device_data()), s, &zero,
                        reinterpret_cast<float*>(z.device_data()), s);
        });
        const double ours = median_seconds([&] { (void)kael::matmul(x, y); });
        const double flops = 2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size);
        std::printf("| %ld x %ld | %.0f GFLOP/s | %.0f GFLOP/s | %.0f%% |\n", static_cast<long>(size),
                    static_cast<long>(size), flops / ours / 1e9, flops / direct / 1e9, 100.0 * direct / ours);
    }
    cublasDestroy(handle);
    return 0;
}
