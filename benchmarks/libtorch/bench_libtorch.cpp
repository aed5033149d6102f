// The workloads of benchmarks/bench_ops.cpp through libtorch (PyTorch's C++ API), under
// the same names, for benchmarks/compare_with_libtorch.py.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>

#include "../workloads.h"

namespace {

void BM_AddFresh(benchmark::State& state) {
    const auto a = torch::ones({workloads::kLarge});
    const auto b = torch::ones({workloads::kLarge});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::add(a, b));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 12);
}
BENCHMARK(BM_AddFresh)->Unit(benchmark::kMillisecond);

void BM_AddInPlace(benchmark::State& state) {
    auto a = torch::zeros({workloads::kLarge});
    const auto b = torch::ones({workloads::kLarge});
    for (auto _ : state) {
        a.add_(b);
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 12);
}
BENCHMARK(BM_AddInPlace)->Unit(benchmark::kMillisecond);

void BM_AddBroadcast(benchmark::State& state) {
    const auto a = torch::ones({workloads::kBroadcastSide, workloads::kBroadcastSide});
    const auto b = torch::ones({workloads::kBroadcastSide});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::add(a, b));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kBroadcastSide * workloads::kBroadcastSide * 8);
}
BENCHMARK(BM_AddBroadcast)->Unit(benchmark::kMillisecond);

void BM_AddTransposed(benchmark::State& state) {
    const auto a = torch::ones({workloads::kCols, workloads::kRows}).t();
    const auto b = torch::ones({workloads::kRows, workloads::kCols});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::add(a, b));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 12);
}
BENCHMARK(BM_AddTransposed)->Unit(benchmark::kMillisecond);

void BM_Sum(benchmark::State& state) {
    const auto a = torch::ones({workloads::kLarge});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::sum(a));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 4);
}
BENCHMARK(BM_Sum)->Unit(benchmark::kMillisecond);

void BM_SumTransposed(benchmark::State& state) {
    const auto a = torch::ones({workloads::kCols, workloads::kRows});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::sum(a.t(), {1}));
    }
    state.SetBytesProcessed(state.iterations() * workloads::kLarge * 4);
}
BENCHMARK(BM_SumTransposed)->Unit(benchmark::kMillisecond);

template <torch::Tensor (*op)(const torch::Tensor&)> void transcendental(benchmark::State& state) {
    torch::manual_seed(0);
    const auto x = torch::randn({workloads::kTranscendental});
    for (auto _ : state) {
        benchmark::DoNotOptimize(op(x));
    }
    state.SetItemsProcessed(state.iterations() * workloads::kTranscendental);
}
torch::Tensor exp_op(const torch::Tensor& x) { return torch::exp(x); }
torch::Tensor tanh_op(const torch::Tensor& x) { return torch::tanh(x); }
torch::Tensor gelu_op(const torch::Tensor& x) { return torch::gelu(x); }
void BM_Exp(benchmark::State& state) { transcendental<exp_op>(state); }
void BM_Tanh(benchmark::State& state) { transcendental<tanh_op>(state); }
void BM_Gelu(benchmark::State& state) { transcendental<gelu_op>(state); }
BENCHMARK(BM_Exp)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tanh)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gelu)->Unit(benchmark::kMillisecond);

void BM_Softmax(benchmark::State& state) {
    torch::manual_seed(0);
    const auto x = torch::randn({workloads::kSoftmaxRows, workloads::kSoftmaxCols});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::softmax(x, -1));
    }
    state.SetItemsProcessed(state.iterations() * workloads::kSoftmaxRows * workloads::kSoftmaxCols);
}
BENCHMARK(BM_Softmax)->Unit(benchmark::kMillisecond);

void BM_Matmul(benchmark::State& state) {
    const std::int64_t n = state.range(0);
    torch::manual_seed(0);
    const auto a = torch::randn({n, n});
    const auto b = torch::randn({n, n});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::matmul(a, b));
    }
    state.counters["GFLOP/s"] = benchmark::Counter(static_cast<double>(2 * n * n * n) * static_cast<double>(state.iterations()),
                                                   benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Matmul)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);

void BM_AddTiny(benchmark::State& state) {
    const auto a = torch::ones({workloads::kTiny});
    const auto b = torch::ones({workloads::kTiny});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::add(a, b));
    }
}
BENCHMARK(BM_AddTiny);
//> stage 7

// ---- autograd (chapter 06) ----------------------------------------------------------------

void BM_AddTinyPlain(benchmark::State& state) {
    const auto a = torch::ones({workloads::kTiny});
    const auto b = torch::ones({workloads::kTiny});
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::add(a, b));
    }
}
BENCHMARK(BM_AddTinyPlain);

void BM_AddTinyRecorded(benchmark::State& state) {
    const auto a = torch::ones({workloads::kTiny}).requires_grad_();
    const auto b = torch::ones({workloads::kTiny}).requires_grad_();
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::add(a, b));
    }
}
BENCHMARK(BM_AddTinyRecorded);

struct Mlp {
    torch::Tensor x = torch::randn({workloads::kBatch, workloads::kMlpIn});
    torch::Tensor y = torch::randint(0, workloads::kMlpOut, {workloads::kBatch});
    torch::Tensor w1 = (torch::randn({workloads::kMlpIn, workloads::kMlpHidden}) * 0.05).requires_grad_();
    torch::Tensor b1 = torch::zeros({workloads::kMlpHidden}).requires_grad_();
    torch::Tensor w2 = (torch::randn({workloads::kMlpHidden, workloads::kMlpOut}) * 0.05).requires_grad_();
    torch::Tensor b2 = torch::zeros({workloads::kMlpOut}).requires_grad_();

    [[nodiscard]] torch::Tensor loss() const {
        const auto hidden = torch::relu(torch::matmul(x, w1) + b1);
        return torch::nn::functional::cross_entropy(torch::matmul(hidden, w2) + b2, y);
    }
};

void BM_MlpStep(benchmark::State& state) {
    torch::manual_seed(0);
    Mlp mlp;
    for (auto _ : state) {
        for (torch::Tensor* p : {&mlp.w1, &mlp.b1, &mlp.w2, &mlp.b2}) {
            p->mutable_grad().reset();  // set_to_none, as kael's zero_grad
        }
        mlp.loss().backward();
        benchmark::DoNotOptimize(mlp.w1.grad());
    }
}
BENCHMARK(BM_MlpStep)->Unit(benchmark::kMillisecond);

void BM_MlpForward(benchmark::State& state) {
    torch::manual_seed(0);
    const Mlp mlp;
    const torch::NoGradGuard no_grad;
    for (auto _ : state) {
        benchmark::DoNotOptimize(mlp.loss());
    }
}
BENCHMARK(BM_MlpForward)->Unit(benchmark::kMillisecond);
//< stage 7
//> stage 8

// ---- training (chapter 07) ----------------------------------------------------------------

// The whole step of examples/mnist_mlp.py on a random batch: zero_grad, forward, cross
// entropy, backward, Adam.
void train_steps(benchmark::State& state, std::int64_t batch) {
    torch::manual_seed(0);
    torch::nn::Sequential model(torch::nn::Linear(workloads::kMlpIn, workloads::kTrainHidden1), torch::nn::ReLU(),
                                torch::nn::Linear(workloads::kTrainHidden1, workloads::kTrainHidden2),
                                torch::nn::ReLU(), torch::nn::Linear(workloads::kTrainHidden2, workloads::kMlpOut));
    torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-3));
    const auto x = torch::rand({batch, workloads::kMlpIn});
    const auto y = torch::randint(0, workloads::kMlpOut, {batch});
    for (auto _ : state) {
        adam.zero_grad();
        const auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
        loss.backward();
        adam.step();
        benchmark::DoNotOptimize(loss.item<float>());
    }
}

void BM_TrainStep(benchmark::State& state) { train_steps(state, workloads::kBatch); }
BENCHMARK(BM_TrainStep)->Unit(benchmark::kMillisecond);
//< stage 8
//> stage 9

// One tensor of the training step's activation size made and dropped: libtorch's CPU
// allocator has no cache, so each is a trip to the system allocator.
void BM_EmptyActivation(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(torch::empty({workloads::kBatch, workloads::kTrainHidden1}));
    }
}
BENCHMARK(BM_EmptyActivation)->Unit(benchmark::kNanosecond);

void BM_TrainStepLargeBatch(benchmark::State& state) { train_steps(state, workloads::kLargeBatch); }
BENCHMARK(BM_TrainStepLargeBatch)->Unit(benchmark::kMillisecond);
//< stage 9

}  // namespace

int main(int argc, char** argv) {
    // The same thread count as kael's side: set by the comparison script.
    const char* threads = std::getenv("KAEL_BENCH_THREADS");
    torch::set_num_threads(threads != nullptr ? std::atoi(threads) : 1);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
