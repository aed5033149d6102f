// Streaming stores for large new outputs: the element-wise fast path writes an output of
// kStreamingStoreBytes or more through an L1 buffer and non-temporal stores. These tests
// check that it computes exactly what the ordinary loop computes, exactly at the threshold
// and one element on either side, with and without a partial last chunk, for every dtype.
// Outputs are only streamed while the caching allocator is on, so in the sanitizer builds,
// which compile the cache out, the operations take the ordinary loop; streamed_loop itself
// is tested directly in every build.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/streaming_store.h"
#include "kael/kael.h"

namespace {

using kael::Tensor;
using kael::detail::kStreamChunkBytes;
using kael::detail::kStreamingStoreBytes;
using kael::detail::streamed_loop;
using kael::detail::streams;

// True when every element of a equals the one of b, with dtypes and shapes equal too.
bool same(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && kael::all(kael::eq(a, b)).item() != 0.0;
}

// The element count of `dtype` whose bytes are exactly the threshold.
std::int64_t threshold_elements(std::int64_t element_size) { return kStreamingStoreBytes / element_size; }

// a + b through the fast path, against the same sum through the in-place iterator path,
// which never streams: both must agree element for element.
void expect_add_matches_the_ordinary_loop(kael::DType dtype, std::int64_t n) {
    const Tensor a = kael::arange(0, static_cast<double>(n), 1, kael::DType::I64).to(dtype);
    const Tensor b = kael::remainder(kael::arange(0, static_cast<double>(n), 1, kael::DType::I64), 7).to(dtype);
    const Tensor fresh = kael::add(a, b);
    Tensor ordinary = a.clone();
    ordinary.add_(b);
    EXPECT_TRUE(same(fresh, ordinary)) << "n = " << n << ", dtype " << dtype;
    // The very last element comes from the tail loop when a chunk is partial.
    EXPECT_TRUE(same(fresh.narrow(0, n - 1, 1), ordinary.narrow(0, n - 1, 1)));
}

TEST(StreamingStore, OutputsFromTheThresholdOnAreStreamed) {
    if (!kael::caching_allocator_enabled()) {
        GTEST_SKIP() << "the caching allocator is compiled out or off: nothing is streamed";
    }
    alignas(64) static float line[16];
    const std::int64_t n = threshold_elements(sizeof(float));
    EXPECT_FALSE(streams(line, n - 1));
    EXPECT_TRUE(streams(line, n));
    EXPECT_TRUE(streams(line, n + 1));
    // Streaming stores need whole aligned lines; a misaligned output takes the plain loop.
    EXPECT_FALSE(streams(line + 1, n));
}

TEST(StreamingStore, NothingIsStreamedWithTheCacheOff) {
    // Every large output is then fresh pages, which streaming stores would write slower.
    alignas(64) static float line[16];
    const bool was_enabled = kael::caching_allocator_enabled();
    kael::set_caching_allocator_enabled(false);
    EXPECT_FALSE(streams(line, 2 * threshold_elements(sizeof(float))));
    kael::set_caching_allocator_enabled(was_enabled);
}

TEST(StreamingStore, StreamedLoopWritesEveryElementOfEveryChunkAndTheTail) {
    const auto chunk = static_cast<std::int64_t>(kStreamChunkBytes / sizeof(double));
    for (const std::int64_t n : {std::int64_t{0}, chunk - 1, chunk, chunk + 1, 3 * chunk + 5}) {
        // A vector's memory is not promised to be 64-byte aligned: align by hand.
        std::vector<double> memory(static_cast<std::size_t>(n + 8), -1.0);
        double* result = memory.data();
        while (reinterpret_cast<std::uintptr_t>(result) % kael::detail::kStreamAlignment != 0) {
            ++result;
        }
        streamed_loop(result, n, [](std::int64_t k) { return 0.5 * static_cast<double>(k); });
        for (std::int64_t k = 0; k < n; ++k) {
            ASSERT_EQ(result[k], 0.5 * static_cast<double>(k)) << "n = " << n << ", k = " << k;
        }
        EXPECT_EQ(result[n], -1.0) << "nothing is written past the end, n = " << n;
    }
}

TEST(StreamingStore, Float32AddAtAndAroundTheThresholdMatchesTheOrdinaryLoop) {
    const std::int64_t n = threshold_elements(4);
    for (const std::int64_t size : {n - 1, n, n + 1}) {
        expect_add_matches_the_ordinary_loop(kael::DType::F32, size);
    }
}

TEST(StreamingStore, APartialLastChunkIsWrittenToo) {
    const auto chunk = static_cast<std::int64_t>(kStreamChunkBytes / 4);
    const std::int64_t n = threshold_elements(4);
    expect_add_matches_the_ordinary_loop(kael::DType::F32, n + chunk - 1);
    expect_add_matches_the_ordinary_loop(kael::DType::F32, n + chunk + 1);
}

TEST(StreamingStore, EveryDtypeStreamsTheSameValues) {
    expect_add_matches_the_ordinary_loop(kael::DType::F64, threshold_elements(8) + 3);
    expect_add_matches_the_ordinary_loop(kael::DType::I64, threshold_elements(8) + 3);
    const std::int64_t n = threshold_elements(1) + 5;
    const Tensor count = kael::arange(0, static_cast<double>(n), 1, kael::DType::I64);
    const Tensor a = kael::remainder(count, 2).to(kael::DType::Bool);
    const Tensor b = kael::eq(kael::remainder(count, 3), 0);
    Tensor ordinary = a.clone();
    ordinary.add_(b);
    EXPECT_TRUE(same(kael::add(a, b), ordinary));
}

TEST(StreamingStore, UnaryOutputsAreStreamedToo) {
    const std::int64_t n = threshold_elements(4) + 7;
    const Tensor x = kael::remainder(kael::arange(0, static_cast<double>(n), 1, kael::DType::I64), 1000)
                         .to(kael::DType::F32)
                         .div(100);
    const Tensor fresh = kael::exp(x);
    Tensor ordinary = kael::empty({n});
    ordinary.copy_(x.unsqueeze(0).expand({2, n}).exp().select(0, 1));  // the iterator's path
    EXPECT_TRUE(same(fresh, ordinary));
}

}  // namespace
