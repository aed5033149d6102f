// Times your bias_gelu against the two operations it fuses, on activations the size of a
// small transformer's feed-forward layer. Build and run it with
//
//     scripts/exercise --bench fused-bias-gelu             your exercise.cpp
//     scripts/exercise --bench --solution fused-bias-gelu  the reference solution
#include <benchmark/benchmark.h>

#include "exercise.h"
#include "kael/kael.h"

namespace {

constexpr std::int64_t kRows = 1024;
constexpr std::int64_t kCols = 4096;

struct Inputs {
    kael::Tensor x = kael::randn({kRows, kCols});
    kael::Tensor bias = kael::randn({kCols});
};

const Inputs& inputs() {
    static const Inputs data;
    return data;
}

void set_bytes(benchmark::State& state) {
    // One read of x and one write of the result: the traffic a fused kernel needs.
    state.SetBytesProcessed(state.iterations() * kRows * kCols * 2 *
                            static_cast<std::int64_t>(sizeof(float)));
}

void BM_Composed(benchmark::State& state, const char* approximate) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::gelu(kael::add(inputs().x, inputs().bias), approximate));
    }
    set_bytes(state);
}

void BM_Fused(benchmark::State& state, const char* approximate) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(exercise::bias_gelu(inputs().x, inputs().bias, approximate));
    }
    set_bytes(state);
}

}  // namespace

BENCHMARK_CAPTURE(BM_Composed, erf, "none")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Fused, erf, "none")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Composed, tanh, "tanh")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Fused, tanh, "tanh")->Unit(benchmark::kMillisecond);
