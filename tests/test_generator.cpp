// kael::Generator and GeneratorGuard (chapter 13): a request's own random stream.
#include <gtest/gtest.h>

#include <thread>

#include "helpers.h"
#include "kael/generator.h"
#include "kael/random.h"

namespace {

using kael::Generator;
using kael::GeneratorGuard;
using kael::Tensor;
using kael::testing::values;

TEST(Generator, DrawsWhatTheGlobalGeneratorDrawsAfterTheSameSeed) {
    Generator own(7);
    std::vector<double> mine;
    std::vector<std::int64_t> picks;
    {
        const GeneratorGuard guard(own);
        mine = values<double>(kael::randn({6}, kael::DType::F64));
        picks = values<std::int64_t>(kael::multinomial(kael::ones({5}), 3));
    }
    kael::manual_seed(7);
    EXPECT_EQ(values<double>(kael::randn({6}, kael::DType::F64)), mine);
    EXPECT_EQ(values<std::int64_t>(kael::multinomial(kael::ones({5}), 3)), picks);
}

TEST(Generator, DrawsInsideAGuardLeaveTheGlobalStreamWhereItWas) {
    kael::manual_seed(3);
    const std::vector<float> expected = values<float>(kael::rand({4}));
    kael::manual_seed(3);
    const std::vector<float> first = values<float>(kael::rand({2}));
    Generator own(99);
    {
        const GeneratorGuard guard(own);
        (void)kael::rand({1000});
    }
    const std::vector<float> second = values<float>(kael::rand({2}));
    EXPECT_EQ(first[0], expected[0]);
    EXPECT_EQ(first[1], expected[1]);
    EXPECT_EQ(second[0], expected[2]);
    EXPECT_EQ(second[1], expected[3]);
}

TEST(Generator, GuardsNestAndRestoreTheOuterGenerator) {
    Generator outer(1);
    Generator inner(2);
    Generator outer_alone(1);
    Generator inner_alone(2);
    std::vector<float> from_outer;
    std::vector<float> from_inner;
    {
        const GeneratorGuard a(outer);
        from_outer = values<float>(kael::rand({2}));
        {
            const GeneratorGuard b(inner);
            from_inner = values<float>(kael::rand({2}));
        }
        const std::vector<float> more = values<float>(kael::rand({1}));
        from_outer.push_back(more[0]);
    }
    const GeneratorGuard check_outer(outer_alone);
    EXPECT_EQ(values<float>(kael::rand({3})), from_outer);
    const GeneratorGuard check_inner(inner_alone);
    EXPECT_EQ(values<float>(kael::rand({2})), from_inner);
}

TEST(Generator, ManualSeedInsideAGuardSeedsTheGlobalGenerator) {
    Generator own(5);
    Generator own_alone(5);
    std::vector<float> from_own;
    {
        const GeneratorGuard guard(own);
        kael::manual_seed(11);                         // the global generator, as in PyTorch
        from_own = values<float>(kael::rand({3}));  // still the lent one
    }
    const std::vector<float> global = values<float>(kael::rand({3}));
    kael::manual_seed(11);
    EXPECT_EQ(values<float>(kael::rand({3})), global);
    const GeneratorGuard check(own_alone);
    EXPECT_EQ(values<float>(kael::rand({3})), from_own);
}

TEST(Generator, AGuardLendsItsGeneratorToItsOwnThreadOnly) {
    kael::manual_seed(21);
    const std::vector<float> expected = values<float>(kael::rand({3}));
    kael::manual_seed(21);
    Generator own(0);
    const GeneratorGuard guard(own);
    std::vector<float> other;
    std::thread([&] { other = values<float>(kael::rand({3})); }).join();
    EXPECT_EQ(other, expected);
}

TEST(Generator, ReseedingStartsTheStreamAgain) {
    Generator own(8);
    std::vector<float> first;
    std::vector<float> again;
    const GeneratorGuard guard(own);
    first = values<float>(kael::rand({4}));
    own.manual_seed(8);
    again = values<float>(kael::rand({4}));
    EXPECT_EQ(first, again);
}

}  // namespace
