#pragma once
// The workloads that benchmarks/compare_with_libtorch.py runs through kael and through
// libtorch, with one name and one size per workload so the two sides pair up.

#include <cstdint>

namespace workloads {

constexpr std::int64_t kLarge = 10'000'000;   // elements of the large element-wise ops
constexpr std::int64_t kRows = 2'500;         // kRows x kCols = kLarge, for the transposed add
constexpr std::int64_t kCols = 4'000;
constexpr std::int64_t kBroadcastSide = 1'000;  // [1000, 1000] + [1000]
constexpr std::int64_t kSoftmaxRows = 4'096;
constexpr std::int64_t kSoftmaxCols = 1'024;
constexpr std::int64_t kTiny = 4;
constexpr std::int64_t kTranscendental = 4'000'000;  // exp, tanh, gelu of 4M floats
//> stage 7
constexpr std::int64_t kBatch = 128;  // the MLP step of chapter 06: 784-256-10, batch 128
constexpr std::int64_t kMlpIn = 784;
constexpr std::int64_t kMlpHidden = 256;
constexpr std::int64_t kMlpOut = 10;
//< stage 7
//> stage 8
constexpr std::int64_t kTrainHidden1 = 512;  // the Fashion-MNIST MLP of chapter 07: 784-512-256-10
constexpr std::int64_t kTrainHidden2 = 256;
//< stage 8
//> stage 9
constexpr std::int64_t kLargeBatch = 16'384;  // chapter 08: activations past glibc's reuse limit
//< stage 9

}  // namespace workloads
