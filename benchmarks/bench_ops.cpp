// The operations of chapter 05 under Google Benchmark. The same workloads, under the same
// names, run through libtorch in benchmarks/libtorch/bench_libtorch.cpp.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>

#include "kael/kael.h"
#include "workloads.h"

namespace {

using kael::Tensor;

// The JSON output names the copy of the matrix kernel that ran (compare_with_libtorch.py
// writes it into the table): the CPU decides, or KAEL_GEMM_ISA narrows it.
const bool kContextAdded = [] {
    benchmark::AddCustomContext("kael_matmul_kernel", std::string(kael::matmul_kernel_isa()));
    return true;
}();

// The memory bandwidth one thread gets for the access pattern of a += b (two streams
// read, one written back): a plain loop the compiler vectorizes. BM_AddInPlace is
// measured against it.
void BM_Bandwidth(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(workloads::kLarge);
    std::unique_ptr<float[]> a(new float[n]);
    std::unique_ptr<float[]> b(new float[n]);
    std::fill_n(a.get(), n, 0.0f);
    std::fill_n(b.get(), n, 1.0f);
    for (auto _ : state) {
        for (std::size_t i = 0; i < n; ++i) {
            a[i] += b[i];
        }
        benchmark::DoNotOptimize(a.get());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 12);
}
BENCHMARK(BM_Bandwidth)->Unit(benchmark::kMillisecond);

// a + b into a freshly allocated output: includes the first touch of new memory.
void BM_AddFresh(benchmark::State& state) {
    const Tensor a = kael::ones({workloads::kLarge});
    const Tensor b = kael::ones({workloads::kLarge});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::add(a, b));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 12);
}
BENCHMARK(BM_AddFresh)->Unit(benchmark::kMillisecond);
//> stage 9

// The same add with the caching allocator off: every result is a fresh system allocation
// of 40 MB, whose first touch page-faults, as libtorch's does on every call.
void BM_AddFreshNoCache(benchmark::State& state) {
    kael::set_caching_allocator_enabled(false);
    BM_AddFresh(state);
    kael::set_caching_allocator_enabled(true);
}
BENCHMARK(BM_AddFreshNoCache)->Unit(benchmark::kMillisecond);

// One tensor the size of the training step's activations ([128, 512] float32, 256 KiB)
// made and dropped: what the allocator itself costs, a hit in the cache here.
void BM_EmptyActivation(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::empty({workloads::kBatch, workloads::kTrainHidden1}));
    }
}
BENCHMARK(BM_EmptyActivation)->Unit(benchmark::kNanosecond);

// The same with the cache off: every tensor is a system allocation and a free.
void BM_EmptyActivationNoCache(benchmark::State& state) {
    kael::set_caching_allocator_enabled(false);
    BM_EmptyActivation(state);
    kael::set_caching_allocator_enabled(true);
}
BENCHMARK(BM_EmptyActivationNoCache)->Unit(benchmark::kNanosecond);
//< stage 9

// a += b: the same traffic into memory that already exists.
void BM_AddInPlace(benchmark::State& state) {
    Tensor a = kael::zeros({workloads::kLarge});
    const Tensor b = kael::ones({workloads::kLarge});
    for (auto _ : state) {
        a.add_(b);
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 12);
}
BENCHMARK(BM_AddInPlace)->Unit(benchmark::kMillisecond);

void BM_AddBroadcast(benchmark::State& state) {
    const Tensor a = kael::ones({workloads::kBroadcastSide, workloads::kBroadcastSide});
    const Tensor b = kael::ones({workloads::kBroadcastSide});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::add(a, b));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kBroadcastSide * workloads::kBroadcastSide * 8);
}
BENCHMARK(BM_AddBroadcast)->Unit(benchmark::kMillisecond);

// A transposed operand: one side is read against its memory order.
void BM_AddTransposed(benchmark::State& state) {
    const Tensor a = kael::ones({workloads::kCols, workloads::kRows}).T();
    const Tensor b = kael::ones({workloads::kRows, workloads::kCols});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::add(a, b));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 12);
}
BENCHMARK(BM_AddTransposed)->Unit(benchmark::kMillisecond);

void BM_Sum(benchmark::State& state) {
    const Tensor a = kael::ones({workloads::kLarge});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::sum(a));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 4);
}
BENCHMARK(BM_Sum)->Unit(benchmark::kMillisecond);

// sum(a.T(), {1}): the same bytes as summing a's columns, read through a transposed view.
void BM_SumTransposed(benchmark::State& state) {
    const Tensor a = kael::ones({workloads::kCols, workloads::kRows});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::sum(a.T(), {1}));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 4);
}
BENCHMARK(BM_SumTransposed)->Unit(benchmark::kMillisecond);

// The transcendental functions: compute-bound where the element loop vectorizes.
template <Tensor (*op)(const Tensor&)> void transcendental(benchmark::State& state) {
    kael::manual_seed(0);
    const Tensor x = kael::randn({workloads::kTranscendental});
    for (auto _ : state) {
        benchmark::DoNotOptimize(op(x));
    }
    state.SetItemsProcessed(state.iterations() * workloads::kTranscendental);
}
Tensor exact_gelu(const Tensor& x) { return kael::gelu(x); }
void BM_Exp(benchmark::State& state) { transcendental<kael::exp>(state); }
void BM_Tanh(benchmark::State& state) { transcendental<kael::tanh>(state); }
void BM_Gelu(benchmark::State& state) { transcendental<exact_gelu>(state); }
BENCHMARK(BM_Exp)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tanh)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gelu)->Unit(benchmark::kMillisecond);

void BM_Softmax(benchmark::State& state) {
    kael::manual_seed(0);
    const Tensor x = kael::randn({workloads::kSoftmaxRows, workloads::kSoftmaxCols});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::softmax(x, -1));
    }
    state.SetItemsProcessed(state.iterations() * workloads::kSoftmaxRows * workloads::kSoftmaxCols);
}
BENCHMARK(BM_Softmax)->Unit(benchmark::kMillisecond);

void matmul_benchmark(benchmark::State& state, kael::MatmulBackend backend) {
    const std::int64_t n = state.range(0);
    if (backend == kael::MatmulBackend::Blas && !kael::blas_available()) {
        state.SkipWithError("kael was built without BLAS");
        return;
    }
    kael::set_matmul_backend(backend);
    kael::manual_seed(0);
    const Tensor a = kael::randn({n, n});
    const Tensor b = kael::randn({n, n});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::matmul(a, b));
    }
    state.counters["GFLOP/s"] = benchmark::Counter(static_cast<double>(2 * n * n * n) * static_cast<double>(state.iterations()),
                                                   benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
    kael::set_matmul_backend(kael::MatmulBackend::Auto);
}

void BM_Matmul(benchmark::State& state) { matmul_benchmark(state, kael::MatmulBackend::Kael); }
BENCHMARK(BM_Matmul)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);

void BM_MatmulBlas(benchmark::State& state) { matmul_benchmark(state, kael::MatmulBackend::Blas); }
BENCHMARK(BM_MatmulBlas)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);

// The fixed cost of one operation: everything but the arithmetic.
void BM_AddTiny(benchmark::State& state) {
    const Tensor a = kael::ones({workloads::kTiny});
    const Tensor b = kael::ones({workloads::kTiny});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::add(a, b));
    }
}
BENCHMARK(BM_AddTiny);

}  // namespace
