// kael::Profiler (chapter 13): every operation of a stretch of code, with its inputs, its
// time and its allocations, as a table and as a Chrome trace.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <thread>

#include "helpers.h"
#include "kael/kael.h"
#include "kael/profiler.h"

namespace {

using kael::ProfileEvent;
using kael::Profiler;
using kael::Tensor;
using kael::testing::TempDir;

// The events of `profiler` named `name`.
std::vector<ProfileEvent> named(const Profiler& profiler, const std::string& name) {
    std::vector<ProfileEvent> found;
    for (const ProfileEvent& e : profiler.events()) {
        if (e.name == name) {
            found.push_back(e);
        }
    }
    return found;
}

TEST(Profiler, RecordsEachOperationWithItsInputsAndAllocations) {
    const Tensor a = kael::randn({4, 3});
    const Tensor b = kael::randn({3, 5});
    Profiler profiler;
    const Tensor c = kael::matmul(a, b);
    const Tensor d = kael::exp(c);
    profiler.stop();
    const std::vector<ProfileEvent> matmul = named(profiler, "matmul");
    ASSERT_EQ(matmul.size(), 1U);
    EXPECT_EQ(matmul[0].kind, "op");
    EXPECT_EQ(matmul[0].shapes, (std::vector<kael::Shape>{{4, 3}, {3, 5}}));
    EXPECT_EQ(matmul[0].dtypes, (std::vector<kael::DType>{kael::DType::F32, kael::DType::F32}));
    EXPECT_EQ(matmul[0].device, kael::Device::CPU);
    EXPECT_EQ(matmul[0].bytes_allocated, 4 * 5 * 4);  // its output, float32
    EXPECT_GE(matmul[0].duration_us, 0.0);
    const std::vector<ProfileEvent> exp = named(profiler, "exp");
    ASSERT_EQ(exp.size(), 1U);
    EXPECT_EQ(exp[0].shapes, (std::vector<kael::Shape>{{4, 5}}));
    EXPECT_GE(exp[0].start_us, matmul[0].start_us + matmul[0].duration_us);
}

TEST(Profiler, NothingIsRecordedOutsideItsLifetime) {
    const Tensor a = kael::ones({2});
    (void)kael::exp(a);
    Profiler profiler;
    (void)kael::neg(a);
    profiler.stop();
    (void)kael::sqrt(a);
    EXPECT_EQ(named(profiler, "exp").size(), 0U);
    EXPECT_EQ(named(profiler, "neg").size(), 1U);
    EXPECT_EQ(named(profiler, "sqrt").size(), 0U);
    EXPECT_FALSE(kael::profiler::enabled());
}

TEST(Profiler, ModulesHoldTheirOperationsAndSelfTimeExcludesThem) {
    kael::manual_seed(0);
    kael::nn::Linear layer(8, 4);
    const Tensor x = kael::randn({2, 8});
    Profiler profiler;
    (void)layer(x);
    profiler.stop();
    const std::vector<ProfileEvent> linear = named(profiler, "Linear");
    ASSERT_EQ(linear.size(), 1U);
    EXPECT_EQ(linear[0].kind, "module");
    EXPECT_EQ(linear[0].depth, 0);
    const std::vector<ProfileEvent> matmul = named(profiler, "matmul");
    ASSERT_EQ(matmul.size(), 1U);
    EXPECT_EQ(matmul[0].depth, 1);
    EXPECT_LE(linear[0].self_us, linear[0].duration_us - matmul[0].duration_us + 1e-6);
    EXPECT_GE(linear[0].bytes_allocated, matmul[0].bytes_allocated);  // nested calls included
}

TEST(Profiler, BackwardNodesAndInPlaceOperationsAreRecorded) {
    const Tensor w = kael::ones({3}).requires_grad_();
    Tensor buffer = kael::zeros({3});
    Profiler profiler;
    kael::mul(w, kael::full({3}, 2.0)).sum().backward();  // w used once: the engine adds nothing up
    buffer.add_(kael::ones({3}));
    profiler.stop();
    const std::vector<ProfileEvent> mul_backward = named(profiler, "MulBackward");
    ASSERT_EQ(mul_backward.size(), 1U);
    EXPECT_EQ(mul_backward[0].kind, "backward");
    const std::vector<ProfileEvent> add = named(profiler, "add_");
    ASSERT_EQ(add.size(), 1U);
    EXPECT_EQ(add[0].kind, "in-place");
    EXPECT_EQ(add[0].shapes, (std::vector<kael::Shape>{{3}}));
}

TEST(Profiler, ABatchTimesAWeightTakesTheWeightGradientFromOneProduct) {
    // A Linear on [B, T, C]: the weight's gradient is one [C, B*T] x [B*T, N] product, with
    // no [B, C, N] of per-batch gradients to sum afterwards (chapter 07).
    const Tensor x = kael::randn({4, 8, 16}).requires_grad_();
    const Tensor w = kael::randn({16, 5}).requires_grad_();
    const Tensor loss = kael::matmul(x, w).sum();
    Profiler profiler;
    loss.backward();
    profiler.stop();
    const std::vector<ProfileEvent> products = named(profiler, "matmul");
    ASSERT_EQ(products.size(), 2U);  // d/dx and d/dw, nothing per batch element
    EXPECT_EQ(products[0].shapes, (std::vector<kael::Shape>{{4, 8, 5}, {5, 16}}));  // d/dx = g w^T
    EXPECT_EQ(products[1].shapes, (std::vector<kael::Shape>{{16, 32}, {32, 5}}));   // d/dw = x^T g, 32 rows
    EXPECT_TRUE(named(profiler, "sum").empty());
    EXPECT_EQ(w.grad()->shape(), (kael::Shape{16, 5}));
}

TEST(Profiler, TheSummaryAddsUpByNameLargestTotalFirst) {
    const Tensor a = kael::ones({64, 64});
    Profiler profiler;
    for (int i = 0; i < 3; ++i) {
        (void)kael::matmul(a, a);
    }
    (void)kael::neg(a);
    profiler.stop();
    const std::vector<kael::ProfileRow> rows = profiler.rows();
    ASSERT_GE(rows.size(), 2U);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        EXPECT_GE(rows[i - 1].total_us, rows[i].total_us);
    }
    const auto matmul = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.name == "matmul"; });
    ASSERT_NE(matmul, rows.end());
    EXPECT_EQ(matmul->calls, 3);
    EXPECT_EQ(matmul->self_bytes, 3 * 64 * 64 * 4);
    const std::string table = profiler.summary();
    EXPECT_NE(table.find("matmul"), std::string::npos);
    EXPECT_NE(table.find("calls"), std::string::npos);
    EXPECT_EQ(profiler.summary(1).find("neg"), std::string::npos);  // one row only
    EXPECT_NE(profiler.summary(1).find("and 1 more names"), std::string::npos);
}

TEST(Profiler, TheChromeTraceIsJsonWithOneCompleteEventPerCall) {
    const Tensor a = kael::ones({2, 2});
    Profiler profiler;
    (void)kael::exp(a);
    (void)kael::matmul(a, a);
    profiler.stop();
    const TempDir dir;
    const std::filesystem::path path = dir.path() / "trace.json";
    profiler.write_chrome_trace(path);
    std::ifstream file(path);
    const nlohmann::json trace = nlohmann::json::parse(file);
    std::size_t complete = 0;
    for (const auto& event : trace["traceEvents"]) {
        if (event["ph"] == "X") {
            ++complete;
            EXPECT_TRUE(event["ts"].is_number());
            EXPECT_TRUE(event["dur"].is_number());
            EXPECT_EQ(event["pid"], 1);
        }
    }
    EXPECT_EQ(complete, profiler.events().size());
    EXPECT_EQ(trace["traceEvents"][0]["args"]["shapes"][0], "[2, 2]");
}

TEST(Profiler, ATraceThatCannotBeWrittenIsAnErrorNamingThePath) {
    Profiler profiler;
    (void)kael::exp(kael::ones({1}));
    profiler.stop();
    const std::filesystem::path path = "/nonexistent-directory-of-kael/trace.json";
    try {
        profiler.write_chrome_trace(path);
        ADD_FAILURE() << "a trace was written to " << path;
    } catch (const kael::Error& e) {
        EXPECT_NE(std::string(e.what()).find("nonexistent-directory-of-kael"), std::string::npos) << e.what();
    }
}

TEST(Profiler, OneRecordsAtATimeAndAnEmptyProfileIsFine) {
    Profiler first;
    EXPECT_THROW(Profiler(), kael::Error);
    first.stop();
    EXPECT_TRUE(first.events().empty());
    EXPECT_TRUE(first.rows().empty());
    EXPECT_NE(first.summary().find("0 calls"), std::string::npos);
    Profiler second;  // the first has stopped
    EXPECT_TRUE(kael::profiler::enabled());
}

TEST(Profiler, EachThreadHasItsOwnTrack) {
    Profiler profiler;
    (void)kael::neg(kael::ones({2}));
    std::thread([] { (void)kael::neg(kael::ones({2})); }).join();
    profiler.stop();
    const std::vector<ProfileEvent> neg = named(profiler, "neg");
    ASSERT_EQ(neg.size(), 2U);
    EXPECT_NE(neg[0].thread, neg[1].thread);
}

TEST(Profiler, FunctionNamesComeFromSignatures) {
    using kael::profiler::function_name;
    EXPECT_EQ(function_name("kael::Tensor kael::exp(const kael::Tensor&)"), "exp");
    EXPECT_EQ(function_name("kael::Tensor kael::Tensor::sum(const Dims&) const"), "sum");
    EXPECT_EQ(function_name("kael::Tensor kael::{anonymous}::helper<float>(int)"), "helper");
    EXPECT_EQ(function_name("kael::Tensor kael::matmul(const kael::Tensor&, const kael::Tensor&)::<lambda()>"),
              "matmul");
    EXPECT_EQ(function_name("plain"), "plain");
}

}  // namespace
