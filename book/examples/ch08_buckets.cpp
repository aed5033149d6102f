// Chapter 08, "Caching allocator": the bucket every request size falls into, what the
// rounding wastes, and the sizes the policy refuses.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::detail::block_capacity;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

// The bytes a tensor's storage asks for: its elements times their size.
std::int64_t request_of(const kael::Tensor& t) { return t.numel() * kael::element_size(t.dtype()); }

void row(std::int64_t request, const std::string& who) {
    const std::int64_t capacity = block_capacity(request);
    const std::int64_t waste = capacity - request;
    std::printf("%12lld  %12lld  %10lld  %5.1f%%%s%s\n", static_cast<long long>(request),
                static_cast<long long>(capacity), static_cast<long long>(waste),
                100.0 * static_cast<double>(waste) / static_cast<double>(capacity), who.empty() ? "" : "   ",
                who.c_str());
    std::fflush(stdout);
}

template <typename Body> void print_error(Body body) {
    try {
        body();
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
}

}  // namespace

int main() {
    section("table");
    std::printf("%12s  %12s  %10s  %6s   %s\n", "request", "capacity", "waste", "waste", "who asks");
    row(request_of(kael::zeros({}, kael::DType::Bool)), "a 0-d bool tensor");
    row(request_of(kael::zeros({3, 4})), "a [3, 4] float32 tensor");
    row(512, "");
    row(513, "");
    row(request_of(kael::zeros({100, 100})), "a [100, 100] float32 tensor");
    row(65536, "");
    row(65537, "");
    row(200000, "");
    row(request_of(kael::zeros({256, 256})), "a [256, 256] float32 tensor");
    row(262145, "");
    row(request_of(kael::empty({10'000'000})), "10 million float32 (the benchmark's add)");
    row(600'000'000, "");
    row((std::int64_t{1} << 30) + 1, "one byte over 1 GiB");

    section("worst-case");
    // The largest waste, in bytes and as a share of the block, over every request of a band.
    const std::vector<std::pair<std::int64_t, std::int64_t>> bands{
        {1, 512}, {513, 4096}, {4097, 65536}, {65537, 1 << 20}, {(1 << 20) + 1, 1 << 24}};
    for (const auto& [low, high] : bands) {
        std::int64_t worst_bytes = 0;
        double worst_share = 0;
        for (std::int64_t n = low; n <= high; ++n) {
            const std::int64_t capacity = block_capacity(n);
            worst_bytes = std::max(worst_bytes, capacity - n);
            worst_share = std::max(worst_share, static_cast<double>(capacity - n) / static_cast<double>(capacity));
        }
        std::printf("requests %9lld to %9lld: at most %8lld bytes wasted, at most %4.1f%% of a block\n",
                    static_cast<long long>(low), static_cast<long long>(high), static_cast<long long>(worst_bytes),
                    100.0 * worst_share);
    }
    std::fflush(stdout);

    section("refused");
    const std::int64_t limit = kael::detail::kMaxBlockBytes;
    std::cout << "block_capacity(2^62) = " << block_capacity(limit) << '\n';
    print_error([&] { (void)block_capacity(limit + 1); });
    print_error([] { (void)block_capacity(0); });
    print_error([] { (void)block_capacity(-8); });
}
