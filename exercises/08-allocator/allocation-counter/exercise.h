#pragma once
// Exercise 08.2: a probe of the allocator's statistics, for tests that prove a loop stops
// asking the system for memory once it is warm.

#include <cstdint>

#include "kael/allocator.h"
#include "kael/dtype.h"

namespace exercise {

/// Counts what one device's allocator did between the counter's start and now: the
/// counter snapshots kael::allocator_stats(device) when it is made (or restarted), and
/// every query subtracts that snapshot from the statistics of the moment. See README.md.
///
///     AllocationCounter counter;
///     for (int i = 0; i < 5; ++i) { train_step(); }
///     counter.expect_no_system_allocations();
class AllocationCounter {
public:
    /// Starts counting on `device`.
    explicit AllocationCounter(kael::Device device = kael::Device::CPU);

    /// Allocations that went to the system since the start: the allocator's misses.
    [[nodiscard]] std::int64_t system_allocations() const;
    /// Allocations served from the cache since the start: the allocator's hits.
    [[nodiscard]] std::int64_t reuses() const;
    /// Bytes of block capacity in use now less those in use at the start; negative when
    /// blocks older than the counter were released.
    [[nodiscard]] std::int64_t bytes_in_use_delta() const;
    /// Throws kael::Error, naming the device and the count, unless
    /// system_allocations() is 0.
    void expect_no_system_allocations() const;
    /// Starts over from the statistics of now, as a new counter would.
    void restart();
    /// The device counted.
    [[nodiscard]] kael::Device device() const;

private:
    kael::Device device_;
    kael::AllocatorStats start_;
};

}  // namespace exercise
