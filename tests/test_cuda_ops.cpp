// The CUDA backend's operations beyond chapter 09's first kernels: comparisons and where,
// reductions, the row kernels (softmax, layer_norm, losses), the index kernels, gradients
// computed on the device, and a training loop there. Every test computes the same thing
// on the host and on the device and compares; each skips without a device, and
// scripts/gpu-check fails if any of them skipped on a machine that has one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cuda_helpers.h"
#include "kael/kael.h"

namespace {

using kael::Device;
using kael::DType;
using kael::Tensor;

using kael::testing::error_of;
using kael::testing::expect_matches_cpu;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Float values with the awkward ones mixed in: NaN, both infinities, signed zeros, halves.
Tensor awkward_values() {
    return kael::from_vector<double>({-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, kNaN, kInf, -kInf, 3.25}, {3, 4})
        .to(DType::F32);
}

// ---- comparisons, logic, where -------------------------------------------------------------

TEST(CudaCompare, ComparisonsLogicAndNanTestsMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(11);
    const Tensor a = awkward_values();
    const Tensor b = kael::randint(-2, 3, {4}).to(DType::F32);  // broadcast against a's rows
    using Op = std::function<Tensor(const Tensor&, const Tensor&)>;
    const std::vector<std::pair<std::string, Op>> ops = {
        {"eq", [](const Tensor& x, const Tensor& y) { return kael::eq(x, y); }},
        {"ne", [](const Tensor& x, const Tensor& y) { return kael::ne(x, y); }},
        {"lt", [](const Tensor& x, const Tensor& y) { return kael::lt(x, y); }},
        {"le", [](const Tensor& x, const Tensor& y) { return kael::le(x, y); }},
        {"gt", [](const Tensor& x, const Tensor& y) { return kael::gt(x, y); }},
        {"ge", [](const Tensor& x, const Tensor& y) { return kael::ge(x, y); }},
        {"logical_and", [](const Tensor& x, const Tensor& y) { return kael::logical_and(x, y); }},
        {"logical_or", [](const Tensor& x, const Tensor& y) { return kael::logical_or(x, y); }},
        {"logical_xor", [](const Tensor& x, const Tensor& y) { return kael::logical_xor(x, y); }},
    };
    for (const auto& [name, op] : ops) {
        expect_matches_cpu(op(a.cuda(), b.cuda()), op(a, b), name);
        expect_matches_cpu(op(a.transpose(0, 1).cuda(), b.unsqueeze(1).cuda()), op(a.transpose(0, 1), b.unsqueeze(1)),
                           name + " transposed");
    }
    // A number on the right promotes as on the CPU: int64 against 0.5 compares in float32.
    const Tensor n = kael::randint(-3, 3, {7});
    expect_matches_cpu(kael::lt(n.cuda(), 0.5), kael::lt(n, 0.5), "int64 < 0.5");
    expect_matches_cpu(kael::eq(n.cuda(), 0), kael::eq(n, 0), "int64 == 0");
    expect_matches_cpu(kael::logical_not(a.cuda()), kael::logical_not(a), "logical_not");
    expect_matches_cpu(kael::isnan(a.cuda()), kael::isnan(a), "isnan");
    expect_matches_cpu(kael::isinf(a.cuda()), kael::isinf(a), "isinf");
    expect_matches_cpu(kael::isfinite(a.cuda()), kael::isfinite(a), "isfinite");
    expect_matches_cpu(kael::isfinite(n.cuda()), kael::isfinite(n), "isfinite of int64");
}

TEST(CudaCompare, WhereMaskedFillAndIscloseMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(12);
    const Tensor x = kael::randn({5, 6});
    const Tensor y = kael::randn({6});
    const Tensor condition = kael::gt(kael::randn({5, 1}), 0);
    expect_matches_cpu(kael::where(condition.cuda(), x.cuda(), y.cuda()), kael::where(condition, x, y), "where");
    expect_matches_cpu(kael::where(condition.cuda(), x.cuda(), 2.5), kael::where(condition, x, 2.5), "where number");
    expect_matches_cpu(kael::where(condition.cuda(), 1, x.to(DType::F64).cuda()),
                       kael::where(condition, 1, x.to(DType::F64)), "where promotes");
    const Tensor mask = kael::eq(kael::tril(kael::ones({6, 6})), 0);
    const Tensor scores = kael::randn({2, 6, 6});
    expect_matches_cpu(kael::masked_fill(scores.cuda(), mask.cuda(), -kInf), kael::masked_fill(scores, mask, -kInf),
                       "causal masked_fill");
    const Tensor near = kael::add(x, 1e-7);
    expect_matches_cpu(kael::isclose(x.cuda(), near.cuda()), kael::isclose(x, near), "isclose");
    EXPECT_TRUE(kael::allclose(x.cuda(), near.cuda()));
    EXPECT_FALSE(kael::allclose(x.cuda(), kael::add(x, 1).cuda()));
}

// ---- more element-wise functions ----------------------------------------------------------

TEST(CudaElementwise, RoundingPowersAndActivationsMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(13);
    const Tensor a = awkward_values();
    using Op = std::function<Tensor(const Tensor&)>;
    const std::vector<std::pair<std::string, Op>> ops = {
        {"sign", [](const Tensor& t) { return kael::sign(t); }},
        {"floor", [](const Tensor& t) { return kael::floor(t); }},
        {"ceil", [](const Tensor& t) { return kael::ceil(t); }},
        {"round (halves to even)", [](const Tensor& t) { return kael::round(t); }},
        {"clamp", [](const Tensor& t) { return kael::clamp(t, -1, 2); }},
        {"clamp min", [](const Tensor& t) { return kael::clamp(t, 0.25, std::nullopt); }},
        {"clamp max past min", [](const Tensor& t) { return kael::clamp(t, 2, 1); }},
        {"pow 2", [](const Tensor& t) { return kael::pow(t, 2); }},
        {"pow 3", [](const Tensor& t) { return kael::pow(t, 3); }},
        {"pow -1", [](const Tensor& t) { return kael::pow(t, -1); }},
        {"2 ** t", [](const Tensor& t) { return kael::pow(2, t); }},
        {"silu", [](const Tensor& t) { return kael::silu(t); }},
        {"gelu", [](const Tensor& t) { return kael::gelu(t); }},
        {"gelu tanh", [](const Tensor& t) { return kael::gelu(t, "tanh"); }},
        {"log1p", [](const Tensor& t) { return kael::log1p(t); }},
        {"expm1", [](const Tensor& t) { return kael::expm1(t); }},
    };
    const Tensor x = kael::mul(kael::randn({40, 9}), 4).slice(0, 0, 40, 3);
    for (const auto& [name, op] : ops) {
        expect_matches_cpu(op(a.cuda()), op(a), name + " of awkward values", 1e-5);
        expect_matches_cpu(op(x.cuda()), op(x), name + " of a strided slice", 1e-5);
        expect_matches_cpu(op(x.to(DType::F64).cuda()), op(x.to(DType::F64)), name + " float64", 1e-12);
    }
    const Tensor positive = kael::add(kael::abs(x), 0.5);
    expect_matches_cpu(kael::pow(positive.cuda(), 0.5), kael::pow(positive, 0.5), "pow 0.5");
    expect_matches_cpu(kael::pow(positive.cuda(), 3.7), kael::pow(positive, 3.7), "pow 3.7", 1e-5);
    expect_matches_cpu(kael::pow(positive.cuda(), x.cuda()), kael::pow(positive, x), "pow tensors", 1e-5);
    const Tensor n = kael::randint(-6, 7, {20});
    expect_matches_cpu(kael::sign(n.cuda()), kael::sign(n), "sign of int64");
    expect_matches_cpu(kael::clamp(n.cuda(), -2, 3), kael::clamp(n, -2, 3), "clamp int64");
    expect_matches_cpu(kael::pow(n.cuda(), 3), kael::pow(n, 3), "int64 cubed");
    expect_matches_cpu(kael::floor(n.cuda()), kael::floor(n), "floor keeps integers");
}

TEST(CudaElementwise, DivisionsFollowPythonsSignRules) {
    KAEL_REQUIRE_GPU();
    const Tensor a = kael::from_vector<double>({7, -7, 7, -7, 5.5, -0.0, kInf, 1}, {8});
    const Tensor b = kael::from_vector<double>({2, 2, -2, -2, 0.5, 3, 2, 0}, {8});
    for (const DType dtype : {DType::F32, DType::F64}) {
        const Tensor x = a.to(dtype);
        const Tensor y = b.to(dtype);
        expect_matches_cpu(kael::floor_divide(x.cuda(), y.cuda()), kael::floor_divide(x, y), "floor_divide");
        expect_matches_cpu(kael::remainder(x.cuda(), y.cuda()), kael::remainder(x, y), "remainder");
        expect_matches_cpu(kael::atan2(x.cuda(), y.cuda()), kael::atan2(x, y), "atan2");
    }
    const Tensor i = kael::from_vector<std::int64_t>({7, -7, 7, -7, 0}, {5});
    const Tensor j = kael::from_vector<std::int64_t>({2, 2, -2, -2, 3}, {5});
    expect_matches_cpu(kael::floor_divide(i.cuda(), j.cuda()), kael::floor_divide(i, j), "int64 floor_divide");
    expect_matches_cpu(kael::remainder(i.cuda(), j.cuda()), kael::remainder(i, j), "int64 remainder");
    expect_matches_cpu(kael::remainder(i.cuda(), 3), kael::remainder(i, 3), "int64 % 3");
    // A kernel cannot throw; the zero divisor is found before it runs.
    const std::string message = error_of([&] { (void)kael::floor_divide(i.cuda(), kael::zeros_like(j).cuda()); });
    EXPECT_NE(message.find("ZeroDivisionError: integer division by zero in floor_divide"), std::string::npos)
        << message;
    EXPECT_THROW((void)kael::remainder(i.cuda(), 0), kael::Error);
}

// ---- reductions -----------------------------------------------------------------------------

TEST(CudaReduce, EveryReductionMatchesTheCpuOverAnyDims) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(14);
    const Tensor base = kael::randn({4, 5, 6});
    const std::vector<std::pair<std::string, Tensor>> inputs = {
        {"contiguous", base}, {"permuted", base.permute({2, 0, 1})}, {"sliced", base.slice(2, 1, 6, 2)}};
    const std::vector<kael::Dims> dim_lists = {{}, {0}, {1}, {-1}, {0, 2}};
    for (const auto& [layout, x] : inputs) {
        for (const kael::Dims& dims : dim_lists) {
            for (const bool keepdim : {false, true}) {
                const std::string what = layout + " dims " + kael::to_string(dims) + (keepdim ? " keepdim" : "");
                const Tensor d = x.cuda();
                expect_matches_cpu(kael::sum(d, dims, keepdim), kael::sum(x, dims, keepdim), "sum " + what, 1e-5);
                expect_matches_cpu(kael::mean(d, dims, keepdim), kael::mean(x, dims, keepdim), "mean " + what, 1e-5);
                expect_matches_cpu(kael::prod(d, dims, keepdim), kael::prod(x, dims, keepdim), "prod " + what, 1e-5);
                expect_matches_cpu(kael::amax(d, dims, keepdim), kael::amax(x, dims, keepdim), "amax " + what);
                expect_matches_cpu(kael::amin(d, dims, keepdim), kael::amin(x, dims, keepdim), "amin " + what);
                expect_matches_cpu(kael::var(d, dims, 1, keepdim), kael::var(x, dims, 1, keepdim), "var " + what, 1e-5);
                expect_matches_cpu(kael::std(d, dims, 0, keepdim), kael::std(x, dims, 0, keepdim), "std " + what, 1e-5);
                expect_matches_cpu(kael::logsumexp(d, dims, keepdim), kael::logsumexp(x, dims, keepdim),
                                   "logsumexp " + what, 1e-5);
                const Tensor positive = kael::gt(x, 0);
                expect_matches_cpu(kael::any(positive.cuda(), dims, keepdim), kael::any(positive, dims, keepdim),
                                   "any " + what);
                expect_matches_cpu(kael::all(positive.cuda(), dims, keepdim), kael::all(positive, dims, keepdim),
                                   "all " + what);
                expect_matches_cpu(kael::sum(positive.cuda(), dims, keepdim), kael::sum(positive, dims, keepdim),
                                   "sum of bool " + what);
            }
        }
        for (std::int64_t dim = 0; dim < 3; ++dim) {
            const std::string what = layout + " dim " + std::to_string(dim);
            const kael::ValuesIndices got = kael::max(x.cuda(), dim);
            const kael::ValuesIndices expected = kael::max(x, dim);
            expect_matches_cpu(got.values, expected.values, "max values " + what);
            expect_matches_cpu(got.indices, expected.indices, "max indices " + what);
            expect_matches_cpu(kael::argmin(x.cuda(), dim, true), kael::argmin(x, dim, true), "argmin " + what);
            expect_matches_cpu(kael::cumsum(x.cuda(), dim), kael::cumsum(x, dim), "cumsum " + what, 1e-5);
        }
    }
    const Tensor n = kael::randint(-1000, 1000, {30, 7});
    expect_matches_cpu(kael::sum(n.cuda(), {0}), kael::sum(n, {0}), "int64 sum");
    expect_matches_cpu(kael::prod(kael::clamp(n, -3, 3).cuda(), {1}), kael::prod(kael::clamp(n, -3, 3), {1}),
                       "int64 prod");
    expect_matches_cpu(kael::cumsum(n.cuda(), 1), kael::cumsum(n, 1), "int64 cumsum");
    expect_matches_cpu(kael::argmax(n.cuda()), kael::argmax(n), "argmax of everything");
}

TEST(CudaReduce, TiesNanAndEmptyRunsFollowTheCpusRules) {
    KAEL_REQUIRE_GPU();
    // The first position of the extreme wins a tie; the first NaN beats everything.
    const Tensor ties = kael::from_vector<double>({1, 3, 3, 0, 3, 2, 2, 2, 2, kNaN, 5, kNaN}, {3, 4});
    for (const DType dtype : {DType::F32, DType::F64}) {
        const Tensor t = ties.to(dtype);
        expect_matches_cpu(kael::argmax(t.cuda(), 1), kael::argmax(t, 1), "argmax ties and NaN");
        expect_matches_cpu(kael::argmin(t.cuda(), 1), kael::argmin(t, 1), "argmin ties and NaN");
        expect_matches_cpu(kael::amax(t.cuda(), {1}), kael::amax(t, {1}), "amax NaN");
        expect_matches_cpu(kael::logsumexp(t.cuda(), {1}), kael::logsumexp(t, {1}), "logsumexp NaN", 1e-6);
    }
    // More than 256 elements per run: the threads' shares are merged by position, not order.
    const Tensor long_ties = kael::zeros({3, 1000});
    expect_matches_cpu(kael::argmax(long_ties.cuda(), 1), kael::argmax(long_ties, 1), "argmax of 1000 zeros");
    const Tensor minus_inf = kael::full({2, 3}, -kInf);
    expect_matches_cpu(kael::logsumexp(minus_inf.cuda(), {1}), kael::logsumexp(minus_inf, {1}), "logsumexp -inf");
    // Reducing an empty dimension: sums are 0, means NaN, extremes an IndexError.
    const Tensor empty = kael::zeros({3, 0});
    expect_matches_cpu(kael::sum(empty.cuda(), {1}), kael::sum(empty, {1}), "sum of nothing");
    expect_matches_cpu(kael::mean(empty.cuda(), {1}), kael::mean(empty, {1}), "mean of nothing");
    expect_matches_cpu(kael::var(empty.cuda(), {1}), kael::var(empty, {1}), "var of nothing");
    EXPECT_THROW((void)kael::amax(empty.cuda(), {1}), kael::IndexError);
    EXPECT_THROW((void)kael::max(empty.cuda(), 1), kael::IndexError);
    EXPECT_THROW((void)kael::argmax(kael::zeros({2}, DType::Bool).cuda()), kael::TypeError);
}

TEST(CudaReduce, LongRunsAndMoreRunsThanBlocks) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(15);
    // One run of a million: the block's strided loop and its tree, accumulated in double.
    const Tensor big = kael::randn({1000000});
    expect_matches_cpu(kael::sum(big.cuda()), kael::sum(big), "sum of a million", 1e-5);
    expect_matches_cpu(kael::var(big.cuda()), kael::var(big), "var of a million", 1e-5);
    // 70000 runs, more than the 65535 blocks a row kernel launches: the grid-stride loop.
    const Tensor many = kael::randn({70000, 3});
    expect_matches_cpu(kael::sum(many.cuda(), {1}), kael::sum(many, {1}), "70000 sums", 1e-5);
    expect_matches_cpu(kael::softmax(many.cuda(), 1), kael::softmax(many, 1), "70000 softmax rows", 1e-5);
    expect_matches_cpu(kael::cumsum(many.cuda(), 1), kael::cumsum(many, 1), "70000 scans", 1e-5);
}

// ---- softmax, layer_norm, losses ------------------------------------------------------------

TEST(CudaNn, SoftmaxAndLayerNormMatchTheCpuAlongEveryDim) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(16);
    Tensor x = kael::mul(kael::randn({3, 4, 300}), 10);
    x = kael::masked_fill(x, kael::gt(kael::rand({3, 4, 300}), 0.9), -kInf);  // masked positions
    for (std::int64_t dim = -3; dim < 3; ++dim) {
        expect_matches_cpu(kael::softmax(x.cuda(), dim), kael::softmax(x, dim), "softmax " + std::to_string(dim),
                           1e-5);
        expect_matches_cpu(kael::log_softmax(x.cuda(), dim), kael::log_softmax(x, dim),
                           "log_softmax " + std::to_string(dim), 1e-5);
    }
    const Tensor fully_masked = kael::full({2, 5}, -kInf);
    expect_matches_cpu(kael::softmax(fully_masked.cuda(), 1), kael::softmax(fully_masked, 1), "all -inf rows");
    const Tensor y = kael::randn({6, 7, 32});
    const Tensor weight = kael::randn({32});
    const Tensor bias = kael::randn({32});
    expect_matches_cpu(kael::layer_norm(y.cuda(), {32}, weight.cuda(), bias.cuda()),
                       kael::layer_norm(y, {32}, weight, bias), "layer_norm", 1e-5);
    expect_matches_cpu(kael::layer_norm(y.transpose(0, 1).cuda(), {6, 32}), kael::layer_norm(y.transpose(0, 1), {6, 32}),
                       "layer_norm over two dims of a transposed input", 1e-5);
    EXPECT_THROW((void)kael::layer_norm(y.cuda(), {32}, weight, bias), kael::Error);  // parameters left on the host
}

TEST(CudaNn, LossesEmbeddingAndDropoutMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(17);
    const Tensor logits = kael::randn({8, 5});
    const Tensor target = kael::from_vector<std::int64_t>({0, 4, 2, -100, 1, 1, 3, -100}, {8});
    for (const kael::Reduction reduction : {kael::Reduction::None, kael::Reduction::Sum, kael::Reduction::Mean}) {
        expect_matches_cpu(kael::cross_entropy(logits.cuda(), target.cuda(), reduction),
                           kael::cross_entropy(logits, target, reduction), "cross_entropy", 1e-5);
    }
    const Tensor images = kael::randn({2, 5, 3, 3});  // [N, C, d1, d2]
    const Tensor labels = kael::randint(0, 5, {2, 3, 3});
    expect_matches_cpu(kael::cross_entropy(images.cuda(), labels.cuda()), kael::cross_entropy(images, labels),
                       "cross_entropy over positions", 1e-5);
    const std::string message = error_of([&] {
        (void)kael::cross_entropy(logits.cuda(), kael::full({8}, 5, DType::I64).cuda());
    });
    EXPECT_NE(message.find("target 5 is out of bounds for 5 classes"), std::string::npos) << message;
    expect_matches_cpu(kael::mse_loss(logits.cuda(), kael::zeros({5}).cuda()), kael::mse_loss(logits, kael::zeros({5})),
                       "mse_loss", 1e-5);
    const Tensor table = kael::randn({10, 4});
    const Tensor ids = kael::randint(0, 10, {3, 5});
    expect_matches_cpu(kael::embedding(table.cuda(), ids.cuda()), kael::embedding(table, ids), "embedding");
    EXPECT_THROW((void)kael::embedding(table.cuda(), kael::full({2}, 10, DType::I64).cuda()), kael::IndexError);
    // The mask is drawn on the host from the one generator, so a seed gives the same mask.
    const Tensor activations = kael::randn({50, 20});
    kael::manual_seed(99);
    const Tensor on_host = kael::dropout(activations, 0.3);
    kael::manual_seed(99);
    expect_matches_cpu(kael::dropout(activations.cuda(), 0.3), on_host, "dropout");
}

// ---- indexing and joining -------------------------------------------------------------------

TEST(CudaIndexing, GatherScatterAndIndexSelectMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(18);
    const Tensor x = kael::randn({5, 7, 3});
    const Tensor rows = kael::from_vector<std::int64_t>({4, 0, 0, 2}, {4});
    for (std::int64_t dim = 0; dim < 3; ++dim) {
        const Tensor index = kael::clamp(rows, 0, x.size(dim) - 1);
        expect_matches_cpu(kael::index_select(x.cuda(), dim, index.cuda()), kael::index_select(x, dim, index),
                           "index_select dim " + std::to_string(dim));
        expect_matches_cpu(kael::index_select(x.transpose(0, 2).cuda(), dim, kael::clamp(rows, 0, 2).cuda()),
                           kael::index_select(x.transpose(0, 2), dim, kael::clamp(rows, 0, 2)),
                           "index_select of a transposed input dim " + std::to_string(dim));
    }
    const Tensor where_from = kael::randint(0, 7, {5, 4, 3});
    expect_matches_cpu(kael::gather(x.cuda(), 1, where_from.cuda()), kael::gather(x, 1, where_from), "gather");
    const Tensor additions = kael::randn({5, 4, 3});
    // Repeated indices add up (atomically on the device).
    expect_matches_cpu(kael::scatter_add(x.cuda(), 1, where_from.cuda(), additions.cuda()),
                       kael::scatter_add(x, 1, where_from, additions), "scatter_add", 1e-6);
    const Tensor counts = kael::zeros({4}, DType::I64);
    const Tensor many = kael::randint(0, 4, {10000});
    expect_matches_cpu(kael::scatter_add(counts.cuda(), 0, many.cuda(), kael::ones({10000}, DType::I64).cuda()),
                       kael::scatter_add(counts, 0, many, kael::ones({10000}, DType::I64)), "int64 histogram");
    const std::string message = error_of([&] { (void)kael::gather(x.cuda(), 1, kael::full({5, 4, 3}, 7, DType::I64).cuda()); });
    EXPECT_NE(message.find("gather(): index 7 is out of bounds for dimension 1 with size 7"), std::string::npos)
        << message;
    EXPECT_THROW((void)kael::index_select(x.cuda(), 0, rows), kael::Error);  // the index left on the host
    expect_matches_cpu(kael::one_hot(rows.cuda(), 6), kael::one_hot(rows, 6), "one_hot");
}

TEST(CudaIndexing, TrianglesAndJoinsMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(19);
    const Tensor x = kael::randn({2, 5, 7});
    for (const std::int64_t diagonal : {-2, 0, 1, 9}) {
        expect_matches_cpu(kael::tril(x.cuda(), diagonal), kael::tril(x, diagonal), "tril " + std::to_string(diagonal));
        expect_matches_cpu(kael::triu(x.transpose(1, 2).cuda(), diagonal), kael::triu(x.transpose(1, 2), diagonal),
                           "triu of a transposed input " + std::to_string(diagonal));
    }
    const Tensor y = kael::randn({2, 3, 7});
    expect_matches_cpu(kael::cat({x.cuda(), y.cuda()}, 1), kael::cat({x, y}, 1), "cat");
    expect_matches_cpu(kael::stack({x.cuda(), x.cuda()}, 3), kael::stack({x, x}, 3), "stack");
    const std::string message = error_of([&] { (void)kael::cat({x.cuda(), y}, 1); });
    EXPECT_NE(message.find("expected all tensors to be on the same device"), std::string::npos) << message;
}

// ---- gradients on the device ----------------------------------------------------------------

// Runs f on a fresh leaf made from `input` on `device`, back-propagates sum(f(x) * w) with
// a fixed random w, and returns the gradient on the host.
Tensor gradient_on(Device device, const Tensor& input, const std::function<Tensor(const Tensor&)>& f) {
    Tensor x = input.to(device).clone().requires_grad_();
    const Tensor y = f(x);
    kael::manual_seed(5);
    const Tensor w = kael::randn(y.shape(), y.dtype()).to(device);
    kael::sum(kael::mul(y, w)).backward();
    return x.grad()->cpu();
}

TEST(CudaAutograd, BackwardFormulasRunOnTheDeviceAndMatchTheCpu) {
    KAEL_REQUIRE_GPU();
    kael::manual_seed(20);
    const Tensor x = kael::randn({4, 6});
    const Tensor ids = kael::from_vector<std::int64_t>({1, 1, 3, 0}, {4});
    using F = std::function<Tensor(const Tensor&)>;
    const std::vector<std::pair<std::string, F>> functions = {
        {"softmax", [](const Tensor& t) { return kael::softmax(t, 1); }},
        {"log_softmax", [](const Tensor& t) { return kael::log_softmax(t, 0); }},
        {"layer_norm", [](const Tensor& t) { return kael::layer_norm(t, {6}); }},
        {"gelu", [](const Tensor& t) { return kael::gelu(t); }},
        {"gelu tanh", [](const Tensor& t) { return kael::gelu(t, "tanh"); }},
        {"silu", [](const Tensor& t) { return kael::silu(t); }},
        {"tanh", [](const Tensor& t) { return kael::tanh(t); }},
        {"pow", [](const Tensor& t) { return kael::pow(t, 3); }},
        {"clamp", [](const Tensor& t) { return kael::clamp(t, -0.5, 0.5); }},
        {"mean over rows", [](const Tensor& t) { return kael::mean(t, {0}, true); }},
        {"var", [](const Tensor& t) { return kael::var(t, {1}); }},
        {"max", [](const Tensor& t) { return kael::max(t, 1).values; }},
        {"amax", [](const Tensor& t) { return kael::amax(t, {0}); }},
        {"logsumexp", [](const Tensor& t) { return kael::logsumexp(t, {1}); }},
        {"cumsum", [](const Tensor& t) { return kael::cumsum(t, 1); }},
        {"prod", [](const Tensor& t) { return kael::prod(t, {1}); }},
        {"slice and transpose", [](const Tensor& t) { return t.slice(1, 1, 6, 2).transpose(0, 1); }},
        {"expand", [](const Tensor& t) { return t.slice(0, 0, 1).expand({3, 6}); }},
        {"index_select", [ids](const Tensor& t) { return kael::index_select(t, 0, ids.to(t.device())); }},
        {"cat", [](const Tensor& t) { return kael::cat({t, kael::mul(t, 2)}, 1); }},
        {"where", [](const Tensor& t) { return kael::where(kael::gt(t, 0), t, kael::mul(t, t)); }},
        {"masked_fill", [](const Tensor& t) { return kael::masked_fill(t, kael::lt(t, 0), 0.0); }},
        {"matmul", [](const Tensor& t) { return kael::matmul(t, t.transpose(0, 1)); }},
        {"cross_entropy", [ids](const Tensor& t) {
             return kael::cross_entropy(t, ids.to(t.device()), kael::Reduction::None);
         }},
    };
    for (const auto& [name, f] : functions) {
        expect_matches_cpu(gradient_on(Device::CUDA, x, f).cuda(), gradient_on(Device::CPU, x, f), name, 1e-5);
    }
}

// ---- training on the device -------------------------------------------------------------------

// Trains a small MLP for a few Adam steps on `device`, the optimizer built before the move
// (it holds the same parameter impls, which Module::to moves in place), and returns the
// losses.
std::vector<double> train_mlp(Device device) {
    kael::manual_seed(21);
    auto model = std::make_shared<kael::nn::Sequential>(std::vector<std::shared_ptr<kael::nn::UnaryModule>>{
        std::make_shared<kael::nn::Linear>(12, 16), std::make_shared<kael::nn::ReLU>(),
        std::make_shared<kael::nn::Linear>(16, 3)});
    kael::optim::Adam adam(model->parameters(), {.lr = 1e-2});
    model->to(device);
    const Tensor inputs = kael::randn({32, 12}).to(device);
    const Tensor labels = kael::randint(0, 3, {32}).to(device);
    std::vector<double> losses;
    for (int step = 0; step < 20; ++step) {
        const Tensor loss = kael::cross_entropy((*model)(inputs), labels);
        adam.zero_grad();
        loss.backward();
        kael::nn::clip_grad_norm_(model->parameters(), 1.0);
        adam.step();
        losses.push_back(loss.item());
    }
    return losses;
}

TEST(CudaTraining, AnMlpTrainsOnTheDeviceAsOnTheHost) {
    KAEL_REQUIRE_GPU();
    const std::vector<double> on_host = train_mlp(Device::CPU);
    const std::vector<double> on_device = train_mlp(Device::CUDA);
    ASSERT_EQ(on_device.size(), on_host.size());
    for (std::size_t step = 0; step < on_host.size(); ++step) {
        EXPECT_NEAR(on_device[step], on_host[step], 1e-4 * std::max(1.0, std::abs(on_host[step]))) << "step " << step;
    }
    EXPECT_LT(on_device.back(), on_device.front());  // it learned
}

}  // namespace
