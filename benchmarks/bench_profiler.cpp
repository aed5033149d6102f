// The profiler's price (chapter 13): a tiny operation with no Profiler alive, where each
// recording point is one atomic load and one branch; the recording point alone; and the
// same operation while a Profiler records it.
//
//   build/main/benchmarks/kael_bench_profiler --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <memory>

#include "kael/kael.h"
#include "kael/profiler.h"

namespace {

// exp of a one-element tensor: almost nothing but the operation's fixed cost.
void BM_TinyOpProfilerOff(benchmark::State& state) {
    const kael::Tensor x = kael::ones({1});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::exp(x));
    }
}
BENCHMARK(BM_TinyOpProfilerOff);

// One recording point with no Profiler alive: what every operation pays for the profiler.
void BM_RecordingPointProfilerOff(benchmark::State& state) {
    const kael::Tensor x = kael::ones({1});
    for (auto _ : state) {
        const kael::profiler::Scope scope("exp", "op", {&x});
        benchmark::DoNotOptimize(&scope);
    }
}
BENCHMARK(BM_RecordingPointProfilerOff);

// The same tiny operation recorded: its name, input, times and allocations.
void BM_TinyOpProfilerOn(benchmark::State& state) {
    const kael::Tensor x = kael::ones({1});
    auto profiler = std::make_unique<kael::Profiler>();
    std::int64_t recorded = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::exp(x));
        if (++recorded == 100000) {  // keep the event list from growing without bound
            state.PauseTiming();
            profiler.reset();
            profiler = std::make_unique<kael::Profiler>();
            recorded = 0;
            state.ResumeTiming();
        }
    }
}
BENCHMARK(BM_TinyOpProfilerOn);

}  // namespace
