// Memory-mapped safetensors (chapter 12): tensors that view the file in place, the mapping
// that lives until the last of them dies, writes that never reach the file, the copy of a
// tensor whose bytes are not aligned, and malformed files refused with the path named.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/io/safetensors.h"
#include "kael/nn/state_dict.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::from_vector;
using kael::io::load_safetensors;
using kael::io::map_safetensors;
using kael::io::save_safetensors;
using kael::nn::StateDict;
using kael::testing::message_of;
using kael::testing::TempDir;
using kael::testing::values;

// How many of this process's mappings are of `path`, from the kernel's own list.
int mappings_of(const std::filesystem::path& path) {
    std::ifstream maps("/proc/self/maps");
    const std::string name = std::filesystem::canonical(path).string();
    int count = 0;
    for (std::string line; std::getline(maps, line);) {
        count += static_cast<int>(line.size() >= name.size() && line.ends_with(name));
    }
    return count;
}

void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// A file of one tensor written by hand: the length field, `header` unpadded, then `data`.
std::string file_with(std::string_view header, std::string_view data) {
    std::string bytes;
    for (unsigned i = 0; i < 8; ++i) {
        bytes.push_back(static_cast<char>(static_cast<std::uint64_t>(header.size()) >> (8 * i)));
    }
    return bytes.append(header).append(data);
}

StateDict two_tensors() {
    StateDict tensors;
    tensors.insert("a", from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
    tensors.insert("b", from_vector<std::int64_t>({7, -8}));
    return tensors;
}

TEST(MappedSafetensors, GivesTheTensorsThatLoadingGives) {
    const TempDir dir;
    save_safetensors(two_tensors(), dir.path() / "m.safetensors");
    const StateDict mapped = map_safetensors(dir.path() / "m.safetensors");
    const StateDict loaded = load_safetensors(dir.path() / "m.safetensors");
    ASSERT_EQ(mapped.size(), 2U);
    EXPECT_EQ(mapped.at("a").shape(), loaded.at("a").shape());
    EXPECT_EQ(mapped.at("a").dtype(), DType::F32);
    EXPECT_EQ(values<float>(mapped.at("a")), values<float>(loaded.at("a")));
    EXPECT_EQ(values<std::int64_t>(mapped.at("b")), (std::vector<std::int64_t>{7, -8}));
}

TEST(MappedSafetensors, TensorsViewTheFileInPlace) {
    const TempDir dir;
    save_safetensors(two_tensors(), dir.path() / "m.safetensors");
    const std::string file = read_bytes(dir.path() / "m.safetensors");
    const StateDict mapped = map_safetensors(dir.path() / "m.safetensors");
    // The data section holds "a" (24 bytes) and then "b": their addresses are 24 apart, as
    // two views of one mapping are, and no two separate allocations would be.
    const auto* a = static_cast<const std::byte*>(mapped.at("a").data_ptr_raw());
    const auto* b = static_cast<const std::byte*>(mapped.at("b").data_ptr_raw());
    EXPECT_EQ(b - a, 24);
    EXPECT_EQ(std::memcmp(a, file.data() + (file.size() - 40), 40), 0);
    EXPECT_EQ(mappings_of(dir.path() / "m.safetensors"), 1);
}

TEST(MappedSafetensors, TheMappingLivesUntilTheLastTensorDies) {
    const TempDir dir;
    const auto path = dir.path() / "m.safetensors";
    save_safetensors(two_tensors(), path);
    std::optional<Tensor> kept;
    {
        const StateDict mapped = map_safetensors(path);
        kept = mapped.at("b");
    }
    EXPECT_EQ(mappings_of(path), 1);  // the dictionary is gone, "b" still reads the file
    EXPECT_EQ(values<std::int64_t>(*kept), (std::vector<std::int64_t>{7, -8}));
    kept.reset();
    EXPECT_EQ(mappings_of(path), 0);
}

TEST(MappedSafetensors, WritesChangeThisProcessesCopyNeverTheFile) {
    const TempDir dir;
    const auto path = dir.path() / "m.safetensors";
    save_safetensors(two_tensors(), path);
    const std::string before = read_bytes(path);
    const StateDict mapped = map_safetensors(path);
    Tensor a = mapped.at("a");
    a.fill_(0.0);
    EXPECT_EQ(values<float>(mapped.at("a")), std::vector<float>(6, 0.0F));
    EXPECT_EQ(read_bytes(path), before);
    EXPECT_EQ(values<float>(map_safetensors(path).at("a")), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(MappedSafetensors, CopiesATensorWhoseBytesAreNotAligned) {
    // A 54-byte header, unpadded, puts the data section at byte 62: an F32 there is
    // misaligned by 2.
    const TempDir dir;
    const std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    ASSERT_EQ(header.size(), 54U);
    const float data[2] = {1.5F, -2.25F};
    write_bytes(dir.path() / "odd.safetensors",
                file_with(header, std::string_view(reinterpret_cast<const char*>(data), sizeof data)));
    const StateDict mapped = map_safetensors(dir.path() / "odd.safetensors");
    EXPECT_EQ(values<float>(mapped.at("x")), (std::vector<float>{1.5F, -2.25F}));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mapped.at("x").data_ptr_raw()) % 4, 0U);
    EXPECT_EQ(mappings_of(dir.path() / "odd.safetensors"), 0);  // the copy holds no mapping
}

TEST(MappedSafetensors, EmptyTensorsAndAnEmptyDictionaryMap) {
    const TempDir dir;
    StateDict tensors;
    tensors.insert("none", kael::empty({0, 3}, DType::F32));
    save_safetensors(tensors, dir.path() / "e.safetensors");
    EXPECT_EQ(map_safetensors(dir.path() / "e.safetensors").at("none").shape(), (kael::Shape{0, 3}));
    save_safetensors(StateDict{}, dir.path() / "nothing.safetensors");
    EXPECT_TRUE(map_safetensors(dir.path() / "nothing.safetensors").empty());
}

TEST(MappedSafetensors, MalformedFilesGetTypedErrorsNamingThePath) {
    const TempDir dir;
    const auto path = dir.path() / "bad.safetensors";
    const std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

    write_bytes(path, "");  // empty: fewer bytes than the length field
    EXPECT_THROW((void)map_safetensors(path), kael::ValueError);
    EXPECT_NE(message_of([&] { (void)map_safetensors(path); }).find(path.string()), std::string::npos);

    write_bytes(path, file_with(header, std::string(7, '\0')));  // truncated: one byte short
    const std::string truncated = message_of([&] { (void)map_safetensors(path); });
    EXPECT_NE(truncated.find("past the end"), std::string::npos) << truncated;
    EXPECT_NE(truncated.find(path.string()), std::string::npos) << truncated;
    write_bytes(path, file_with(header, std::string(8, '\0')));  // exactly enough: loads
    EXPECT_EQ(map_safetensors(path).size(), 1U);

    write_bytes(path, file_with(R"({"x":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", std::string(4, '\0')));
    EXPECT_THROW((void)map_safetensors(path), kael::TypeError);

    write_bytes(path, file_with(R"({"x":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", "\x01\x02"));
    const std::string bad_bool = message_of([&] { (void)map_safetensors(path); });
    EXPECT_NE(bad_bool.find("must be 0 or 1"), std::string::npos) << bad_bool;
    EXPECT_NE(bad_bool.find(path.string()), std::string::npos) << bad_bool;
}

TEST(MappedSafetensors, FilesThatCannotBeMappedGetAnError) {
    const TempDir dir;
    const std::string missing = message_of([&] { (void)map_safetensors(dir.path() / "missing.safetensors"); });
    EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
    const std::string directory = message_of([&] { (void)map_safetensors(dir.path()); });
    EXPECT_NE(directory.find("is not a regular file"), std::string::npos) << directory;
}

}  // namespace
