// Chapter 09: the parts of the CUDA backend that run without a GPU. The proof of this stage
// runs on a machine with no GPU, in a build without CUDA, so this program shows what such a
// machine can show: the kernels' index arithmetic, evaluated on the host, and what a program
// is told when it asks for device memory.
//
// The offset calculator is not part of kael's public API: it lives beside the kernels, in
// kael/src/cuda/offset_calculator.h, and is not installed with the package. Its header is
// plain C++ outside nvcc, so this program includes it straight from the source tree (the
// path below is relative to this file, book/examples/), exactly as the host tests do. The
// rest of the program uses only the installed headers.
#include <array>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../../kael/src/cuda/offset_calculator.h"
#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Device;
using kael::Shape;
using kael::Strides;
using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

// "[1, 3]": a shape, strides or an index as kael prints them.
std::string str(const std::vector<std::int64_t>& values) { return kael::to_string(values); }

// `text` padded with spaces to `width` characters, for the columns of a table.
std::string padded(std::string text, std::size_t width) {
    if (text.size() < width) {
        text.resize(width, ' ');
    }
    return text;
}

// ---- offsets ------------------------------------------------------------------------------
// The worked example of the chapter: out = a + b over the loop shape [3, 4], with a
// transposed input, a row broadcast down the rows, and a contiguous output. One calculator
// serves all three operands: it peels each linear index into coordinates once, and adds
// coordinate times stride for every operand.
void show_offsets() {
    const Tensor a = kael::arange(0, 12).view({4, 3}).transpose(0, 1);  // [3, 4], strides [1, 3]
    const Tensor b = kael::arange(0, 4).view({1, 4}).expand({3, 4});    // [3, 4], strides [0, 1]
    const Tensor out = kael::empty({3, 4});                              // [3, 4], strides [4, 1]

    std::cout << "out = a + b over the loop shape " << str(out.shape()) << ", strides in elements\n"
              << "  out  empty({3, 4})                                strides " << str(out.strides()) << '\n'
              << "  a    arange(0, 12).view({4, 3}).transpose(0, 1)   strides " << str(a.strides()) << '\n'
              << "  b    arange(0, 4).view({1, 4}).expand({3, 4})     strides " << str(b.strides()) << "\n\n";

    // Operand order: output first, then the inputs, as the kernels have it. The index type
    // is std::uint32_t, the one the kernels pick when fits_in_32_bits allows it.
    const auto calculator = kael::cuda::make_offset_calculator<3, std::uint32_t>(
        out.shape(), {&out.strides(), &a.strides(), &b.strides()});

    std::cout << "   i   element   out    a    b   value of a there\n";
    bool all_agree = true;
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(out.numel()); ++i) {
        const auto found = calculator.offsets(i);
        // The same offsets the slow way, with chapter 02's at() arithmetic: the element's
        // multi-index, then the sum of index times stride, operand by operand.
        const kael::Index index = kael::index_from_linear(i, out.shape());
        const std::array<const Tensor*, 3> operands{&out, &a, &b};
        for (std::size_t op = 0; op < operands.size(); ++op) {
            const Tensor& t = *operands[op];
            const std::int64_t expected = kael::offset_from_index(t.shape(), t.strides(), 0, index);
            all_agree = all_agree && expected == static_cast<std::int64_t>(found.of[op]);
        }
        // a is a view of arange(0, 12), so the value it holds at an element is that
        // element's position in the storage: it must equal the offset found for a.
        const float value = a.at<float>(index);
        std::cout << std::setw(4) << i << "   " << padded(str(index), 8) << std::setw(5) << found.of[0]
                  << std::setw(5) << found.of[1] << std::setw(5) << found.of[2] << std::setw(6) << value << '\n';
    }
    std::cout << "\nevery offset equals the one at()'s arithmetic gives: " << (all_agree ? "yes" : "NO") << '\n';
}

// ---- limits -------------------------------------------------------------------------------
// fits_in_32_bits reads a shape and the strides of each operand, never memory. The tensors
// below are expanded views of one element (stride 0), which hold a single float however
// many elements they have; a tensor whose offsets reach past four billion needs a storage
// that large, so for those the program gives the check the strides such a tensor would
// have, without making it.
struct LimitCase {
    std::string what;
    Shape shape;
    std::vector<Strides> strides;  // one entry per operand
};

void show_limits() {
    constexpr std::int64_t limit = std::numeric_limits<std::uint32_t>::max();
    std::cout << "the limit: the largest std::uint32_t, " << limit << "\n\n";

    const Tensor one = kael::zeros({1});  // the only storage this section allocates: 4 bytes
    const Tensor below = one.expand({limit});
    const Tensor above = one.expand({limit + 1});
    const Tensor wide_below = one.view({1, 1}).expand({65536, 65535});
    const Tensor wide_above = one.view({1, 1}).expand({65536, 65536});

    const std::vector<LimitCase> cases{
        // The element count: every linear index must fit.
        {"zeros({1}).expand({4294967295})", below.shape(), {below.strides()}},
        {"zeros({1}).expand({4294967296})", above.shape(), {above.strides()}},
        // A broadcast never moves in memory, but its count still must fit.
        {"zeros({1, 1}).expand({65536, 65535})", wide_below.shape(), {wide_below.strides()}},
        {"zeros({1, 1}).expand({65536, 65536})", wide_above.shape(), {wide_above.strides()}},
        // The offsets: six elements, the second row far into the storage. The last
        // element's offset, 1 x row stride + 2, is what must fit.
        {"[2, 3], rows 4294967293 elements apart", {2, 3}, {{limit - 2, 1}}},
        {"[2, 3], rows 4294967294 elements apart", {2, 3}, {{limit - 1, 1}}},
        // Every operand counts: a small output does not hide a far-reaching input.
        {"out [2, 3] contiguous, input as above", {2, 3}, {{3, 1}, {limit - 1, 1}}},
        // The element-wise kernels count in bytes: a contiguous float32 tensor fits up to
        // 2^30 elements, though its element count would fit far beyond.
        {"float32 [1073741824], in bytes", {1073741824}, {{4}}},
        {"float32 [1073741825], in bytes", {1073741825}, {{4}}},
        // Nothing to index: an empty tensor fits whatever its strides.
        {"[0, 4294967300], stride 4294967300", {0, limit + 5}, {{limit + 5, 1}}},
    };

    std::cout << padded("tensor", 40) << padded("shape", 22) << padded("strides of each operand", 30) << "fits\n";
    for (const LimitCase& c : cases) {
        std::string strides;
        std::vector<const Strides*> operands;
        for (const Strides& s : c.strides) {
            if (!strides.empty()) {
                strides += ' ';
            }
            strides += str(s);
            operands.push_back(&s);
        }
        const bool fits = kael::cuda::fits_in_32_bits(c.shape, operands);
        std::cout << padded(c.what, 40) << padded(str(c.shape), 22) << padded(strides, 30)
                  << (fits ? "yes" : "no") << '\n';
    }
}

// ---- no-device ----------------------------------------------------------------------------
// The name of the most specific kael exception class `e` is.
std::string_view kind(const kael::Error& e) {
    if (dynamic_cast<const kael::IndexError*>(&e) != nullptr) return "kael::IndexError";
    if (dynamic_cast<const kael::ValueError*>(&e) != nullptr) return "kael::ValueError";
    if (dynamic_cast<const kael::TypeError*>(&e) != nullptr) return "kael::TypeError";
    return "kael::Error";
}

// Runs `request` and prints the tensor it made, or the exception it threw.
template <typename F> void ask(std::string_view label, F&& request) {
    std::cout << label << '\n';
    try {
        const Tensor t = request();
        std::cout << "  a tensor of shape " << str(t.shape()) << " on " << kael::to_string(t.device()) << '\n';
    } catch (const kael::Error& e) {
        std::cout << "  throws " << kind(e) << ": " << e.what() << '\n';
    }
}

void show_no_device() {
    std::cout << std::boolalpha << "cuda_is_built():     " << kael::cuda_is_built() << '\n'
              << "cuda_is_available(): " << kael::cuda_is_available() << "\n\n";
    ask("zeros({2}, DType::F32, Device::CUDA)", [] { return kael::zeros({2}, DType::F32, Device::CUDA); });
    ask("ones({2}).cuda()", [] { return kael::ones({2}).cuda(); });
    // Zero elements need no memory and no kernel, so this works in every build.
    ask("empty({0}, DType::F32, Device::CUDA)", [] { return kael::empty({0}, DType::F32, Device::CUDA); });
}

}  // namespace

int main() {
    section("offsets");
    show_offsets();
    section("limits");
    show_limits();
    section("no-device");
    show_no_device();
    return 0;
}
