// Tests of exercise 08.2. Every test fails until AllocationCounter is implemented.
//
// Most tests turn the cache off for their duration (CacheOff), where every allocation is a
// system allocation, so they run in every build. The ones about reuse need the cache and
// skip where it is compiled out (the sanitizer builds) or switched off by
// KAEL_NO_CACHING_ALLOCATOR; they make their counter before skipping, so that a stub still
// fails them there rather than being skipped.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "exercise.h"
#include "kael/allocator.h"
#include "kael/autograd.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/optim/sgd.h"
#include "kael/random.h"
#include "kael/storage.h"

namespace {

using exercise::AllocationCounter;
using kael::Storage;
using kael::Tensor;
using kael::detail::block_capacity;

// Switches the cache off for one scope, and back to what it was after.
class CacheOff {
public:
    CacheOff() : was_enabled_(kael::caching_allocator_enabled()) {
        kael::set_caching_allocator_enabled(false);
    }
    CacheOff(const CacheOff&) = delete;
    CacheOff& operator=(const CacheOff&) = delete;
    ~CacheOff() { kael::set_caching_allocator_enabled(was_enabled_); }

private:
    bool was_enabled_;
};

#define SKIP_WITHOUT_THE_CACHE()                                                           \
    if (!kael::caching_allocator_enabled()) {                                              \
        GTEST_SKIP() << "the caching allocator is off in this build or environment";       \
    }

std::string message_of(const AllocationCounter& counter) {
    try {
        counter.expect_no_system_allocations();
    } catch (const kael::Error& e) {
        return e.what();
    }
    return "(nothing thrown)";
}

Tensor seeded_weights() {
    kael::manual_seed(0);
    return kael::randn({32, 16}).requires_grad_();
}

// A small training step: a product, a tanh, a sum, its backward and an SGD update.
struct TrainStep {
    Tensor w = seeded_weights();
    Tensor x = kael::randn({8, 32});
    kael::optim::Sgd sgd{{w}, {.lr = 0.01}};
    void operator()() {
        sgd.zero_grad();  // the gradient goes, and the next backward allocates a new one
        kael::tanh(kael::matmul(x, w)).sum().backward();
        sgd.step();
    }
};

TEST(AllocationCounter, AFreshCounterReadsZero) {
    const AllocationCounter counter;
    EXPECT_EQ(counter.device(), kael::Device::CPU);
    EXPECT_EQ(counter.system_allocations(), 0);
    EXPECT_EQ(counter.reuses(), 0);
    EXPECT_EQ(counter.bytes_in_use_delta(), 0);
    EXPECT_NO_THROW(counter.expect_no_system_allocations());
}

TEST(AllocationCounter, CacheOffCountsEveryAllocation) {
    const CacheOff off;
    const AllocationCounter counter;
    {
        const Storage a(1000);
        const Storage b(70000);
        EXPECT_EQ(counter.system_allocations(), 2);
    }
    { const Storage again(1000); }  // released into no cache: the system again
    EXPECT_EQ(counter.system_allocations(), 3);
    EXPECT_EQ(counter.reuses(), 0);
    EXPECT_EQ(counter.bytes_in_use_delta(), 0);
}

TEST(AllocationCounter, TheDeltaFollowsBlockCapacities) {
    std::optional<Storage> older(2000);  // made before the counter
    const AllocationCounter counter;
    const Storage small(1000);
    EXPECT_EQ(counter.bytes_in_use_delta(), block_capacity(1000));  // 1024, not 1000
    {
        const Storage large(70000);
        EXPECT_EQ(counter.bytes_in_use_delta(), block_capacity(1000) + block_capacity(70000));
    }
    EXPECT_EQ(counter.bytes_in_use_delta(), block_capacity(1000));
    older.reset();  // a block older than the counter goes: the delta drops below zero
    EXPECT_EQ(counter.bytes_in_use_delta(), block_capacity(1000) - block_capacity(2000));
}

TEST(AllocationCounter, ExpectNoneThrowsNamingTheCount) {
    const CacheOff off;
    const AllocationCounter counter;
    EXPECT_NO_THROW(counter.expect_no_system_allocations());
    { const Storage one(512); }
    { const Storage two(512); }
    EXPECT_THROW(counter.expect_no_system_allocations(), kael::Error);
    const std::string message = message_of(counter);
    EXPECT_NE(message.find("expected no system allocations on cpu, got 2"), std::string::npos)
        << message;
}

TEST(AllocationCounter, RestartTakesANewSnapshot) {
    const CacheOff off;
    AllocationCounter counter;
    std::optional<Storage> kept(512);
    EXPECT_EQ(counter.system_allocations(), 1);
    EXPECT_EQ(counter.bytes_in_use_delta(), 512);
    counter.restart();
    EXPECT_EQ(counter.system_allocations(), 0);
    EXPECT_EQ(counter.bytes_in_use_delta(), 0);  // the live block is part of the new start
    EXPECT_NO_THROW(counter.expect_no_system_allocations());
    kept.reset();
    EXPECT_EQ(counter.bytes_in_use_delta(), -512);
}

TEST(AllocationCounter, CountsOnlyItsOwnDevice) {
    const CacheOff off;
    const AllocationCounter cpu;
    const AllocationCounter cuda(kael::Device::CUDA);
    EXPECT_EQ(cuda.device(), kael::Device::CUDA);
    const Storage block(4096);
    EXPECT_EQ(cpu.system_allocations(), 1);
    EXPECT_EQ(cpu.bytes_in_use_delta(), 4096);
    EXPECT_EQ(cuda.system_allocations(), 0);
    EXPECT_EQ(cuda.bytes_in_use_delta(), 0);
    EXPECT_NO_THROW(cuda.expect_no_system_allocations());
}

TEST(AllocationCounter, CacheOffEveryStepAllocates) {
    const CacheOff off;
    TrainStep step;
    step();
    step();
    AllocationCounter counter;
    step();
    const std::int64_t per_step = counter.system_allocations();
    EXPECT_GT(per_step, 0);
    for (int i = 0; i < 4; ++i) {
        step();
    }
    EXPECT_EQ(counter.system_allocations(), 5 * per_step);  // warm-up is no help without it
    EXPECT_EQ(counter.reuses(), 0);
    EXPECT_THROW(counter.expect_no_system_allocations(), kael::Error);
}

TEST(AllocationCounter, AReleasedBlockCountsAsAReuse) {
    AllocationCounter counter;  // before the skip: a stub fails here in every build
    SKIP_WITHOUT_THE_CACHE();
    kael::empty_cache();  // nothing cached: the first request must go to the system
    counter.restart();
    { const Storage first(1000); }
    EXPECT_EQ(counter.system_allocations(), 1);
    EXPECT_EQ(counter.reuses(), 0);
    { const Storage again(1020); }  // the same 1024-byte bucket
    EXPECT_EQ(counter.system_allocations(), 1);
    EXPECT_EQ(counter.reuses(), 1);
    EXPECT_EQ(counter.bytes_in_use_delta(), 0);
}

TEST(AllocationCounter, AWarmLoopNeedsNoSystemMemory) {
    AllocationCounter counter;  // before the skip: a stub fails here in every build
    SKIP_WITHOUT_THE_CACHE();
    kael::empty_cache();
    TrainStep step;
    step();  // the warm-up fills the cache
    step();
    EXPECT_GT(counter.system_allocations(), 0);
    counter.restart();
    for (int i = 0; i < 5; ++i) {
        step();
    }
    EXPECT_EQ(counter.system_allocations(), 0);
    EXPECT_GT(counter.reuses(), 0);
    EXPECT_EQ(counter.bytes_in_use_delta(), 0);  // each step frees what it took
    EXPECT_NO_THROW(counter.expect_no_system_allocations());
}

}  // namespace
