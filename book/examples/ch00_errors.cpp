// Chapter 00: what kael's checks print, and how they behave. Every message below is the
// real text of the exception, printed with e.what().
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <type_traits>

#include "kael/checked_math.h"
#include "kael/error.h"
#include "kael/shape.h"
#include "kael/version.h"

namespace {

void section(const char* name) { std::cout << "--- section: " << name << " ---\n"; }

// Runs `body` and prints the message of the kael::Error it throws.
template <typename Body>
void print_error(Body body) {
    try {
        body();
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
}

int count_rows(int rows) {
    KAEL_CHECK_VALUE(rows > 0, "a matrix needs at least one row, got " << rows);
    return rows;
}

}  // namespace

int main() {
    section("version");
    std::cout << "kael " << kael::version() << '\n';

    // A check inside a library source file: the path is relative to kael/.
    section("library");
    print_error([] { (void)kael::numel(kael::Shape{2, -3}); });

    // A check inside an inline function of an installed header.
    section("header");
    print_error([] { (void)kael::detail::checked_mul(std::int64_t{1} << 62, 4, "byte count"); });

    // A check in this program's own source: the path is whatever the compiler was given.
    section("user");
    print_error([] { (void)count_rows(0); });

    // The message is built only when the check fails.
    section("lazy");
    int builds = 0;
    auto describe = [&builds] {
        ++builds;
        return "expensive description";
    };
    KAEL_CHECK(2 + 2 == 4, describe());
    std::cout << "after a passing check, message built " << builds << " time(s)\n";
    try {
        KAEL_CHECK(2 + 2 == 5, describe());
    } catch (const kael::Error&) {
        std::cout << "the failing check threw kael::Error\n";
    }
    std::cout << "after a failing check, message built " << builds << " time(s)\n";

    // What each typed name is in this build of the library.
    section("types");
    std::cout << std::boolalpha;
    std::cout << "IndexError is the same type as Error: "
              << std::is_same_v<kael::IndexError, kael::Error> << '\n';
    std::cout << "ValueError derives from Error: "
              << std::is_base_of_v<kael::Error, kael::ValueError> << '\n';
    std::cout << "Error derives from std::runtime_error: "
              << std::is_base_of_v<std::runtime_error, kael::Error> << '\n';
    try {
        (void)kael::wrap_dim(5, 2);
    } catch (const kael::ValueError&) {
        std::cout << "wrap_dim(5, 2) was caught as ValueError\n";
    } catch (const kael::IndexError&) {
        std::cout << "wrap_dim(5, 2) was caught as IndexError\n";
    }
    try {
        (void)kael::numel(kael::Shape{-1});
    } catch (const std::runtime_error&) {
        std::cout << "numel({-1}) was caught as std::runtime_error\n";
    }

    section("unreachable");
    print_error([] { kael::detail::unreachable(); });
    return 0;
}
