// Checkpoints: StateDict, and the safetensors reader and writer. The round trips cover
// every dtype and the awkward shapes; one test pins the exact bytes of a tiny file; the
// rest feed the reader hand-written malformed files, one flaw each, and check the error's
// type and what its message names. Limits are tested at the limit and one past it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/io/safetensors.h"
#include "kael/nn/state_dict.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Tensor;
using kael::from_vector;
using kael::io::from_safetensors_bytes;
using kael::io::load_safetensors;
using kael::io::safetensors_metadata;
using kael::io::save_safetensors;
using kael::io::to_safetensors_bytes;
using kael::nn::StateDict;
using kael::testing::message_of;
using kael::testing::TempDir;
using Bytes = std::vector<std::uint8_t>;

// ---- Helpers ------------------------------------------------------------------------

// A file made by hand: the length field, `header` as given (no padding), then `data`.
Bytes file_with(std::string_view header, const Bytes& data = {}) {
    Bytes bytes;
    const std::uint64_t length = header.size();
    for (unsigned i = 0; i < 8; ++i) {
        bytes.push_back(static_cast<std::uint8_t>(length >> (8 * i)));
    }
    bytes.insert(bytes.end(), header.begin(), header.end());
    bytes.insert(bytes.end(), data.begin(), data.end());
    return bytes;
}

// A file whose length field says `length`, followed by `rest`, whatever its size.
Bytes with_length_field(std::uint64_t length, std::string_view rest) {
    Bytes bytes = file_with(rest);
    for (unsigned i = 0; i < 8; ++i) {
        bytes[i] = static_cast<std::uint8_t>(length >> (8 * i));
    }
    return bytes;
}

// The JSON of one header entry.
std::string entry(std::string_view dtype, std::string_view shape, std::string_view offsets) {
    return R"({"dtype":")" + std::string(dtype) + R"(","shape":)" + std::string(shape) +
           R"(,"data_offsets":)" + std::string(offsets) + "}";
}

// A header holding the one tensor 'a'.
std::string header_of_a(std::string_view dtype, std::string_view shape, std::string_view offsets) {
    return R"({"a":)" + entry(dtype, shape, offsets) + "}";
}

// Success when loading `bytes` throws `Exception` (or a subclass) whose message starts
// the safetensors way and contains `part`.
template <typename Exception>
::testing::AssertionResult refuses(std::span<const std::uint8_t> bytes, std::string_view part) {
    try {
        (void)from_safetensors_bytes(bytes);
    } catch (const kael::Error& error) {
        const std::string message = error.what();
        if (dynamic_cast<const Exception*>(&error) == nullptr) {
            return ::testing::AssertionFailure() << "wrong exception type: " << message;
        }
        if (message.find("safetensors: ") == std::string::npos || message.find(part) == std::string::npos) {
            return ::testing::AssertionFailure() << "the message lacks '" << part << "': " << message;
        }
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "no exception; expected one mentioning '" << part << "'";
}

// Success when `bytes` loads.
::testing::AssertionResult loads(std::span<const std::uint8_t> bytes) {
    try {
        (void)from_safetensors_bytes(bytes);
    } catch (const kael::Error& error) {
        return ::testing::AssertionFailure() << error.what();
    }
    return ::testing::AssertionSuccess();
}

// The bytes of a tensor's elements in logical order, for comparisons that treat NaN and
// -0.0 as the exact values they are.
std::vector<std::byte> element_bytes(const Tensor& t) {
    const Tensor c = t.contiguous();
    if (c.numel() == 0) {
        return {};
    }
    return {c.data_ptr_raw(), c.data_ptr_raw() + c.nbytes()};
}

void expect_same_tensor(const Tensor& loaded, const Tensor& original, const std::string& name) {
    EXPECT_EQ(loaded.dtype(), original.dtype()) << name;
    EXPECT_EQ(loaded.shape(), original.shape()) << name;
    EXPECT_EQ(element_bytes(loaded), element_bytes(original)) << name;
    EXPECT_TRUE(loaded.is_contiguous()) << name;
    EXPECT_EQ(loaded.offset(), 0) << name;
}

void expect_same_dict(const StateDict& loaded, const StateDict& original) {
    ASSERT_EQ(loaded.size(), original.size());
    for (const auto& [name, tensor] : original) {
        ASSERT_TRUE(loaded.contains(name)) << name;
        expect_same_tensor(loaded.at(name), tensor, name);
    }
}

// Every dtype, 0-d tensors, empty ones, and a transpose (non-contiguous).
StateDict every_kind_of_tensor() {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();
    StateDict tensors;
    tensors.insert("f32", from_vector<float>({1.5f, -2.0f, 3.25f, -0.0f, 1e-30f, 6.0f}, {2, 3}));
    tensors.insert("f64", from_vector<double>({1.0 / 3.0, -1e300, nan}));
    tensors.insert("i64", from_vector<std::int64_t>({lowest, -1, 0, highest}, {2, 2}));
    tensors.insert("bool", from_vector({true, false, true}));
    tensors.insert("f32_scalar", from_vector<float>({2.5f}, Shape{}));
    tensors.insert("f64_scalar", from_vector<double>({-7.0}, Shape{}));
    tensors.insert("i64_scalar", from_vector<std::int64_t>({42}, Shape{}));
    tensors.insert("bool_scalar", from_vector(std::vector<bool>{true}, Shape{}));
    tensors.insert("f32_empty", kael::empty({0}, DType::F32));
    tensors.insert("i64_empty", kael::empty({2, 0, 3}, DType::I64));
    tensors.insert("bool_empty", kael::empty({0, 4}, DType::Bool));
    tensors.insert("transposed", from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}).transpose(0, 1));
    return tensors;
}

// An 8-byte F32 tensor 'a' and its data, the base of many malformed variants.
const std::string kValidHeader = header_of_a("F32", "[2]", "[0,8]");
const Bytes kEightBytes(8, 0);

// ---- StateDict ----------------------------------------------------------------------

TEST(StateDict, KeepsInsertionOrderAndSharesTheTensors) {
    StateDict state;
    EXPECT_TRUE(state.empty());
    EXPECT_TRUE(state.begin() == state.end());
    const Tensor z = kael::zeros({2});
    state.insert("z", z);
    state.insert("a", kael::ones({1}));
    state.insert("m", kael::ones({3}, DType::I64));
    EXPECT_FALSE(state.empty());
    EXPECT_EQ(state.size(), 3u);
    EXPECT_EQ(state.keys(), (std::vector<std::string>{"z", "a", "m"}));
    std::vector<std::string> iterated;
    for (const auto& [name, tensor] : state) {
        iterated.push_back(name);
    }
    EXPECT_EQ(iterated, state.keys());
    EXPECT_TRUE(state.at("z").is_same(z));  // a handle to the same tensor, not a copy
    EXPECT_EQ(state.at("m").dtype(), DType::I64);
}

TEST(StateDict, FindAndContains) {
    StateDict state;
    state.insert("layer.weight", kael::zeros({2}));
    EXPECT_TRUE(state.contains("layer.weight"));
    EXPECT_FALSE(state.contains("layer"));
    ASSERT_NE(state.find("layer.weight"), nullptr);
    EXPECT_EQ(state.find("layer.weight")->numel(), 2);
    EXPECT_EQ(state.find("layer.bias"), nullptr);
}

TEST(StateDict, ADuplicateNameIsAValueErrorAndChangesNothing) {
    StateDict state;
    const Tensor first = kael::zeros({2});
    state.insert("w", first);
    EXPECT_THROW(state.insert("w", kael::ones({2})), kael::ValueError);
    EXPECT_NE(message_of([&] { state.insert("w", kael::ones({2})); }).find("'w'"), std::string::npos);
    EXPECT_EQ(state.size(), 1u);
    EXPECT_TRUE(state.at("w").is_same(first));
}

TEST(StateDict, AtOfAMissingNameIsAnIndexError) {
    StateDict state;
    state.insert("w", kael::zeros({2}));
    EXPECT_THROW((void)state.at("missing"), kael::IndexError);
    EXPECT_NE(message_of([&] { (void)state.at("missing"); }).find("'missing'"), std::string::npos);
}

// ---- Round trips ----------------------------------------------------------------------

TEST(Safetensors, EveryDtypeAndShapeRoundTripsThroughBytes) {
    const StateDict original = every_kind_of_tensor();
    const StateDict loaded = from_safetensors_bytes(to_safetensors_bytes(original));
    expect_same_dict(loaded, original);
    EXPECT_EQ(kael::testing::values<float>(loaded.at("transposed")), (std::vector<float>{1, 4, 2, 5, 3, 6}));
    EXPECT_TRUE(std::isnan(kael::testing::values<double>(loaded.at("f64"))[2]));
}

TEST(Safetensors, LoadedTensorsComeInNameOrder) {
    // As Python's load_file: the header is a JSON object, whose keys have no order of their own.
    const StateDict loaded = from_safetensors_bytes(to_safetensors_bytes(every_kind_of_tensor()));
    std::vector<std::string> sorted = every_kind_of_tensor().keys();
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(loaded.keys(), sorted);
}

TEST(Safetensors, EveryDtypeAndShapeRoundTripsThroughAFile) {
    const TempDir dir;
    const auto path = dir.path() / "checkpoint.safetensors";
    const StateDict original = every_kind_of_tensor();
    save_safetensors(original, path);
    expect_same_dict(load_safetensors(path), original);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "checkpoint.safetensors.tmp"));

    StateDict replacement;  // saving again replaces the file
    replacement.insert("only", from_vector<double>({1.0, 2.0}));
    save_safetensors(replacement, path);
    expect_same_dict(load_safetensors(path), replacement);
}

TEST(Safetensors, AnEmptyStateDictRoundTrips) {
    const Bytes bytes = to_safetensors_bytes(StateDict{});
    EXPECT_EQ(bytes.size(), 16u);  // "{}" padded to 8
    EXPECT_TRUE(from_safetensors_bytes(bytes).empty());
}

TEST(Safetensors, MetadataRoundTrips) {
    const kael::io::SafetensorsMetadata metadata{{"format", "pt"}, {"step", "1200"}, {"note", "gr\u00fc\u00dfe"}};
    StateDict tensors;
    tensors.insert("a", from_vector<float>({1.0f}));
    const Bytes bytes = to_safetensors_bytes(tensors, metadata);
    EXPECT_EQ(safetensors_metadata(bytes), metadata);
    expect_same_dict(from_safetensors_bytes(bytes), tensors);

    const TempDir dir;
    save_safetensors(tensors, dir.path() / "m.safetensors", metadata);
    expect_same_dict(load_safetensors(dir.path() / "m.safetensors"), tensors);

    // Without metadata the header has no "__metadata__" key at all.
    const Bytes plain = to_safetensors_bytes(tensors);
    EXPECT_EQ(std::string(plain.begin(), plain.end()).find("__metadata__"), std::string::npos);
    EXPECT_TRUE(safetensors_metadata(plain).empty());
    EXPECT_TRUE(safetensors_metadata(file_with(R"({"__metadata__":{}})")).empty());
}

// ---- The exact bytes --------------------------------------------------------------------

TEST(Safetensors, TheBytesOfATinyFile) {
    StateDict tensors;
    tensors.insert("a", from_vector<float>({1.0f, -2.0f}));
    const std::string json = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    ASSERT_EQ(json.size(), 54u);
    Bytes expected{56, 0, 0, 0, 0, 0, 0, 0};  // u64 little-endian: 54 bytes of JSON + 2 spaces
    expected.insert(expected.end(), json.begin(), json.end());
    expected.insert(expected.end(), {' ', ' '});                // 8 + 56 = 64, a multiple of 8
    expected.insert(expected.end(), {0x00, 0x00, 0x80, 0x3F,    // 1.0f  = 0x3F800000
                                     0x00, 0x00, 0x00, 0xC0});  // -2.0f = 0xC0000000
    EXPECT_EQ(to_safetensors_bytes(tensors), expected);
}

TEST(Safetensors, MetadataComesFirstAndTheDataSectionIsSortedByName) {
    StateDict tensors;
    tensors.insert("b", from_vector<std::int64_t>({0x0102030405060708}));
    tensors.insert("a", from_vector({true, false, true}));
    const Bytes bytes = to_safetensors_bytes(tensors, {{"k", "v"}});
    const std::string json = R"({"__metadata__":{"k":"v"},)"
                             R"("a":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]},)"
                             R"("b":{"dtype":"I64","shape":[1],"data_offsets":[3,11]}})";
    const std::size_t padded = (json.size() + 7) / 8 * 8;
    ASSERT_EQ(bytes.size(), 8 + padded + 11);
    EXPECT_EQ(bytes[0], padded);
    EXPECT_EQ(std::string(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(json.size())), json);
    const Bytes data(bytes.begin() + 8 + static_cast<std::ptrdiff_t>(padded), bytes.end());
    EXPECT_EQ(data, (Bytes{1, 0, 1, 8, 7, 6, 5, 4, 3, 2, 1}));
}

TEST(Safetensors, ReadsFilesWrittenTheOtherWay) {
    // Another writer's choices: ranges not in name order, no padding, spaces in the JSON.
    const std::string header = R"( { "b" : {"shape":[1],"data_offsets":[0,8],"dtype":"F64"},)"
                               R"( "a" : {"data_offsets":[8,9],"dtype":"BOOL","shape":[]} } )";
    const Bytes bytes = file_with(header, {0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 1});
    const StateDict loaded = from_safetensors_bytes(bytes);
    EXPECT_EQ(loaded.at("b").item<double>(), 1.0);
    EXPECT_EQ(loaded.at("a").item<std::uint8_t>(), 1);
    EXPECT_EQ(loaded.at("a").dim(), 0);
}

// ---- The length field ------------------------------------------------------------------

TEST(Safetensors, AFileShorterThanTheLengthFieldIsRefused) {
    for (std::size_t size = 0; size < 8; ++size) {
        EXPECT_TRUE(refuses<kael::ValueError>(Bytes(size, 0), "fewer than the 8")) << size << " bytes";
    }
}

TEST(Safetensors, HeaderLengthUpToTheFileSizeIsAcceptedOnePastIsRefused) {
    EXPECT_TRUE(loads(with_length_field(2, "{}")));
    EXPECT_TRUE(refuses<kael::ValueError>(with_length_field(3, "{}"),
                                          "header length 3 is larger than the 2 bytes after the length field"));
}

TEST(Safetensors, HeaderLengthOverTheLimitIsRefused) {
    // 100'000'000 itself is within the limit; here it is refused only for the short file.
    EXPECT_TRUE(refuses<kael::ValueError>(with_length_field(100'000'000, "{}"), "is larger than"));
    EXPECT_TRUE(refuses<kael::ValueError>(with_length_field(100'000'001, "{}"), "exceeds the limit"));
    EXPECT_TRUE(refuses<kael::ValueError>(with_length_field(std::numeric_limits<std::uint64_t>::max(), "{}"),
                                          "exceeds the limit"));
}

// ---- The JSON ---------------------------------------------------------------------------

TEST(Safetensors, AHeaderThatIsNotJsonIsRefused) {
    for (const std::string_view text : {"", "{\"a\":", "{\"a\":1,}", "{} x", "{'a':1}", "{\"\xff\":1}"}) {
        EXPECT_TRUE(refuses<kael::ValueError>(file_with(text), "the header is not valid JSON")) << text;
    }
    // The message gives the position, counted from 0, in the header and in the file.
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{} x"), "syntax error at byte 3 of the header (byte 11 of the file)"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{\"a\":"), "its 5 bytes end in the middle of a JSON value"));
}

// Found by fuzz/fuzz_safetensors.cpp: nlohmann-json refuses 105E5555, valid JSON that no
// double holds, with an exception of its own, which escaped the reader.
TEST(Safetensors, ANumberBeyondTheRangeOfADoubleIsRefused) {
    const std::string overflows = "the header holds a number beyond the range of a double";
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F32", "[105E5555]", "[0,0]")), overflows));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"__metadata__":{"k":-1e400}})"), overflows));
    // The largest doubles are numbers like any other, refused here only as a shape entry.
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F32", "[1e308]", "[0,0]")),
                                          "has a shape entry at position 0 that is a floating-point number"));
}

TEST(Safetensors, NestingAsDeepAsTheFormatsIsAcceptedOneLevelDeeperIsRefused) {
    // Three levels, the most the format has: the header, the entry of 'a', its shape.
    EXPECT_TRUE(loads(file_with(kValidHeader, kEightBytes)));
    EXPECT_TRUE(loads(file_with(R"({"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                                kEightBytes)));
    const std::string too_deep = "nests arrays and objects more than 3 deep";
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F32", "[[2]]", "[0,8]"), kEightBytes), too_deep));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F32", "[2]", "[[0],8]"), kEightBytes), too_deep));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"__metadata__":{"k":{"x":{}}}})"), too_deep));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("[[[[]]]]"), too_deep));
}

TEST(Safetensors, AHundredThousandNestedBracketsAreRefusedWithoutOverflowingTheStack) {
    constexpr std::size_t depth = 100'000;
    const std::string open(depth, '[');
    const std::string closed = open + std::string(depth, ']');  // valid JSON, 100,000 deep
    for (const std::string& header : {open, closed, R"({"a":)" + closed + "}"}) {
        const std::string message = message_of([&] { (void)from_safetensors_bytes(file_with(header)); });
        EXPECT_NE(message.find("nests arrays and objects more than 3 deep"), std::string::npos) << message;
        EXPECT_THROW((void)safetensors_metadata(file_with(header)), kael::ValueError);
    }
}

TEST(Safetensors, HostileValuesAreNotCopiedIntoMessages) {
    const std::string huge(1'000'000, 'x');
    const std::string quoted_huge = "\"" + huge + "\"";
    // Each message names the value's type and size and where it is, never its text.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {header_of_a(huge, "[0]", "[0,0]"), "tensor 'a' has an unknown dtype (a string of 1000000 bytes)"},
        {R"({"a":{"dtype":"F32","shape":)" + quoted_huge + R"(,"data_offsets":[0,0]}})",
         "tensor 'a' has a shape that is not an array (it is a string of 1000000 bytes)"},
        {R"({"a":{"dtype":"F32","shape":[)" + quoted_huge + R"(],"data_offsets":[0,0]}})",
         "tensor 'a' has a shape entry at position 0 that is a string of 1000000 bytes"},
        {R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,)" + quoted_huge + "]}}",
         "tensor 'a' has data_offsets whose entry 1 is a string of 1000000 bytes"},
        {R"({"a":)" + quoted_huge + "}", "the entry of tensor 'a' is not an object (it is a string of 1000000 bytes)"},
        {R"({"__metadata__":{"k":[)" + quoted_huge + "]}}", "__metadata__ entry 'k' is not a string (it is an array of 1 element)"},
        {quoted_huge, "the header is not a JSON object (it is a string of 1000000 bytes)"},
        {"{\"a\":\"" + huge, "the header is not valid JSON: its 1000006 bytes end in the middle of a JSON value"},
        {"{\"a\":" + huge + "}", "the header is not valid JSON: syntax error at byte 5 of the header"},
    };
    for (const auto& [header, expected] : cases) {
        const std::string message = message_of([&] { (void)from_safetensors_bytes(file_with(header)); });
        EXPECT_NE(message.find(expected), std::string::npos) << message.substr(0, 300);
        EXPECT_EQ(message.find("xxxx"), std::string::npos) << message.substr(0, 300);
        EXPECT_LT(message.size(), 400u) << message.substr(0, 300);
    }
}

TEST(Safetensors, NamesInMessagesAreCutAndTheirControlCharactersEscaped) {
    // A name is shown, since it says where the problem is, but at most its first 100 bytes.
    const std::string long_name(1'000'000, 'n');
    const std::string message = message_of(
        [&] { (void)from_safetensors_bytes(file_with("{\"" + long_name + R"(":{"dtype":"F32"}})")); });
    EXPECT_NE(message.find("tensor '" + std::string(100, 'n') + "' (the first 100 of its 1000000 bytes) has no field"),
              std::string::npos)
        << message.substr(0, 300);
    EXPECT_LT(message.size(), 400u);
    const std::string at_limit(100, 'n');
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{\"" + at_limit + R"(":{"dtype":"F32"}})"),
                                          "tensor '" + at_limit + "' has no field"));
    // An escape sequence that would clear the reader's terminal arrives as \x1B.
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a\u001b[2J\u00e9":{"dtype":"F32"}})"),
                                          "tensor 'a\\x1B[2J\\xC3\\xA9' has no field"));
}

TEST(Safetensors, AHeaderThatIsNotAnObjectIsRefused) {
    for (const std::string_view text : {"[]", "\"x\"", "3", "null"}) {
        EXPECT_TRUE(refuses<kael::ValueError>(file_with(text), "the header is not a JSON object")) << text;
    }
}

TEST(Safetensors, RepeatedKeysAreRefused) {
    const std::string empty_entry = entry("F32", "[0]", "[0,0]");
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{\"a\":" + empty_entry + ",\"a\":" + empty_entry + "}"),
                                          "the key 'a' twice"));
    EXPECT_TRUE(refuses<kael::ValueError>(
        file_with(R"({"a":{"dtype":"F32","dtype":"F64","shape":[0],"data_offsets":[0,0]}})"), "the key 'dtype' twice"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"__metadata__":{"k":"1","k":"2"}})"), "the key 'k' twice"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"__metadata__":{},"__metadata__":{}})"),
                                          "the key '__metadata__' twice"));
    // The same name in two different objects is fine.
    EXPECT_TRUE(loads(file_with(R"({"__metadata__":{"a":"x"},"a":)" + empty_entry + "}")));
}

// ---- Entries ----------------------------------------------------------------------------

TEST(Safetensors, AnEntryThatIsNotAnObjectIsRefused) {
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":[0,0]})"), "the entry of tensor 'a' is not an object"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":"F32"})"), "the entry of tensor 'a' is not an object"));
}

TEST(Safetensors, MissingFieldsAreRefused) {
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":{"shape":[0],"data_offsets":[0,0]}})"),
                                          "tensor 'a' has no field 'dtype'"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":{"dtype":"F32","data_offsets":[0,0]}})"),
                                          "tensor 'a' has no field 'shape'"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":{"dtype":"F32","shape":[0]}})"),
                                          "tensor 'a' has no field 'data_offsets'"));
}

TEST(Safetensors, ExtraFieldsAreRefused) {
    EXPECT_TRUE(refuses<kael::ValueError>(
        file_with(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0],"strides":[1]}})"),
        "tensor 'a' has an unexpected field 'strides'"));
}

TEST(Safetensors, FieldsOfTheWrongTypeAreRefused) {
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":{"dtype":3,"shape":[0],"data_offsets":[0,0]}})"),
                                          "tensor 'a' has a dtype that is not a string"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":{"dtype":null,"shape":[0],"data_offsets":[0,0]}})"),
                                          "tensor 'a' has a dtype that is not a string"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":{"dtype":"F32","shape":"[0]","data_offsets":[0,0]}})"),
                                          "tensor 'a' has a shape that is not an array"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":{"dtype":"F32","shape":{},"data_offsets":[0,0]}})"),
                                          "tensor 'a' has a shape that is not an array"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":"0,0"}})"),
                                          "tensor 'a' has data_offsets that are a string of 3 bytes; they must be two"));
}

// ---- Dtypes -----------------------------------------------------------------------------

TEST(Safetensors, DtypesOfTheFormatThatKaelLacksAreTypeErrors) {
    for (const std::string_view dtype :
         {"F16", "BF16", "I8", "U8", "I16", "U16", "I32", "U32", "U64", "F8_E4M3", "F8_E5M2"}) {
        EXPECT_TRUE(refuses<kael::TypeError>(file_with(header_of_a(dtype, "[0]", "[0,0]")),
                                             "tensor 'a' has dtype " + std::string(dtype) +
                                                 ", which kael does not support"));
    }
}

TEST(Safetensors, UnknownDtypesAreValueErrors) {
    // The message gives the unknown name's length, not its text: the text is the file's.
    for (const std::string_view dtype : {"F33", "f32", "float32", ""}) {
        EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a(dtype, "[0]", "[0,0]")),
                                              "tensor 'a' has an unknown dtype (a string of " +
                                                  std::to_string(dtype.size()) + " bytes)"))
            << dtype;
    }
    const Bytes float32 = file_with(header_of_a("float32", "[0]", "[0,0]"));
    EXPECT_EQ(message_of([&] { (void)from_safetensors_bytes(float32); }).find("float32"), std::string::npos);
}

// ---- Shapes -----------------------------------------------------------------------------

TEST(Safetensors, ShapeEntriesMustBeNonNegativeIntegers) {
    for (const std::string_view shape : {"[-1]", "[1.5]", "[2.0]", "[1e3]", "[\"2\"]", "[null]", "[true]",
                                         "[2,-0]", "[9223372036854775808]", "[18446744073709551616]"}) {
        EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F32", shape, "[0,0]")),
                                              "shape entries must be non-negative integers"))
            << shape;
    }
    // The largest int64 is a valid size; with a zero beside it the tensor is empty.
    EXPECT_TRUE(loads(file_with(header_of_a("F32", "[9223372036854775807,0]", "[0,0]"))));
}

TEST(Safetensors, SizesThatOverflowAreRefused) {
    // 2^62 * 2 elements do not fit in int64.
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("BOOL", "[4611686018427387904,2]", "[0,0]")),
                                          "the size of tensor 'a' overflows int64"));
    // 2^61 * 2 elements fit, their 8-byte F64 size does not.
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F64", "[2305843009213693952,2]", "[0,0]")),
                                          "the size of tensor 'a' overflows int64"));
    // No elements, but no strides could describe the shape either.
    EXPECT_TRUE(refuses<kael::ValueError>(
        file_with(header_of_a("F32", "[2,4611686018427387904,4611686018427387904,0]", "[0,0]")),
        "the size of tensor 'a' overflows int64"));
}

// ---- Byte ranges ------------------------------------------------------------------------

TEST(Safetensors, DataOffsetsMustBeTwoOrderedNonNegativeIntegers) {
    for (const std::string_view offsets : {"[0]", "[0,0,0]", "[]", "[-1,0]", "[0,1.5]", "[\"0\",\"0\"]", "{}",
                                           "[0,9223372036854775808]"}) {
        EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F32", "[0]", offsets)),
                                              "they must be two non-negative integers [begin, end]"))
            << offsets;
    }
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("BOOL", "[0]", "[8,4]"), kEightBytes),
                                          "tensor 'a' has data_offsets [8, 4], whose begin is after its end"));
}

TEST(Safetensors, RangesEndingAtTheDataSizeAreAcceptedOnePastIsRefused) {
    EXPECT_TRUE(loads(file_with(header_of_a("BOOL", "[8]", "[0,8]"), kEightBytes)));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("BOOL", "[9]", "[0,9]"), kEightBytes),
                                          "tensor 'a' ends at byte 9, past the end of the 8-byte data section"));
    EXPECT_TRUE(refuses<kael::ValueError>(
        file_with(header_of_a("BOOL", "[0]", "[9223372036854775807,9223372036854775807]"), kEightBytes),
        "past the end of the 8-byte data section"));
}

TEST(Safetensors, RangesMustHoldExactlyTheShapesBytes) {
    EXPECT_TRUE(loads(file_with(kValidHeader, kEightBytes)));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F32", "[2]", "[0,4]"), Bytes(4, 0)),
                                          "tensor 'a' of dtype F32 and shape [2] needs 8 bytes, but its "
                                          "data_offsets [0, 4] hold 4"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F32", "[1]", "[0,8]"), kEightBytes),
                                          "needs 4 bytes"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("F64", "[]", "[0,4]"), Bytes(4, 0)),
                                          "needs 8 bytes"));
}

TEST(Safetensors, OverlappingRangesAreRefused) {
    const std::string a = "\"a\":" + entry("BOOL", "[4]", "[0,4]");
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{" + a + ",\"b\":" + entry("BOOL", "[4]", "[2,6]") + "}",
                                                    Bytes(6, 0)),
                                          "tensor 'b' (bytes [2, 6)) overlaps tensor 'a' (bytes [0, 4))"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{" + a + ",\"b\":" + entry("BOOL", "[4]", "[0,4]") + "}",
                                                    Bytes(4, 0)),
                                          "overlaps"));
    // An empty range inside another tensor's bytes is refused; at its edges it is fine.
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{" + a + ",\"e\":" + entry("BOOL", "[0]", "[2,2]") + "}",
                                                    Bytes(4, 0)),
                                          "tensor 'e' (bytes [2, 2)) overlaps tensor 'a'"));
    EXPECT_TRUE(loads(file_with("{" + a + ",\"e\":" + entry("BOOL", "[0]", "[4,4]") + ",\"f\":" +
                                    entry("BOOL", "[0]", "[0,0]") + "}",
                                Bytes(4, 0))));
}

TEST(Safetensors, GapsAndUnusedBytesAreRefused) {
    const std::string a = "\"a\":" + entry("BOOL", "[2]", "[0,2]");
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{" + a + ",\"b\":" + entry("BOOL", "[2]", "[4,6]") + "}",
                                                    Bytes(6, 0)),
                                          "bytes [2, 4) of the data section, before tensor 'b', belong to no tensor"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("BOOL", "[2]", "[2,4]"), Bytes(4, 0)),
                                          "bytes [0, 2) of the data section, before tensor 'a'"));
    EXPECT_TRUE(loads(file_with("{" + a + "}", Bytes(2, 0))));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{" + a + "}", Bytes(3, 0)),
                                          "bytes [2, 3) at the end of the data section belong to no tensor"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with("{}", Bytes(3, 0)),
                                          "bytes [0, 3) at the end of the data section"));
}

// ---- Metadata and values ----------------------------------------------------------------

TEST(Safetensors, MetadataMustBeAnObjectOfStrings) {
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"__metadata__":["a"]})"), "__metadata__ is not an object"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"__metadata__":null})"), "__metadata__ is not an object"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"__metadata__":{"step":1200}})"),
                                          "__metadata__ entry 'step' is not a string"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(R"({"__metadata__":{"k":{"nested":"x"}}})"),
                                          "__metadata__ entry 'k' is not a string"));
}

TEST(Safetensors, BoolBytesMustBeZeroOrOne) {
    EXPECT_TRUE(loads(file_with(header_of_a("BOOL", "[3]", "[0,3]"), {0, 1, 1})));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("BOOL", "[3]", "[0,3]"), {0, 1, 2}),
                                          "BOOL tensor 'a' holds the byte 2 at element 2"));
    EXPECT_TRUE(refuses<kael::ValueError>(file_with(header_of_a("BOOL", "[]", "[0,1]"), {255}),
                                          "holds the byte 255"));
}

TEST(Safetensors, EveryTruncationOfAValidFileIsRefused) {
    const Bytes bytes = to_safetensors_bytes(every_kind_of_tensor(), {{"k", "v"}});
    ASSERT_TRUE(loads(bytes));
    for (std::size_t size = 0; size < bytes.size(); ++size) {
        EXPECT_THROW((void)from_safetensors_bytes(std::span(bytes).first(size)), kael::Error) << size << " bytes";
    }
}

// ---- Files and the writer's own checks ---------------------------------------------------

TEST(Safetensors, UnreadableFilesAreKaelErrors) {
    const TempDir dir;
    const std::string missing = message_of([&] { (void)load_safetensors(dir.path() / "missing.safetensors"); });
    EXPECT_NE(missing.find("safetensors: cannot read"), std::string::npos) << missing;
    EXPECT_THROW((void)load_safetensors(dir.path()), kael::Error);  // a directory
    StateDict tensors;
    tensors.insert("a", kael::zeros({1}));
    const std::string unwritable = message_of([&] { save_safetensors(tensors, dir.path() / "no" / "x.safetensors"); });
    EXPECT_NE(unwritable.find("safetensors: cannot open"), std::string::npos) << unwritable;
}

TEST(Safetensors, TheWriterRefusesNamesTheFormatCannotHold) {
    StateDict reserved;
    reserved.insert("__metadata__", kael::zeros({1}));
    EXPECT_THROW((void)to_safetensors_bytes(reserved), kael::ValueError);
    EXPECT_NE(message_of([&] { (void)to_safetensors_bytes(reserved); }).find("cannot be named '__metadata__'"),
              std::string::npos);

    StateDict invalid_utf8;
    invalid_utf8.insert("w\xff", kael::zeros({1}));
    EXPECT_THROW((void)to_safetensors_bytes(invalid_utf8), kael::ValueError);
    EXPECT_NE(message_of([&] { (void)to_safetensors_bytes(invalid_utf8); }).find("not valid UTF-8"),
              std::string::npos);
    StateDict fine;
    fine.insert("w", kael::zeros({1}));
    EXPECT_THROW((void)to_safetensors_bytes(fine, {{"k", "\xc3"}}), kael::ValueError);
}

}  // namespace
