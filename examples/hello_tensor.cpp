// Copying a tensor shares it; clone() copies it. Compiles against kael.h alone.
#include <iostream>

#include "kael/kael.h"

int main() {
    kael::Tensor a = kael::arange(0, 6).to(kael::DType::F64);
    kael::Tensor b = a;          // a second handle to the same tensor
    kael::Tensor c = a.clone();  // an independent copy
    b.at<double>({0}) = 7.0;     // visible through a, not through c
    std::cout << a << '\n';
    return c.at<double>({0}) == 0.0 ? 0 : 1;
}
