// A tensor with static storage duration: it is destroyed after main returns, and its block
// goes back to the caching allocator then. The caches are never destroyed (allocator.cpp),
// so the release finds a live cache; a crash or a sanitizer report here fails the test.
#include <iostream>

#include "kael/kael.h"

namespace {

const kael::Tensor kStatic = kael::ones({1000});

}  // namespace

int main() {
    std::cout << "static tensor of " << kStatic.numel() << " elements alive in main\n";
    return 0;
}
