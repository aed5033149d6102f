// Tests of exercise 09.1. Every test fails until byte_offsets and fits_in_32_bits are
// implemented. Strides here are in bytes, as the iterator hands them to a kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cuda/offset_calculator.h"
#include "exercise.h"
#include "kael/error.h"
#include "kael/shape.h"

namespace {

using exercise::byte_offsets;
using exercise::fits_in_32_bits;
using kael::Shape;
using kael::Strides;
using Offsets = std::vector<std::int64_t>;

constexpr std::int64_t kLimit = std::numeric_limits<std::uint32_t>::max();  // 2^32 - 1
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Every element's offsets in row-major order, found without a division: an odometer that
// steps its last coordinate and carries into the ones before it, adding a stride on each
// step and taking back a whole row of them on each carry.
std::vector<Offsets> odometer(const Shape& shape, const std::vector<Strides>& strides) {
    std::vector<Offsets> all;
    for (const std::int64_t size : shape) {
        if (size == 0) {
            return all;
        }
    }
    Shape coordinate(shape.size(), 0);
    Offsets offsets(strides.size(), 0);
    all.push_back(offsets);
    std::size_t d = shape.size();
    while (d > 0) {
        --d;
        if (coordinate[d] + 1 == shape[d]) {  // this wheel is at its end: back to 0, carry
            for (std::size_t op = 0; op < strides.size(); ++op) {
                offsets[op] -= coordinate[d] * strides[op][d];
            }
            coordinate[d] = 0;
            continue;
        }
        ++coordinate[d];
        for (std::size_t op = 0; op < strides.size(); ++op) {
            offsets[op] += strides[op][d];
        }
        all.push_back(offsets);
        d = shape.size();  // the next step starts at the last wheel again
    }
    return all;
}

// The rule of fits_in_32_bits computed the slow way, for loops small enough to walk.
bool fits_by_walking(const Shape& shape, const std::vector<Strides>& strides) {
    const std::vector<Offsets> all = odometer(shape, strides);
    if (static_cast<std::int64_t>(all.size()) > kLimit) {
        return false;
    }
    for (const Offsets& offsets : all) {
        for (const std::int64_t offset : offsets) {
            if (offset > kLimit) {
                return false;
            }
        }
    }
    return true;
}

TEST(ByteOffsets, ContiguousFloatsAreFourBytesApart) {
    const Shape shape{2, 3, 4};
    const std::vector<Strides> strides{{48, 16, 4}};
    for (std::int64_t i = 0; i < 24; ++i) {
        EXPECT_EQ(byte_offsets(shape, strides, i), (Offsets{4 * i})) << i;
    }
}

TEST(ByteOffsets, TheLastDimensionMovesFastest) {
    // A [3, 2] float32 matrix read as its transpose [2, 3]: element (i, j) at 4 i + 8 j.
    const Shape shape{2, 3};
    const std::vector<Strides> strides{{4, 8}};
    const std::vector<std::int64_t> expected{0, 8, 16, 4, 12, 20};
    for (std::int64_t i = 0; i < 6; ++i) {
        EXPECT_EQ(byte_offsets(shape, strides, i), (Offsets{expected[static_cast<std::size_t>(i)]})) << i;
    }
}

TEST(ByteOffsets, OneIndexServesEveryOperand) {
    // out[3, 4] = a + b: out a new float32 tensor, a a float64 [4, 3] tensor transposed,
    // b an int64 row [1, 4] expanded over the rows.
    const Shape shape{3, 4};
    const std::vector<Strides> strides{{16, 4}, {8, 24}, {0, 8}};
    EXPECT_EQ(byte_offsets(shape, strides, 0), (Offsets{0, 0, 0}));
    EXPECT_EQ(byte_offsets(shape, strides, 1), (Offsets{4, 24, 8}));
    EXPECT_EQ(byte_offsets(shape, strides, 6), (Offsets{24, 56, 16}));  // row 1, column 2
    EXPECT_EQ(byte_offsets(shape, strides, 11), (Offsets{44, 88, 24}));
}

TEST(ByteOffsets, ZeroStridesRepeatAnElement) {
    // A scalar broadcast over everything, and a column [3, 1] expanded over four columns.
    const Shape shape{3, 4};
    const std::vector<Strides> strides{{0, 0}, {8, 0}};
    EXPECT_EQ(byte_offsets(shape, strides, 0), (Offsets{0, 0}));
    EXPECT_EQ(byte_offsets(shape, strides, 3), (Offsets{0, 0}));
    EXPECT_EQ(byte_offsets(shape, strides, 4), (Offsets{0, 8}));
    EXPECT_EQ(byte_offsets(shape, strides, 11), (Offsets{0, 16}));
}

TEST(ByteOffsets, SizeOneDimensionsNeverMove) {
    const Shape shape{3, 1, 2};
    const std::vector<Strides> strides{{1000, std::int64_t{1} << 40, 4}};
    EXPECT_EQ(byte_offsets(shape, strides, 1), (Offsets{4}));
    EXPECT_EQ(byte_offsets(shape, strides, 2), (Offsets{1000}));
    EXPECT_EQ(byte_offsets(shape, strides, 5), (Offsets{2004}));
}

TEST(ByteOffsets, OffsetsPastThirtyTwoBitsAreExact) {
    const Shape shape{4, 2};
    const std::vector<Strides> strides{{std::int64_t{1} << 33, 8}};
    EXPECT_EQ(byte_offsets(shape, strides, 7), (Offsets{3 * (std::int64_t{1} << 33) + 8}));
    EXPECT_EQ(byte_offsets({3}, {{kLimit}}, 2), (Offsets{2 * kLimit}));
}

TEST(ByteOffsets, ZeroDimensionalLoopsAndNoOperands) {
    EXPECT_EQ(byte_offsets({}, {{}, {}}, 0), (Offsets{0, 0}));  // one element, at offset 0
    EXPECT_TRUE(byte_offsets({2, 3}, {}, 5).empty());          // nothing to place
}

TEST(ByteOffsets, MatchesAnOdometerOnRandomLayouts) {
    std::mt19937_64 rng(909);
    const auto pick = [&](std::int64_t low, std::int64_t high) {
        return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
    };
    std::int64_t checked = 0;
    for (int round = 0; round < 300; ++round) {
        Shape shape(static_cast<std::size_t>(pick(0, 6)));
        for (std::int64_t& size : shape) {
            size = pick(1, 5);
        }
        std::vector<Strides> strides(static_cast<std::size_t>(pick(1, 4)), Strides(shape.size()));
        for (Strides& operand : strides) {
            for (std::int64_t& stride : operand) {
                switch (pick(0, 3)) {
                    case 0: stride = 0; break;                              // broadcast
                    case 1: stride = pick(1, 64); break;                    // small
                    case 2: stride = pick(1, 64) * 4096; break;             // pages apart
                    default: stride = pick(1, std::int64_t{1} << 40); break;  // large
                }
            }
        }
        const std::vector<Offsets> expected = odometer(shape, strides);
        for (std::size_t i = 0; i < expected.size(); ++i) {
            ASSERT_EQ(byte_offsets(shape, strides, static_cast<std::int64_t>(i)), expected[i])
                << "round " << round << ", shape " << kael::to_string(shape) << ", position " << i;
            ++checked;
        }
    }
    EXPECT_GT(checked, 10000);
}

// kael's own calculator (kael/src/cuda/offset_calculator.h), for N operands.
template <std::size_t N> Offsets library_offsets(const Shape& shape, const std::vector<Strides>& strides, std::int64_t linear) {
    std::array<const Strides*, N> operands{};
    for (std::size_t op = 0; op < N; ++op) {
        operands[op] = &strides[op];
    }
    const auto calculator = kael::cuda::make_offset_calculator<N, std::int64_t>(shape, operands);
    const auto got = calculator.offsets(linear);
    return Offsets(std::begin(got.of), std::end(got.of));
}

TEST(ByteOffsets, AgreesWithTheDevicesCalculator) {
    std::mt19937_64 rng(910);
    const auto pick = [&](std::int64_t low, std::int64_t high) {
        return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
    };
    for (int round = 0; round < 100; ++round) {
        Shape shape(static_cast<std::size_t>(pick(1, 5)));
        for (std::int64_t& size : shape) {
            size = pick(1, 6);
        }
        const std::size_t count = static_cast<std::size_t>(pick(1, 3));
        std::vector<Strides> strides(count, Strides(shape.size()));
        for (Strides& operand : strides) {
            for (std::int64_t& stride : operand) {
                stride = pick(0, 3) == 0 ? 0 : pick(1, 100000);
            }
        }
        const std::int64_t numel = kael::numel(shape);
        for (std::int64_t i = 0; i < numel; ++i) {
            const Offsets library = count == 1   ? library_offsets<1>(shape, strides, i)
                                    : count == 2 ? library_offsets<2>(shape, strides, i)
                                                 : library_offsets<3>(shape, strides, i);
            ASSERT_EQ(byte_offsets(shape, strides, i), library) << "round " << round << ", position " << i;
        }
    }
}

TEST(ByteOffsets, RefusesInconsistentLoops) {
    EXPECT_THROW((void)byte_offsets({2, 3}, {{4}}, 0), kael::ValueError);            // too few strides
    EXPECT_THROW((void)byte_offsets({2, 3}, {{12, 4}, {4}}, 0), kael::ValueError);   // one operand off
    EXPECT_THROW((void)byte_offsets({2, 3}, {{12, 4, 1}}, 0), kael::ValueError);     // too many
    EXPECT_THROW((void)byte_offsets({2, -3}, {{12, 4}}, 0), kael::ValueError);       // negative size
    EXPECT_THROW((void)byte_offsets({2, 3}, {{12, -4}}, 0), kael::ValueError);       // negative stride
}

TEST(ByteOffsets, PositionsOutsideTheLoopAreRefused) {
    EXPECT_EQ(byte_offsets({2, 3}, {{12, 4}}, 5), (Offsets{20}));  // the last position
    EXPECT_THROW((void)byte_offsets({2, 3}, {{12, 4}}, 6), kael::IndexError);
    EXPECT_THROW((void)byte_offsets({2, 3}, {{12, 4}}, -1), kael::IndexError);
    EXPECT_THROW((void)byte_offsets({2, 0, 3}, {{12, 12, 4}}, 0), kael::IndexError);  // empty
    EXPECT_THROW((void)byte_offsets({}, {{}}, 1), kael::IndexError);  // a 0-d loop has one
}

TEST(FitsIn32Bits, TheElementCountEndsAtTheLimit) {
    // Stride 0 throughout: only the count matters.
    EXPECT_TRUE(fits_in_32_bits({kLimit}, {{0}}));
    EXPECT_FALSE(fits_in_32_bits({kLimit + 1}, {{0}}));
    EXPECT_TRUE(fits_in_32_bits({65535, 65537}, {{0, 0}}));  // exactly 2^32 - 1 elements
    EXPECT_FALSE(fits_in_32_bits({65536, 65536}, {{0, 0}}));  // 2^32
    // Without operands the count is all there is.
    EXPECT_TRUE(fits_in_32_bits({kLimit}, {}));
    EXPECT_FALSE(fits_in_32_bits({kLimit + 1}, {}));
    // One byte per element: the count and the last offset (count - 1) both fit.
    EXPECT_TRUE(fits_in_32_bits({kLimit}, {{1}}));
}

TEST(FitsIn32Bits, TheLargestOffsetEndsAtTheLimit) {
    EXPECT_TRUE(fits_in_32_bits({2}, {{kLimit}}));
    EXPECT_FALSE(fits_in_32_bits({2}, {{kLimit + 1}}));
    // The last element's offset, (2 - 1) * s0 + (3 - 1) * 1, is what must fit.
    EXPECT_TRUE(fits_in_32_bits({2, 3}, {{kLimit - 2, 1}}));
    EXPECT_FALSE(fits_in_32_bits({2, 3}, {{kLimit - 1, 1}}));
    // 1 * s0 + 3 * 100000 + 7 * 1000 over three dimensions.
    const std::int64_t s0 = kLimit - 300000 - 7000;
    EXPECT_TRUE(fits_in_32_bits({2, 4, 8}, {{s0, 100000, 1000}}));
    EXPECT_FALSE(fits_in_32_bits({2, 4, 8}, {{s0 + 1, 100000, 1000}}));
    EXPECT_FALSE(fits_in_32_bits({2, 4, 8}, {{s0, 100000, 1001}}));
}

TEST(FitsIn32Bits, TheLastElementStartsBeforeItsEnd) {
    // 2^30 float32 elements span 2^32 bytes, one more than 32 bits count, yet the last one
    // starts at byte 2^32 - 4, and that is the largest offset a kernel computes.
    const std::int64_t elements = std::int64_t{1} << 30;
    EXPECT_TRUE(fits_in_32_bits({elements}, {{4}}));
    EXPECT_FALSE(fits_in_32_bits({elements + 1}, {{4}}));  // the last starts at 2^32
}

TEST(FitsIn32Bits, EveryOperandMustFit) {
    const Strides contiguous{12, 4};
    const Strides far{kLimit - 7, 4};  // last offset kLimit + 1
    const Strides near{kLimit - 8, 4};  // last offset kLimit
    EXPECT_FALSE(fits_in_32_bits({2, 3}, {contiguous, far}));
    EXPECT_FALSE(fits_in_32_bits({2, 3}, {far, contiguous}));
    EXPECT_TRUE(fits_in_32_bits({2, 3}, {contiguous, near, near}));
    EXPECT_FALSE(fits_in_32_bits({2, 3}, {contiguous, near, far}));
}

TEST(FitsIn32Bits, BroadcastAndSizeOneDimensionsNeverMove) {
    EXPECT_TRUE(fits_in_32_bits({std::int64_t{1} << 31}, {{0}}));
    EXPECT_TRUE(fits_in_32_bits({1, 5}, {{std::int64_t{1} << 60, 4}}));
    EXPECT_TRUE(fits_in_32_bits({1}, {{kInt64Max}}));
    EXPECT_TRUE(fits_in_32_bits({3, 1, 2}, {{kLimit / 2, kInt64Max, 0}}));
    EXPECT_FALSE(fits_in_32_bits({3, 1, 2}, {{kLimit / 2 + 1, kInt64Max, 0}}));
}

TEST(FitsIn32Bits, EmptyAndZeroDimensionalLoopsFit) {
    EXPECT_TRUE(fits_in_32_bits({0}, {{4}}));
    EXPECT_TRUE(fits_in_32_bits({kLimit + 5, 0}, {{std::int64_t{1} << 40, 4}}));
    // The sizes before the 0 multiply to 2^80: a count formed left to right overflows.
    const std::int64_t big = std::int64_t{1} << 40;
    EXPECT_TRUE(fits_in_32_bits({big, big, 0}, {{1, 1, 1}}));
    EXPECT_TRUE(fits_in_32_bits({}, {{}, {}}));  // one element, at offset 0
}

TEST(FitsIn32Bits, HugeLoopsDoNotOverflow) {
    // Each of these wraps around in plain int64 arithmetic, to a count or an offset that
    // would look small.
    EXPECT_FALSE(fits_in_32_bits({3}, {{std::int64_t{1} << 62}}));  // 2 * 2^62 = 2^63
    EXPECT_FALSE(fits_in_32_bits({2, 2}, {{kInt64Max, kInt64Max}}));
    EXPECT_FALSE(fits_in_32_bits({std::int64_t{1} << 32, std::int64_t{1} << 32}, {{0, 0}}));  // 2^64
    EXPECT_FALSE(fits_in_32_bits({std::int64_t{1} << 21, std::int64_t{1} << 21, std::int64_t{1} << 22}, {}));
    EXPECT_FALSE(fits_in_32_bits({kInt64Max, 2}, {{0, 0}}));
    EXPECT_FALSE(fits_in_32_bits({kInt64Max}, {{kInt64Max}}));
}

TEST(FitsIn32Bits, AgreesWithTheLargestOffsetOnRandomLayouts) {
    // Small loops whose strides are aimed at the limit: one stride is chosen so that the
    // last offset lands just below, on, or just past 2^32 - 1.
    std::mt19937_64 rng(911);
    const auto pick = [&](std::int64_t low, std::int64_t high) {
        return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
    };
    int fit = 0;
    int did_not = 0;
    for (int round = 0; round < 2000; ++round) {
        Shape shape(static_cast<std::size_t>(pick(1, 4)));
        for (std::int64_t& size : shape) {
            size = pick(0, 10) == 0 ? 0 : pick(1, 4);
        }
        std::vector<Strides> strides(static_cast<std::size_t>(pick(1, 3)), Strides(shape.size()));
        for (Strides& operand : strides) {
            const std::size_t aim = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(shape.size()) - 1));
            std::int64_t rest = 0;
            for (std::size_t d = 0; d < shape.size(); ++d) {
                operand[d] = pick(0, 3) == 0 ? 0 : pick(0, kLimit / 8);
                if (d != aim && shape[d] > 0) {
                    rest += (shape[d] - 1) * operand[d];
                }
            }
            const std::int64_t steps = shape[aim] - 1;
            if (steps > 0 && rest <= kLimit) {
                operand[aim] = std::max<std::int64_t>(0, (kLimit - rest) / steps + pick(-1, 1));
            }
        }
        const bool expected = fits_by_walking(shape, strides);
        ASSERT_EQ(fits_in_32_bits(shape, strides), expected)
            << "round " << round << ", shape " << kael::to_string(shape) << ", first strides "
            << kael::to_string(strides[0]);
        (expected ? fit : did_not) += 1;
    }
    EXPECT_GT(fit, 300);
    EXPECT_GT(did_not, 300);
}

TEST(FitsIn32Bits, RefusesInconsistentLoops) {
    EXPECT_THROW((void)fits_in_32_bits({2, 3}, {{4}}), kael::ValueError);
    EXPECT_THROW((void)fits_in_32_bits({2, 3}, {{12, 4}, {4, 4, 4}}), kael::ValueError);
    EXPECT_THROW((void)fits_in_32_bits({2, -3}, {{12, 4}}), kael::ValueError);
    EXPECT_THROW((void)fits_in_32_bits({2, 3}, {{-12, 4}}), kael::ValueError);
    EXPECT_THROW((void)fits_in_32_bits({0, 3}, {{12, -4}}), kael::ValueError);  // even when empty
}

}  // namespace
