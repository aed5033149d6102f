// Chapter 00: what kael's checks print, and how they behave. Every message below is the
// real text of the exception, printed with e.what(). It runs against stage 1, which has no
// library function that checks anything yet: the chapter's examples of a check inside the
// library and inside an installed header are in ch01_shapes.cpp.
#include <iostream>
#include <stdexcept>
#include <type_traits>

#include "kael/error.h"
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

// An index check, as chapter 01's wrap_dim will have one.
int check_index(int index, int size) {
    KAEL_CHECK_INDEX(index < size, "index " << index << " is out of range for size " << size);
    return index;
}

}  // namespace

int main() {
    section("version");
    std::cout << "kael " << kael::version() << '\n';

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
    // While the names are aliases, a handler for ValueError catches the index check too.
    // (A second handler for IndexError would never run; g++ warns that it is unreachable.)
    try {
        (void)check_index(5, 2);
    } catch (const kael::ValueError&) {
        std::cout << "check_index(5, 2) was caught as ValueError\n";
    } catch (const std::exception&) {
        std::cout << "check_index(5, 2) was not caught as ValueError\n";
    }
    try {
        (void)count_rows(-1);
    } catch (const std::runtime_error&) {
        std::cout << "count_rows(-1) was caught as std::runtime_error\n";
    }

    section("unreachable");
    print_error([] { kael::detail::unreachable(); });
    return 0;
}
