// Reference solution of exercise 08.2.
#include "exercise.h"
#include "kael/error.h"

namespace exercise {

AllocationCounter::AllocationCounter(kael::Device device)
    : device_(device), start_(kael::allocator_stats(device)) {}

// Each query reads the statistics afresh: the allocator's counters only grow (hits and
// misses) or move with the blocks in use, so a difference from the snapshot is all it takes.
std::int64_t AllocationCounter::system_allocations() const {
    return kael::allocator_stats(device_).misses - start_.misses;
}

std::int64_t AllocationCounter::reuses() const {
    return kael::allocator_stats(device_).hits - start_.hits;
}

std::int64_t AllocationCounter::bytes_in_use_delta() const {
    return kael::allocator_stats(device_).in_use_bytes - start_.in_use_bytes;
}

void AllocationCounter::expect_no_system_allocations() const {
    const std::int64_t count = system_allocations();  // read once: the message says the same
    KAEL_CHECK(count == 0, "expected no system allocations on " << device_ << ", got " << count);
}

void AllocationCounter::restart() { start_ = kael::allocator_stats(device_); }

kael::Device AllocationCounter::device() const { return device_; }

}  // namespace exercise
