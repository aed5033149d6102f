#pragma once
// What the fuzz targets count as a finding, beyond the crashes, sanitizer reports and
// leaks that libFuzzer catches by itself: an exception that is not a kael::Error, and a
// property of a result that does not hold. Either prints what went wrong and aborts,
// which libFuzzer reports as a crash and saves the input that caused it.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <typeindex>
#include <typeinfo>

#include "kael/error.h"

namespace kael::fuzz {

/// Aborts with `what` unless `property` holds.
inline void require(bool property, const char* what) {
    if (!property) {
        std::fprintf(stderr, "kael fuzz: property failed: %s\n", what);
        std::abort();
    }
}

/// Runs `f`. Returns nothing when it returns, and the class of the kael::Error when it
/// throws one: a refusal, which is what malformed input should get. Any other exception
/// aborts, since kael promises that every failure it reports is a kael::Error.
template <typename F> std::optional<std::type_index> refusal_of(F&& f) {
    try {
        f();
        return std::nullopt;
    } catch (const Error& error) {
        return std::type_index(typeid(error));
    } catch (const std::exception& error) {
        std::fprintf(stderr, "kael fuzz: an exception that is not a kael::Error: %s\n", error.what());
        std::abort();
    } catch (...) {
        std::fprintf(stderr, "kael fuzz: something that is not even a std::exception was thrown\n");
        std::abort();
    }
}

/// True when `f` returns, false when it throws a kael::Error; see refusal_of.
template <typename F> bool succeeds(F&& f) { return !refusal_of(f).has_value(); }

}  // namespace kael::fuzz
