#pragma once
/// \file
/// \brief The library version.

#include <string_view>

namespace kael {

/// The version of the compiled library, "major.minor.patch", taken from the CMake project
/// version when the library was built.
[[nodiscard]] std::string_view version() noexcept;

}  // namespace kael
