// The cost of creating and copying tensors: the fixed overhead of an impl and a storage,
// and the bandwidth of clone() for contiguous and strided sources.
#include <benchmark/benchmark.h>

#include "kael/kael.h"

namespace {

void BM_EmptyTiny(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::empty({4}));
    }
}
BENCHMARK(BM_EmptyTiny);

void BM_ZerosLarge(benchmark::State& state) {
    const std::int64_t n = state.range(0);
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::zeros({n}));
    }
    state.SetBytesProcessed(state.iterations() * n * 4);
}
BENCHMARK(BM_ZerosLarge)->Arg(1 << 10)->Arg(1 << 20);

void BM_CloneContiguous(benchmark::State& state) {
    const kael::Tensor t = kael::ones({state.range(0)});
    for (auto _ : state) {
        benchmark::DoNotOptimize(t.clone());
    }
    state.SetBytesProcessed(state.iterations() * t.nbytes() * 2);
}
BENCHMARK(BM_CloneContiguous)->Arg(1 << 10)->Arg(1 << 20);

void BM_ConvertToFloat64(benchmark::State& state) {
    const kael::Tensor t = kael::ones({state.range(0)});
    for (auto _ : state) {
        benchmark::DoNotOptimize(t.to(kael::DType::F64));
    }
    state.SetItemsProcessed(state.iterations() * t.numel());
}
BENCHMARK(BM_ConvertToFloat64)->Arg(1 << 20);

}  // namespace
