// Your implementation of exercise 00.1. See README.md for the task.
#include "exercise.h"

#include <stdexcept>

namespace exercise {

Version parse_version(std::string_view /*text*/) {
    throw std::logic_error("exercise 00.1 (parse_version) is not implemented yet");
}

bool satisfies(const Version& /*installed*/, const Version& /*wanted*/) {
    throw std::logic_error("exercise 00.1 (satisfies) is not implemented yet");
}

}  // namespace exercise
