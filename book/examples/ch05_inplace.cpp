// Chapter 05, "In-place operations": writes through views, the guards every in-place
// operation passes (expanded targets, partial aliasing, dtype casts) and the version
// counter on the storage.
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;
using I = std::int64_t;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

template <typename Body> void print_error(Body body) {
    try {
        body();
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
}

I version_of(const Tensor& t) { return t.impl()->storage->version(); }

}  // namespace

int main() {
    section("views");
    {
        Tensor base = kael::zeros({2, 3});
        base.slice(1, 1, 3).add_(1);
        std::cout << "base.slice(1, 1, 3).add_(1)      base = " << base << '\n';
        base.transpose(0, 1)[0].fill_(7);
        std::cout << "base.transpose(0, 1)[0].fill_(7) base = " << base << '\n';
        Tensor t = kael::from_vector({1.0, 2.0, 3.0});
        t.add_(kael::ones({3}, DType::F64), 2).mul_(2).sub_(1);
        std::cout << "([1, 2, 3] + 2 * 1) * 2 - 1, chained:  " << t << '\n';
    }

    section("expanded");
    {
        Tensor row = kael::zeros({1, 4});
        Tensor expanded = row.expand({3, 4});
        std::cout << "expanded strides " << kael::to_string(expanded.strides()) << '\n';
        print_error([&] { expanded.add_(1); });
        Tensor copy = expanded.clone();
        copy.add_(1);
        std::cout << "expanded.clone().add_(1)  " << copy << '\n';
    }

    section("aliasing");
    {
        // What a kernel that reads and writes the same memory in one forward sweep computes.
        Tensor naive = kael::from_vector({1.0, 2.0, 3.0, 4.0});
        double* p = naive.data_ptr<double>();
        for (int i = 1; i < 4; ++i) {
            p[i] += p[i - 1];
        }
        std::cout << "forward loop over one buffer:  " << naive << '\n';
        Tensor t = kael::from_vector({1.0, 2.0, 3.0, 4.0});
        t.slice(0, 1).add_(t.slice(0, 0, 3));
        std::cout << "t[1:] += t[:-1] in kael:       " << t << '\n';
        Tensor u = kael::from_vector({1.0, 2.0, 3.0, 4.0});
        u.slice(0, 0, 3).copy_(u.slice(0, 1));
        std::cout << "u[:-1].copy_(u[1:]):           " << u << '\n';
        Tensor w = kael::from_vector({1.0, 2.0});
        w.add_(w);
        std::cout << "w.add_(w), full overlap:       " << w << '\n';
    }

    section("can-cast");
    {
        Tensor ints = kael::from_vector({I{1}, I{2}});
        print_error([&] { ints.add_(0.5); });
        print_error([&] { ints.div_(2); });
        ints.add_(3);
        std::cout << "ints.add_(3)  " << ints << '\n';
        Tensor floats = kael::zeros({2});
        floats.add_(kael::from_vector({I{1}, I{2}}));
        std::cout << "float32.add_(int64 [1, 2])  " << floats << '\n';
        Tensor flags = kael::zeros({2}, DType::Bool);
        print_error([&] { flags.add_(1); });
        const DType all[] = {DType::F32, DType::F64, DType::I64, DType::Bool};
        std::cout << "can_cast(from, to)   to: float32 float64 int64   bool\n";
        for (const DType from : all) {
            std::cout << "  from " << std::left << std::setw(8) << kael::to_string(from) << std::right << "           ";
            for (const DType to : all) {
                std::cout << std::setw(8) << (kael::can_cast(from, to) ? "yes" : "no");
            }
            std::cout << '\n';
        }
    }

    section("version");
    {
        Tensor t = kael::zeros({4});
        Tensor view = t.slice(0, 2);
        std::cout << "version before          " << version_of(t) << '\n';
        t.add_(1);
        std::cout << "after t.add_(1)         " << version_of(t) << '\n';
        view.mul_(2);
        std::cout << "after view.mul_(2)      " << version_of(t) << "   (seen through t: one storage)\n";
        const Tensor fresh = t + 1;
        std::cout << "after t + 1             " << version_of(t) << "   (out of place: no write)\n";
        print_error([&] { t.add_(kael::zeros({5})); });
        std::cout << "after a failed add_     " << version_of(t) << '\n';
    }
    // In place: no new memory, and every view of the storage sees the write. The same
    // operation out of place leaves the input and its views alone.
    section("in-place");
    {
        Tensor w = kael::zeros({2, 3});
        const Tensor row = w[1];
        const void* before = w.data_ptr_raw();
        w.add_(1);
        std::cout << std::boolalpha << "w.add_(1)  writes into w's memory: " << (w.data_ptr_raw() == before)
                  << "\n           the view w[1] reads " << row << '\n';
        const Tensor sum = w + 1;
        std::cout << "w + 1      writes into w's memory: " << (sum.data_ptr_raw() == before)
                  << "\n           the view w[1] reads " << row << std::noboolalpha << '\n';
        Tensor t = kael::from_vector({1.0, 2.0, 3.0, 4.0});
        t.slice(0, 1).add_(t.slice(0, 0, 3));
        std::cout << "t[1:] += t[:-1] for t = [1, 2, 3, 4]:\n           " << t << '\n';
    }
    return 0;
}
