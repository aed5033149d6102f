#pragma once
// Turns a fuzzer's bytes into the arguments of shape and view functions. Most numbers
// are small, since a small tensor's interesting shapes, strides and dimensions are small;
// some are the extremes where overflow lives (2^62, the int64 limits); and some are any
// 64-bit value at all.

#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace kael::fuzz {

class FuzzInput {
public:
    FuzzInput(const std::uint8_t* data, std::size_t size) : bytes_(data, size) {}

    [[nodiscard]] bool exhausted() { return bytes_.remaining_bytes() == 0; }

    /// One of the enumerators of E, which must end with kMaxValue.
    template <typename E> [[nodiscard]] E pick() { return bytes_.ConsumeEnum<E>(); }

    [[nodiscard]] bool flag() { return bytes_.ConsumeBool(); }

    /// A number in [low, high].
    [[nodiscard]] std::int64_t in_range(std::int64_t low, std::int64_t high) {
        return bytes_.ConsumeIntegralInRange(low, high);
    }

    /// A size, stride, offset, index or dimension: usually in [-3, 8], now and then an
    /// extreme, now and then anything.
    [[nodiscard]] std::int64_t number() {
        constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
        constexpr std::array<std::int64_t, 10> kExtremes{
            kMax, std::numeric_limits<std::int64_t>::min(), kMax / 2, std::int64_t{1} << 62,
            (std::int64_t{1} << 62) + 1, std::int64_t{1} << 32, std::int64_t{1} << 31,
            3'037'000'500,  // just above the square root of 2^63
            -2, 1'000'000};
        switch (bytes_.ConsumeIntegralInRange(0, 7)) {
        case 0:
            return kExtremes[bytes_.ConsumeIntegralInRange<std::size_t>(0, kExtremes.size() - 1)];
        case 1:
            return bytes_.ConsumeIntegral<std::int64_t>();
        default:
            return bytes_.ConsumeIntegralInRange<std::int64_t>(-3, 8);
        }
    }

    /// A shape, strides, an index or a list of dimensions: up to six numbers.
    [[nodiscard]] std::vector<std::int64_t> numbers() {
        std::vector<std::int64_t> values(bytes_.ConsumeIntegralInRange<std::size_t>(0, 6));
        for (std::int64_t& value : values) {
            value = number();
        }
        return values;
    }

    /// A slice bound, which may be left out.
    [[nodiscard]] std::optional<std::int64_t> maybe_number() {
        if (flag()) {
            return number();
        }
        return std::nullopt;
    }

private:
    FuzzedDataProvider bytes_;
};

}  // namespace kael::fuzz
