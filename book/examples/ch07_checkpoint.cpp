// Chapter 07, "Neural networks and training": a tiny state dict written as safetensors
// bytes (the length field, the JSON header, the data section), read back, and a few
// malformed files that the reader refuses.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::Tensor;
using Bytes = std::vector<std::uint8_t>;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

template <typename Body> void print_error(Body body) {
    try {
        body();
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
}

void print_hex(const Bytes& bytes, std::size_t from, std::size_t count) {
    for (std::size_t i = from; i < from + count; ++i) {
        std::printf("%02x%s", bytes[i], i + 1 == from + count ? "\n" : " ");
    }
    std::fflush(stdout);
}

// A safetensors file from a header written by hand and the data bytes after it.
Bytes file_with_header(const std::string& header, std::size_t data_bytes) {
    Bytes bytes(8 + header.size() + data_bytes, 0);
    for (std::size_t i = 0; i < 8; ++i) {
        bytes[i] = static_cast<std::uint8_t>(header.size() >> (8 * i));
    }
    std::copy(header.begin(), header.end(), bytes.begin() + 8);
    return bytes;
}

}  // namespace

int main() {
    kael::nn::StateDict state;
    state.insert("weight", kael::from_vector<float>({1, 2, 3, 4}, {2, 2}));
    state.insert("bias", kael::from_vector<float>({0.5, -0.5}));

    section("bytes");
    const Bytes bytes = kael::io::to_safetensors_bytes(state, {{"format", "pt"}});
    std::cout << "file size: " << bytes.size() << " bytes\n";
    std::cout << "bytes 0-7 (the header length, little-endian): ";
    print_hex(bytes, 0, 8);
    std::uint64_t length = 0;
    for (std::size_t i = 8; i-- > 0;) {
        length = (length << 8U) | bytes[i];
    }
    const std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(length));
    std::cout << "header (" << length << " bytes, padded with spaces to a multiple of 8):\n[" << header << "]\n";
    std::cout << "data section (" << bytes.size() - 8 - length << " bytes), bias first:\n";
    print_hex(bytes, 8 + length, 8);
    print_hex(bytes, 16 + length, 16);

    section("round-trip");
    const kael::nn::StateDict loaded = kael::io::from_safetensors_bytes(bytes);
    for (const auto& [name, t] : loaded) {
        std::cout << name << ": " << t << '\n';
    }
    for (const auto& [key, value] : kael::io::safetensors_metadata(bytes)) {
        std::cout << "metadata " << key << " = " << value << '\n';
    }

    section("refused");
    print_error([&] { (void)kael::io::from_safetensors_bytes(Bytes(bytes.begin(), bytes.end() - 1)); });
    print_error([&] {
        (void)kael::io::from_safetensors_bytes(
            file_with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                             12));
    });
    print_error([&] {
        (void)kael::io::from_safetensors_bytes(
            file_with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 12));
    });
    print_error([&] {
        (void)kael::io::from_safetensors_bytes(
            file_with_header(R"({"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", 4));
    });
    print_error([&] {
        (void)kael::io::from_safetensors_bytes(
            file_with_header(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", 0));
    });
    return 0;
}
