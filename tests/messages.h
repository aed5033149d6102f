#pragma once
// The message of a failed check, for the tests of every stage (it needs only error.h).

#include <string>

#include "kael/error.h"

namespace kael::testing {

/// The message of the kael::Error that `f` throws, or "no exception".
template <typename F> std::string message_of(F&& f) {
    try {
        f();
    } catch (const Error& error) {
        return error.what();
    }
    return "no exception";
}

}  // namespace kael::testing
