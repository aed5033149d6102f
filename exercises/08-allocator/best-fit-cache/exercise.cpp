// Your implementation of exercise 08.1. See README.md for the task.
#include "exercise.h"

#include <stdexcept>

namespace exercise {

BestFitCache::BestFitCache(SystemAllocate system_allocate, SystemFree system_free,
                           std::int64_t max_waste_percent)
    : system_allocate_(system_allocate), system_free_(system_free),
      max_waste_percent_(max_waste_percent) {
    throw std::logic_error("exercise 08.1 (best-fit-cache) is not implemented yet");
}

BestFitCache::~BestFitCache() { empty(); }

Block BestFitCache::allocate(std::int64_t /*nbytes*/) {
    throw std::logic_error("exercise 08.1 (best-fit-cache) is not implemented yet");
}

void BestFitCache::release(Block /*block*/) noexcept {}

void BestFitCache::empty() noexcept {}

std::int64_t BestFitCache::hits() const {
    throw std::logic_error("exercise 08.1 (best-fit-cache) is not implemented yet");
}

std::int64_t BestFitCache::misses() const {
    throw std::logic_error("exercise 08.1 (best-fit-cache) is not implemented yet");
}

std::int64_t BestFitCache::cached_bytes() const {
    throw std::logic_error("exercise 08.1 (best-fit-cache) is not implemented yet");
}

std::int64_t BestFitCache::cached_blocks() const {
    throw std::logic_error("exercise 08.1 (best-fit-cache) is not implemented yet");
}

}  // namespace exercise
