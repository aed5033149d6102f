#include <iomanip>
#include <ostream>
#include <sstream>
#include <type_traits>

#include "kael/tensor.h"
#include "core/native.h"

namespace kael {
namespace {

constexpr int kFloatPrecision = 4;
// Tensors with more elements print only their first and last kSummarizeEdge values.
constexpr std::int64_t kSummarizeThreshold = 1000;
constexpr std::int64_t kSummarizeEdge = 3;

template <typename T> void print_element(std::ostream& text, T value) {
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        text << (value != 0 ? "true" : "false");
    } else {
        text << value;
    }
}

// Reads elements through at() and index_from_linear, the slow general path that works for
// any strides: a transposed tensor prints in its logical order.
template <typename T> void print_elements(std::ostream& text, const Tensor& t) {
    const std::int64_t count = t.numel();
    const bool summarize = count > kSummarizeThreshold;
    for (std::int64_t i = 0; i < count; ++i) {
        if (summarize && i == kSummarizeEdge) {
            text << ", ...";
            i = count - kSummarizeEdge;
        }
        text << (i == 0 ? "" : ", ");
        print_element(text, t.at<T>(index_from_linear(i, t.shape())));
    }
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
    // Format into a separate stream: std::fixed and the precision are sticky, and setting
    // them on `os` would change how the caller's later numbers print.
    std::ostringstream text;
    text << std::fixed << std::setprecision(kFloatPrecision) << "tensor([";
    const Tensor host = native::to(t, Device::CPU);
    dispatch(t.dtype(), [&]<typename T>() { print_elements<T>(text, host); });
    text << "], shape=" << to_string(t.shape()) << ", dtype=" << t.dtype();
    if (t.device() != Device::CPU) {
        text << ", device=" << t.device();
    }
    text << ")";
    return os << text.str();
}

}  // namespace kael
