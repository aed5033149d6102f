// Reference solution of exercise 00.1.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {
namespace {

// Reads one component of `text` as a non-negative decimal number that fits in 64 bits.
std::int64_t parse_component(std::string_view text, std::string_view part) {
    KAEL_CHECK_VALUE(!part.empty(), "invalid version '" << text << "': a component is empty");
    KAEL_CHECK_VALUE(part.size() == 1 || part.front() != '0',
                     "invalid version '" << text << "': '" << part << "' has a leading zero");
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    std::int64_t value = 0;
    for (const char c : part) {
        KAEL_CHECK_VALUE(c >= '0' && c <= '9', "invalid version '" << text << "': '" << part
                                                                   << "' is not a decimal number");
        const std::int64_t digit = c - '0';
        // value * 10 + digit <= max, decided before computing it: a signed overflow would be
        // undefined behaviour, and the check after it could be optimized away.
        KAEL_CHECK_VALUE(value <= (max - digit) / 10,
                         "invalid version '" << text << "': '" << part << "' does not fit in 64 bits");
        value = value * 10 + digit;
    }
    return value;
}

}  // namespace

Version parse_version(std::string_view text) {
    KAEL_CHECK_VALUE(std::count(text.begin(), text.end(), '.') == 2,
                     "invalid version '" << text << "': expected MAJOR.MINOR.PATCH");
    const std::size_t first = text.find('.');
    const std::size_t second = text.find('.', first + 1);
    // The elements of a braced list are evaluated left to right, so errors name the first
    // bad component.
    return Version{parse_component(text, text.substr(0, first)),
                   parse_component(text, text.substr(first + 1, second - first - 1)),
                   parse_component(text, text.substr(second + 1))};
}

bool satisfies(const Version& installed, const Version& wanted) {
    return installed.major == wanted.major && installed >= wanted;
}

}  // namespace exercise
