#pragma once
/// \file
/// \brief kael::Error, its typed subclasses, and the KAEL_CHECK family of macros.
///
/// Every failure kael reports is an exception derived from kael::Error, and every one of
/// them is raised through a KAEL_CHECK macro, so all messages share one format:
///
///     kael error at <file>:<line>: check '<condition>' failed: <message>

#include <sstream>
#include <stdexcept>
#include <string>

namespace kael {

/// Base class of every exception kael throws. Catching kael::Error catches them all.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

//> until 10
//| // Until stage 10 every check throws a plain kael::Error. The three names exist from the
//| // start, so that each call site already says which kind of mistake it reports.
//| using IndexError = Error;
//| using ValueError = Error;
//| using TypeError = Error;
//< until 10
//> stage 10
/// An element index, dimension or position is out of range. Python sees IndexError.
class IndexError : public Error {
public:
    using Error::Error;
};

/// A shape, size or argument value is invalid. Python sees ValueError.
class ValueError : public Error {
public:
    using Error::Error;
};

/// A dtype is unsupported or two dtypes do not match. Python sees TypeError.
class TypeError : public Error {
public:
    using Error::Error;
};
//< stage 10

namespace detail {

/// Formats the kael error message and throws `Exception`. Called only by the KAEL_CHECK
/// macros, after their condition has failed.
template <typename Exception>
[[noreturn]] void fail(const char* file, int line, const char* condition,
                       const std::string& message) {
    std::ostringstream text;
    text << "kael error at " << file << ':' << line << ": check '" << condition
         << "' failed: " << message;
    throw Exception(text.str());
}

/// Marks code after an exhaustive `switch` over an enum. Reaching it means the enum held a
/// value outside its enumerators (a corrupted cast, say); unlike std::unreachable() this is
/// a defined, catchable error.
[[noreturn]] inline void unreachable() {
    throw Error("kael internal error: reached unreachable code");
}

}  // namespace detail
}  // namespace kael

/// Throws `exception` with the kael message format when `cond` is false. The message is a
/// stream expression (`"got " << n`) and is only built when the check fails, so a passing
/// check costs one branch.
// `msg` is deliberately not parenthesized: it is pasted after `<<` to allow stream chains.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define KAEL_CHECK_AS(exception, cond, msg)                                                   \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            ::std::ostringstream kael_check_message_;                                         \
            kael_check_message_ << msg;                                                       \
            ::kael::detail::fail<exception>(__FILE__, __LINE__, #cond,                        \
                                            kael_check_message_.str());                       \
        }                                                                                     \
    } while (0)
// NOLINTEND(bugprone-macro-parentheses)

/// Checks an internal invariant or a device condition; throws kael::Error.
#define KAEL_CHECK(cond, msg) KAEL_CHECK_AS(::kael::Error, cond, msg)
/// Checks that an index, dimension or position is in range; throws kael::IndexError.
#define KAEL_CHECK_INDEX(cond, msg) KAEL_CHECK_AS(::kael::IndexError, cond, msg)
/// Checks a shape, size or argument value; throws kael::ValueError.
#define KAEL_CHECK_VALUE(cond, msg) KAEL_CHECK_AS(::kael::ValueError, cond, msg)
/// Checks a dtype; throws kael::TypeError.
#define KAEL_CHECK_TYPE(cond, msg) KAEL_CHECK_AS(::kael::TypeError, cond, msg)
