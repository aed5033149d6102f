// Chapter 08, "Caching allocator": a freed block serving the next request of its bucket,
// the statistics before and after, empty_cache and the run-time switch, a training loop
// that stops allocating after its first steps, an allocation the system refuses, and the
// page faults that a fresh block costs and a cached one does not.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::AllocatorStats;
using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

void print_stats(std::string_view label) {
    const AllocatorStats s = kael::allocator_stats();
    std::printf("%-24s in use %7lld  cached %7lld  reserved %7lld  hits %3lld  misses %3lld\n",
                std::string(label).c_str(), static_cast<long long>(s.in_use_bytes),
                static_cast<long long>(s.cached_bytes), static_cast<long long>(s.reserved_bytes),
                static_cast<long long>(s.hits), static_cast<long long>(s.misses));
    std::fflush(stdout);
}

const char* yes_no(bool value) { return value ? "yes" : "no"; }

// Minor page faults of this process so far: the first touches of fresh pages.
long page_faults() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

// Page faults per call of `body`, over `rounds` calls.
template <typename Body> long faults_per_call(int rounds, Body body) {
    const long before = page_faults();
    for (int i = 0; i < rounds; ++i) {
        body();
    }
    return (page_faults() - before) / rounds;
}

}  // namespace

int main() {
    section("reuse");
    print_stats("at start");
    const std::byte* first = nullptr;
    {
        const Tensor a = kael::zeros({100, 100});  // 40000 bytes, the 40448-byte bucket
        first = a.data_ptr_raw();
        print_stats("a = zeros({100, 100})");
    }
    print_stats("a destroyed");
    const Tensor b = kael::ones({99, 101});  // 39996 bytes, the same bucket
    print_stats("b = ones({99, 101})");
    std::cout << "b has a's old block: " << yes_no(b.data_ptr_raw() == first) << '\n';
    const Tensor c = kael::ones({100, 101});  // 40400 bytes, the same bucket again: no block free
    print_stats("c = ones({100, 101})");
    std::cout << "c has a's old block: " << yes_no(c.data_ptr_raw() == first) << '\n';

    section("empty-cache");
    {
        const Tensor big = kael::zeros({512, 512});  // 1 MiB
        const Tensor small = kael::zeros({10});
    }
    print_stats("two tensors destroyed");
    kael::empty_cache();
    print_stats("after empty_cache()");

    section("switch");
    kael::set_caching_allocator_enabled(false);
    std::cout << "caching_allocator_enabled(): " << yes_no(kael::caching_allocator_enabled()) << '\n';
    { const Tensor t = kael::ones({1000}); }
    print_stats("cache off, t destroyed");
    kael::set_caching_allocator_enabled(true);
    std::cout << "caching_allocator_enabled(): " << yes_no(kael::caching_allocator_enabled()) << '\n';
    { const Tensor t = kael::ones({1000}); }
    print_stats("cache on, t destroyed");
    { const Tensor t = kael::ones({1000}); }
    print_stats("once more");

    section("training");
    // The own matrix kernel, so that the counts below do not depend on the machine's BLAS.
    kael::set_matmul_backend(kael::MatmulBackend::Kael);
    kael::manual_seed(0);
    kael::nn::Sequential model({std::make_shared<kael::nn::Linear>(64, 32), std::make_shared<kael::nn::ReLU>(),
                                std::make_shared<kael::nn::Linear>(32, 10)});
    kael::optim::Adam adam(model.parameters(), {.lr = 1e-3});
    const Tensor x = kael::randn({16, 64});
    const Tensor y = kael::randint(0, 10, {16});
    for (int step = 1; step <= 5; ++step) {
        const AllocatorStats before = kael::allocator_stats();
        kael::reset_peak_allocator_stats();
        adam.zero_grad();
        const Tensor loss = kael::cross_entropy(model(x), y);
        loss.backward();
        adam.step();
        const AllocatorStats after = kael::allocator_stats();
        std::printf("step %d: %2lld misses, %2lld hits, in use %6lld bytes before the step, peak %6lld\n", step,
                    static_cast<long long>(after.misses - before.misses),
                    static_cast<long long>(after.hits - before.hits), static_cast<long long>(before.in_use_bytes),
                    static_cast<long long>(after.peak_in_use_bytes));
    }
    std::fflush(stdout);

    section("out-of-memory");
    { const Tensor t = kael::zeros({1000}); }
    print_stats("before");
    try {
        const Tensor huge = kael::empty({std::int64_t{1} << 60});  // 2^62 bytes
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
    print_stats("after");

    section("page-faults");
    const Tensor p = kael::ones({10'000'000});  // 40 MB, a 64 MiB block
    const Tensor q = kael::ones({10'000'000});
    { const Tensor warm = kael::add(p, q); }  // the first result's block, now cached
    const long warm = faults_per_call(5, [&] { const Tensor r = kael::add(p, q); });
    kael::set_caching_allocator_enabled(false);
    const long fresh = faults_per_call(5, [&] { const Tensor r = kael::add(p, q); });
    kael::set_caching_allocator_enabled(true);
    const long pages = 40'000'000 / 4096;
    std::printf("page faults per add, cache warm: %ld\n", warm);
    std::printf("page faults per add, cache off:  %s (the result has %ld pages of 4 KiB)\n",
                fresh >= pages ? "one or more per page" : fresh > 0 ? "fewer than one per page" : "none", pages);
}
