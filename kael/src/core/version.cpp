#include "kael/version.h"

#ifndef KAEL_VERSION
#error "KAEL_VERSION must be defined by the build (CMakeLists.txt sets it from the project version)"
#endif

namespace kael {

std::string_view version() noexcept { return KAEL_VERSION; }

}  // namespace kael
