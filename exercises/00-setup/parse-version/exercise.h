#pragma once
// Exercise 00.1: reading a version string, and the rule find_package(kael) applies to it.

#include <compare>
#include <cstdint>
#include <string_view>

namespace exercise {

/// A version MAJOR.MINOR.PATCH as three numbers. Versions compare component by component,
/// major first, as numbers: 1.10.0 is newer than 1.9.0.
struct Version {
    std::int64_t major = 0;
    std::int64_t minor = 0;
    std::int64_t patch = 0;

    friend auto operator<=>(const Version&, const Version&) = default;
};

/// Reads "MAJOR.MINOR.PATCH", the format kael::version() returns. Anything else throws
/// kael::ValueError through KAEL_CHECK_VALUE; README.md lists the rules.
Version parse_version(std::string_view text);

/// Whether an installed kael of version `installed` satisfies `find_package(kael <wanted>)`
/// under the SameMajorVersion rule of the package's kaelConfigVersion.cmake.
bool satisfies(const Version& installed, const Version& wanted);

}  // namespace exercise
