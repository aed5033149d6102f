// Your implementation of exercise 08.2. See README.md for the task.
#include "exercise.h"

#include <stdexcept>

namespace exercise {

AllocationCounter::AllocationCounter(kael::Device device) : device_(device) {
    throw std::logic_error("exercise 08.2 (allocation-counter) is not implemented yet");
}

std::int64_t AllocationCounter::system_allocations() const {
    throw std::logic_error("exercise 08.2 (allocation-counter) is not implemented yet");
}

std::int64_t AllocationCounter::reuses() const {
    throw std::logic_error("exercise 08.2 (allocation-counter) is not implemented yet");
}

std::int64_t AllocationCounter::bytes_in_use_delta() const {
    throw std::logic_error("exercise 08.2 (allocation-counter) is not implemented yet");
}

void AllocationCounter::expect_no_system_allocations() const {
    throw std::logic_error("exercise 08.2 (allocation-counter) is not implemented yet");
}

void AllocationCounter::restart() {
    throw std::logic_error("exercise 08.2 (allocation-counter) is not implemented yet");
}

kael::Device AllocationCounter::device() const { return device_; }

}  // namespace exercise
