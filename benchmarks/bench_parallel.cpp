// The parallel runtime (chapter 12, ADR 0006): what one parallel loop costs with kael's own
// pool, against OpenMP's (GCC's libgomp) where the compiler has it. Two loops: one whose
// pieces do nothing, which is the price of waking the workers and waiting for them, and
// an element-wise addition of a million floats, the smallest loop worth splitting.
//
//   build/main/benchmarks/kael_bench_parallel --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "kael/parallel.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

constexpr std::int64_t kElements = 1 << 20;

void BM_EmptyLoopKaelPool(benchmark::State& state) {
    kael::set_num_threads(static_cast<int>(state.range(0)));
    std::vector<std::int64_t> touched(64, 0);
    for (auto _ : state) {
        kael::parallel_for(0, 2 * state.range(0), 1, [&](std::int64_t begin, std::int64_t) { touched[static_cast<std::size_t>(begin)] += 1; });
        benchmark::DoNotOptimize(touched.data());
    }
}
BENCHMARK(BM_EmptyLoopKaelPool)->Arg(1)->Arg(2)->UseRealTime();

void BM_AddKaelPool(benchmark::State& state) {
    kael::set_num_threads(static_cast<int>(state.range(0)));
    std::vector<float> a(kElements, 1.0F), b(kElements, 2.0F), c(kElements);
    for (auto _ : state) {
        kael::parallel_for(0, kElements, 32768, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t i = begin; i < end; ++i) {
                const auto j = static_cast<std::size_t>(i);
                c[j] = a[j] + b[j];
            }
        });
        benchmark::DoNotOptimize(c.data());
    }
}
BENCHMARK(BM_AddKaelPool)->Arg(1)->Arg(2)->UseRealTime();

#if defined(_OPENMP)
void BM_EmptyLoopOpenMP(benchmark::State& state) {
    const int threads = static_cast<int>(state.range(0));
    std::vector<std::int64_t> touched(64, 0);
    for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::int64_t piece = 0; piece < 2 * threads; ++piece) {
            touched[static_cast<std::size_t>(piece)] += 1;
        }
        benchmark::DoNotOptimize(touched.data());
    }
}
BENCHMARK(BM_EmptyLoopOpenMP)->Arg(1)->Arg(2)->UseRealTime();

void BM_AddOpenMP(benchmark::State& state) {
    const int threads = static_cast<int>(state.range(0));
    std::vector<float> a(kElements, 1.0F), b(kElements, 2.0F), c(kElements);
    for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::int64_t i = 0; i < kElements; ++i) {
            const auto j = static_cast<std::size_t>(i);
            c[j] = a[j] + b[j];
        }
        benchmark::DoNotOptimize(c.data());
    }
}
BENCHMARK(BM_AddOpenMP)->Arg(1)->Arg(2)->UseRealTime();
#endif

}  // namespace
