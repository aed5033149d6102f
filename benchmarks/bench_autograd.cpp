// The autograd workloads of chapter 06 under Google Benchmark: a training step of a small
// MLP (forward, backward) and the cost of recording one tiny operation. The libtorch side,
// under the same names, is in benchmarks/libtorch/bench_libtorch.cpp.
#include <benchmark/benchmark.h>

#include "kael/kael.h"
#include "workloads.h"

namespace {

using kael::Tensor;

// The tiny add with both inputs outside autograd: no node is built.
void BM_AddTinyPlain(benchmark::State& state) {
    const Tensor a = kael::ones({workloads::kTiny});
    const Tensor b = kael::ones({workloads::kTiny});
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::add(a, b));
    }
}
BENCHMARK(BM_AddTinyPlain);

// The same add with both inputs requiring grad: each result gets an AddBackward node,
// which is freed again with the result. The difference to BM_AddTinyPlain is the cost of
// recording.
void BM_AddTinyRecorded(benchmark::State& state) {
    Tensor a = kael::ones({workloads::kTiny});
    Tensor b = kael::ones({workloads::kTiny});
    a.requires_grad_();
    b.requires_grad_();
    for (auto _ : state) {
        benchmark::DoNotOptimize(kael::add(a, b));
    }
}
BENCHMARK(BM_AddTinyRecorded);

// The MLP of the chapter: 784-256-10 with ReLU and cross entropy on a batch of 128.
struct Mlp {
    Tensor x = kael::randn({workloads::kBatch, workloads::kMlpIn});
    Tensor y = kael::randint(0, workloads::kMlpOut, {workloads::kBatch});
    Tensor w1 = kael::randn({workloads::kMlpIn, workloads::kMlpHidden}) * 0.05;
    Tensor b1 = kael::zeros({workloads::kMlpHidden});
    Tensor w2 = kael::randn({workloads::kMlpHidden, workloads::kMlpOut}) * 0.05;
    Tensor b2 = kael::zeros({workloads::kMlpOut});

    Mlp() {
        for (Tensor* p : {&w1, &b1, &w2, &b2}) {
            p->requires_grad_();
        }
    }
    [[nodiscard]] Tensor loss() const {
        const Tensor hidden = kael::relu(kael::matmul(x, w1) + b1);
        return kael::cross_entropy(kael::matmul(hidden, w2) + b2, y);
    }
};

// One training step without the optimizer: gradients cleared, forward, backward.
void BM_MlpStep(benchmark::State& state) {
    kael::manual_seed(0);
    Mlp mlp;
    for (auto _ : state) {
        kael::autograd::zero_grad({mlp.w1, mlp.b1, mlp.w2, mlp.b2});
        mlp.loss().backward();
        benchmark::DoNotOptimize(mlp.w1.grad());
    }
}
BENCHMARK(BM_MlpStep)->Unit(benchmark::kMillisecond);

// The same step with kael's own matrix kernel instead of the default (BLAS, when kael was
// built with it), which is faster than OpenBLAS for these shapes on some CPUs.
void BM_MlpStepOwnKernel(benchmark::State& state) {
    const kael::MatmulBackend previous = kael::matmul_backend();
    kael::set_matmul_backend(kael::MatmulBackend::Kael);
    BM_MlpStep(state);
    kael::set_matmul_backend(previous);
}
BENCHMARK(BM_MlpStepOwnKernel)->Unit(benchmark::kMillisecond);

// The forward pass alone, recording nothing (evaluation).
void BM_MlpForward(benchmark::State& state) {
    kael::manual_seed(0);
    const Mlp mlp;
    const kael::autograd::NoGradGuard no_grad;
    for (auto _ : state) {
        benchmark::DoNotOptimize(mlp.loss());
    }
}
BENCHMARK(BM_MlpForward)->Unit(benchmark::kMillisecond);

}  // namespace
