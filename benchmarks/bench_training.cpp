// The training workload of chapter 07 under Google Benchmark: one whole step of
// examples/mnist_mlp.cpp (forward, cross entropy, backward, Adam) on a random batch. The
// libtorch side, under the same name, is in benchmarks/libtorch/bench_libtorch.cpp.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "kael/kael.h"
#include "workloads.h"

namespace {

// The JSON output names the kernel the default backend chose (OpenBLAS and its kernel, or
// kael's own), which compare_with_libtorch.py writes into the table.
const bool kContextAdded = [] {
    benchmark::AddCustomContext("kael_matmul_kernel", kael::matmul_kernel_description());
    return true;
}();

// Steps of the example's model on one random batch of `batch` images.
void train_steps(benchmark::State& state, std::int64_t batch) {
    kael::manual_seed(0);
    using kael::nn::Linear;
    using kael::nn::ReLU;
    kael::nn::Sequential model({std::make_shared<Linear>(workloads::kMlpIn, workloads::kTrainHidden1),
                                std::make_shared<ReLU>(),
                                std::make_shared<Linear>(workloads::kTrainHidden1, workloads::kTrainHidden2),
                                std::make_shared<ReLU>(),
                                std::make_shared<Linear>(workloads::kTrainHidden2, workloads::kMlpOut)});
    kael::optim::Adam adam(model.parameters(), {.lr = 1e-3});
    const kael::Tensor x = kael::rand({batch, workloads::kMlpIn});
    const kael::Tensor y = kael::randint(0, workloads::kMlpOut, {batch});
    for (auto _ : state) {
        adam.zero_grad();
        const kael::Tensor loss = kael::cross_entropy(model(x), y);
        loss.backward();
        adam.step();
        benchmark::DoNotOptimize(loss.item());
    }
}

void BM_TrainStep(benchmark::State& state) { train_steps(state, workloads::kBatch); }
BENCHMARK(BM_TrainStep)->Unit(benchmark::kMillisecond);

// The same step with kael's own matrix kernel instead of the default backend.
void BM_TrainStepOwnKernel(benchmark::State& state) {
    const kael::MatmulBackend previous = kael::matmul_backend();
    kael::set_matmul_backend(kael::MatmulBackend::Kael);
    BM_TrainStep(state);
    kael::set_matmul_backend(previous);
}
BENCHMARK(BM_TrainStepOwnKernel)->Unit(benchmark::kMillisecond);
//> stage 9

// The same step with the caching allocator switched off: every intermediate result is a
// system allocation, and its first touch a page fault, as before chapter 08.
void BM_TrainStepNoCache(benchmark::State& state) {
    kael::set_caching_allocator_enabled(false);
    BM_TrainStep(state);
    kael::set_caching_allocator_enabled(true);
}
BENCHMARK(BM_TrainStepNoCache)->Unit(benchmark::kMillisecond);

// The step at batch 16384: its [16384, 512] activations (32 MiB) are past the largest block
// glibc's malloc keeps for reuse, so without kael's cache each one is a fresh mapping of
// memory that page-faults on first touch, on every step.
void BM_TrainStepLargeBatch(benchmark::State& state) { train_steps(state, workloads::kLargeBatch); }
BENCHMARK(BM_TrainStepLargeBatch)->Unit(benchmark::kMillisecond);

void BM_TrainStepLargeBatchNoCache(benchmark::State& state) {
    kael::set_caching_allocator_enabled(false);
    BM_TrainStepLargeBatch(state);
    kael::set_caching_allocator_enabled(true);
}
BENCHMARK(BM_TrainStepLargeBatchNoCache)->Unit(benchmark::kMillisecond);
//< stage 9

}  // namespace
