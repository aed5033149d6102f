// Prints the version of the kael it was linked against, and proves the library works.
#include <iostream>

#include "kael/version.h"
//> stage 3
#include "kael/kael.h"
//< stage 3

int main() {
    std::cout << kael::version() << '\n';
//> stage 3
    const kael::Tensor t = kael::ones({2, 2});
    std::cout << t.numel() << '\n';
//< stage 3
    return 0;
}
