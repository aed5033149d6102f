#include <gtest/gtest.h>

#include "kael/version.h"

namespace {

// KAEL_EXPECTED_VERSION comes from the same CMake project version as the library's own
// KAEL_VERSION, through a separate definition: a bump that forgets one side fails here.
TEST(Version, MatchesTheProjectVersion) { EXPECT_EQ(kael::version(), KAEL_EXPECTED_VERSION); }

}  // namespace
