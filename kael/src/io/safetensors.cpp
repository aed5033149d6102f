// Reading and writing safetensors files. Loading treats the file as hostile: the header
// is parsed by a JSON library, every field is checked, and the byte ranges must tile the
// data section exactly before a single tensor is allocated or copied.
#include "kael/io/safetensors.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
//> stage 13
#include <memory>
//< stage 13
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "kael/checked_math.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/shape.h"
#include "io/quoted.h"
//> stage 13
#include "io/mapped_file.h"
//< stage 13

namespace kael::io {
namespace {

using Json = nlohmann::json;
// The writer keeps insertion order, so "__metadata__" comes first and the tensors follow
// in the order of their bytes, as the Rust library writes them.
using OrderedJson = nlohmann::ordered_json;
using Bytes = std::span<const std::uint8_t>;

// Tensor bytes are copied as they are; the format stores them little-endian.
static_assert(std::endian::native == std::endian::little,
              "safetensors I/O copies element bytes verbatim and needs a little-endian host");

constexpr std::size_t kLengthFieldSize = 8;
// The Rust library's limit. A header takes some 80 bytes per tensor, so a larger one is a
// corrupted or hostile file, and refusing it bounds what the JSON parser allocates.
constexpr std::uint64_t kMaxHeaderSize = 100'000'000;
// The deepest nesting of arrays and objects the format has: the header object, a tensor's
// entry object, and the shape and data_offsets arrays inside it.
constexpr int kMaxNesting = 3;
constexpr std::string_view kMetadataKey = "__metadata__";

// ---------------------------------------------------------------------------------------
// Dtype names. Every dtype the format defines is listed, so that a file holding float16
// weights gets "kael does not support F16" rather than "unknown dtype".

struct FormatDType {
    std::string_view name;
    std::optional<DType> dtype;  // empty: a dtype of the format that kael lacks
};

constexpr std::array<FormatDType, 20> kFormatDTypes{{
    {"F32", DType::F32},      {"F64", DType::F64},          {"I64", DType::I64},
    {"BOOL", DType::Bool},    {"F16", std::nullopt},        {"BF16", std::nullopt},
    {"I8", std::nullopt},     {"U8", std::nullopt},         {"I16", std::nullopt},
    {"U16", std::nullopt},    {"I32", std::nullopt},        {"U32", std::nullopt},
    {"U64", std::nullopt},    {"F8_E4M3", std::nullopt},    {"F8_E5M2", std::nullopt},
    {"F8_E8M0", std::nullopt}, {"F6_E2M3", std::nullopt},   {"F6_E3M2", std::nullopt},
    {"F4", std::nullopt},     {"C64", std::nullopt},
}};

std::string_view format_name(DType dtype) {
    for (const FormatDType& row : kFormatDTypes) {
        if (row.dtype == dtype) {
            return row.name;
        }
    }
    detail::unreachable();  // every kael dtype has a row
}

// ---------------------------------------------------------------------------------------
// Error messages. Everything in the header is the file's, not kael's: a hostile file can
// hold a 100 MB string or an array nested 100,000 deep, and printing such a value (or
// dump(), which recurses) could exhaust memory or the stack. So no value from the file is
// ever printed. A message names a value by its JSON type and size, and names where it is:
// the tensor, the field, the position, the byte.

// "1 byte", "3 bytes".
std::string count_of(std::size_t n, std::string_view noun) {
    return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

// What a JSON value is, without its contents: "a string of 12 bytes", "an array of 2
// elements". nlohmann reads a number without sign, fraction or exponent as unsigned, one
// with a minus sign as signed, and any other (including an integer too large for 64 bits)
// as floating-point.
std::string describe(const Json& value) {
    switch (value.type()) {
    case Json::value_t::null:
        return "null";
    case Json::value_t::boolean:
        return "a boolean";
    case Json::value_t::number_integer:
        return "an integer with a minus sign";
    case Json::value_t::number_unsigned:
        return value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                   ? "an integer larger than int64 holds"
                   : "an integer";
    case Json::value_t::number_float:
        return "a floating-point number";
    case Json::value_t::string:
        return "a string of " + count_of(value.get_ref<const std::string&>().size(), "byte");
    case Json::value_t::array:
        return "an array of " + count_of(value.size(), "element");
    case Json::value_t::object:
        return "an object of " + count_of(value.size(), "member");
    case Json::value_t::binary:  // only the binary formats (CBOR, ...) make these
        return "binary data";
    case Json::value_t::discarded:  // a parser callback's rejection; ours keeps every value
        return "a discarded value";
    }
    detail::unreachable();
}

// A key of the header (a tensor name, a field, a metadata key) in quotes. Keys are the
// file's too, but a name is what a reader needs to find the problem, so it is shown, cut
// and escaped (io/quoted.h).
std::string quoted_key(std::string_view key) { return quote_for_message(key); }

// A shape read from the file: written out when it is short, counted when it is not (a
// header can hold a shape of ten million dimensions).
std::string describe_shape(const Shape& shape) {
    constexpr std::size_t kLimit = 8;
    return shape.size() <= kLimit ? "shape " + to_string(shape) : "a shape of " + count_of(shape.size(), "dimension");
}

// ---------------------------------------------------------------------------------------
// Reading the header.

// What one header entry promises: a tensor and the bytes [begin, end) of the data section.
struct Entry {
    std::string name;
    DType dtype;
    Shape shape;
    std::int64_t begin;
    std::int64_t end;
};

struct Header {
    std::vector<Entry> entries;  // in name order
    SafetensorsMetadata metadata;
    Bytes data;  // the data section
};

DType parse_dtype(const std::string& tensor, const std::string& name) {
    const auto row = std::find_if(kFormatDTypes.begin(), kFormatDTypes.end(),
                                   [&](const FormatDType& r) { return r.name == name; });
    KAEL_CHECK_VALUE(row != kFormatDTypes.end(),
                     "safetensors: tensor " << quoted_key(tensor) << " has an unknown dtype (a string of "
                                            << count_of(name.size(), "byte")
                                            << "); kael reads the dtypes F32, F64, I64 and BOOL");
    // The format's own name, not the file's bytes (they are equal, but only one is trusted).
    KAEL_CHECK_TYPE(row->dtype.has_value(), "safetensors: tensor " << quoted_key(tensor) << " has dtype "
                                                << row->name << ", which kael does not support");
    return *row->dtype;
}

// Two checks run inside the parser, through its callback, as each token is read:
// - Nesting. nlohmann's parser keeps its own stack, but a value nested 100,000 deep is no
//   header, and code that walks values recursively (dump(), for one) would overflow the
//   stack on it. `depth` counts the arrays and objects already open around the one that
//   starts, so parsing stops at the first that would be nested deeper than the format's 3.
// - Repeated keys. nlohmann keeps the last of two equal keys, but a header that says two
//   things about one tensor is ambiguous, and another reader may pick the first. The
//   callback tracks the keys of each object still open.
// A check that fails throws out of the parser, which frees what it has built.
Json parse_json(Bytes text) {
    std::vector<std::set<std::string>> open_objects;
    const auto check_while_parsing = [&](int depth, Json::parse_event_t event, Json& parsed) {
        const bool starts = event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
        KAEL_CHECK_VALUE(!starts || depth < kMaxNesting,
                         "safetensors: the header nests arrays and objects more than " << kMaxNesting
                             << " deep; the format needs " << kMaxNesting
                             << " (the header, a tensor's entry, its shape)");
        if (event == Json::parse_event_t::object_start) {
            open_objects.emplace_back();
        } else if (event == Json::parse_event_t::object_end) {
            open_objects.pop_back();
        } else if (event == Json::parse_event_t::key) {
            const auto& key = parsed.get_ref<const std::string&>();
            KAEL_CHECK_VALUE(open_objects.back().insert(key).second,
                             "safetensors: the header has the key " << quoted_key(key) << " twice in one object");
        }
        return true;  // keep every value
    };
    // nlohmann's messages quote the text it was reading, which may be the whole header;
    // only the position is kept. `byte` counts from 1 and is one past the end when the
    // text stopped too early.
    std::optional<std::size_t> error_at;
    bool number_overflows = false;
    Json header;
    try {
        header = Json::parse(text.begin(), text.end(), check_while_parsing);
    } catch (const Json::parse_error& error) {
        error_at = error.byte - 1;
    } catch (const Json::out_of_range&) {  // valid JSON such as 1e400, which no double holds
        number_overflows = true;
    }
    KAEL_CHECK_VALUE(!number_overflows, "safetensors: the header holds a number beyond the range of a double");
    KAEL_CHECK_VALUE(!error_at || *error_at < text.size(),
                     "safetensors: the header is not valid JSON: its " << count_of(text.size(), "byte")
                         << " end in the middle of a JSON value");
    KAEL_CHECK_VALUE(!error_at, "safetensors: the header is not valid JSON: syntax error at byte "
                                    << *error_at << " of the header (byte " << *error_at + kLengthFieldSize
                                    << " of the file)");
    return header;
}

// A non-negative integer that fits in int64, or nothing. nlohmann reads a literal without
// sign, fraction or exponent as unsigned; -1, 2.0 and 1e3 arrive as other number types.
std::optional<std::int64_t> as_size(const Json& value) {
    if (!value.is_number_unsigned()) {
        return std::nullopt;
    }
    const auto n = value.get<std::uint64_t>();
    if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(n);
}

const Json& field(const std::string& tensor, const Json& entry, const char* name) {
    const auto found = entry.find(name);
    KAEL_CHECK_VALUE(found != entry.end(),
                     "safetensors: tensor " << quoted_key(tensor) << " has no field '" << name << "'");
    return *found;
}

void check_fields(const std::string& tensor, const Json& entry) {
    KAEL_CHECK_VALUE(entry.is_object(), "safetensors: the entry of tensor " << quoted_key(tensor)
                                            << " is not an object (it is " << describe(entry) << ")");
    for (const auto& item : entry.items()) {
        const std::string& key = item.key();
        KAEL_CHECK_VALUE(key == "dtype" || key == "shape" || key == "data_offsets",
                         "safetensors: tensor " << quoted_key(tensor) << " has an unexpected field " << quoted_key(key));
    }
}

Shape read_shape(const std::string& tensor, const Json& value) {
    KAEL_CHECK_VALUE(value.is_array(), "safetensors: tensor " << quoted_key(tensor)
                                           << " has a shape that is not an array (it is " << describe(value) << ")");
    Shape shape;
    shape.reserve(value.size());
    for (const Json& size : value) {
        const std::optional<std::int64_t> n = as_size(size);
        KAEL_CHECK_VALUE(n.has_value(), "safetensors: tensor " << quoted_key(tensor) << " has a shape entry at position "
                                            << shape.size() << " that is " << describe(size)
                                            << "; shape entries must be non-negative integers that fit in int64");
        shape.push_back(*n);
    }
    return shape;
}

std::pair<std::int64_t, std::int64_t> read_offsets(const std::string& tensor, const Json& value) {
    constexpr std::string_view rule = "; they must be two non-negative integers [begin, end] that fit in int64";
    KAEL_CHECK_VALUE(value.is_array() && value.size() == 2,
                     "safetensors: tensor " << quoted_key(tensor) << " has data_offsets that are " << describe(value)
                                            << rule);
    std::array<std::int64_t, 2> offsets{};
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        const std::optional<std::int64_t> n = as_size(value[i]);
        KAEL_CHECK_VALUE(n.has_value(), "safetensors: tensor " << quoted_key(tensor) << " has data_offsets whose entry "
                                            << i << " is " << describe(value[i]) << rule);
        offsets[i] = *n;
    }
    const auto [begin, end] = offsets;
    KAEL_CHECK_VALUE(begin <= end, "safetensors: tensor " << quoted_key(tensor) << " has data_offsets [" << begin
                                       << ", " << end << "], whose begin is after its end");
    return {begin, end};
}

// The bytes a tensor of `shape` needs. Zero sizes count as one in the product, so that it
// also bounds every stride kael computes for the shape: [2, 2^62, 2^62, 0] holds no
// elements, yet no tensor could be laid out with it.
std::int64_t checked_nbytes(const std::string& tensor, const Shape& shape, DType dtype) {
    const std::string what = "safetensors: the size of tensor " + quoted_key(tensor);
    std::int64_t extent = 1;
    bool has_zero = false;
    for (const std::int64_t size : shape) {
        extent = detail::checked_mul(extent, std::max<std::int64_t>(size, 1), what.c_str());
        has_zero = has_zero || size == 0;
    }
    const std::int64_t count = has_zero ? 0 : extent;
    return detail::checked_mul(count, element_size(dtype), what.c_str());
}

Entry read_entry(const std::string& tensor, const Json& value, std::int64_t data_size) {
    check_fields(tensor, value);
    const Json& dtype = field(tensor, value, "dtype");
    const Json& shape = field(tensor, value, "shape");
    const Json& offsets = field(tensor, value, "data_offsets");
    KAEL_CHECK_VALUE(dtype.is_string(), "safetensors: tensor " << quoted_key(tensor)
                                            << " has a dtype that is not a string (it is " << describe(dtype) << ")");

    Entry entry{tensor, parse_dtype(tensor, dtype.get_ref<const std::string&>()),
                read_shape(tensor, shape), 0, 0};
    std::tie(entry.begin, entry.end) = read_offsets(tensor, offsets);
    KAEL_CHECK_VALUE(entry.end <= data_size, "safetensors: tensor " << quoted_key(tensor) << " ends at byte "
                                                 << entry.end << ", past the end of the " << data_size
                                                 << "-byte data section");
    const std::int64_t needed = checked_nbytes(tensor, entry.shape, entry.dtype);
    KAEL_CHECK_VALUE(entry.end - entry.begin == needed,
                     "safetensors: tensor " << quoted_key(tensor) << " of dtype " << format_name(entry.dtype)
                         << " and " << describe_shape(entry.shape) << " needs " << needed
                         << " bytes, but its data_offsets [" << entry.begin << ", " << entry.end
                         << "] hold " << entry.end - entry.begin);
    return entry;
}

SafetensorsMetadata read_metadata(const Json& value) {
    KAEL_CHECK_VALUE(value.is_object(), "safetensors: __metadata__ is not an object (it is "
                                            << describe(value) << ")");
    SafetensorsMetadata metadata;
    for (const auto& item : value.items()) {
        KAEL_CHECK_VALUE(item.value().is_string(), "safetensors: __metadata__ entry " << quoted_key(item.key())
                                                       << " is not a string (it is "
                                                       << describe(item.value()) << ")");
        metadata.emplace(item.key(), item.value().get<std::string>());
    }
    return metadata;
}

// Sorted by position, the byte ranges must follow one another with no overlap and no
// gap, and end at the end of the data section. Bytes that belong to no tensor are where a
// crafted file hides data, and a hole usually means the header and data disagree.
void check_tiling(const std::vector<Entry>& entries, std::int64_t data_size) {
    std::vector<const Entry*> by_position;
    by_position.reserve(entries.size());
    for (const Entry& entry : entries) {
        by_position.push_back(&entry);
    }
    // Ties on begin put empty ranges first, so [8, 8] before [8, 16] is not an overlap.
    std::sort(by_position.begin(), by_position.end(), [](const Entry* a, const Entry* b) {
        return std::pair(a->begin, a->end) < std::pair(b->begin, b->end);
    });
    std::int64_t covered = 0;  // bytes [0, covered) belong to the tensors seen so far
    const Entry* last = nullptr;  // the range that ends at `covered`; set before any overlap can occur
    for (const Entry* entry : by_position) {
        KAEL_CHECK_VALUE(entry->begin >= covered,
                         "safetensors: tensor " << quoted_key(entry->name) << " (bytes [" << entry->begin << ", "
                             << entry->end << ")) overlaps tensor " << quoted_key(last->name) << " (bytes ["
                             << last->begin << ", " << last->end << "))");
        KAEL_CHECK_VALUE(entry->begin == covered,
                         "safetensors: bytes [" << covered << ", " << entry->begin
                             << ") of the data section, before tensor " << quoted_key(entry->name)
                             << ", belong to no tensor");
        covered = entry->end;
        last = entry;
    }
    KAEL_CHECK_VALUE(covered == data_size, "safetensors: bytes [" << covered << ", " << data_size
                                               << ") at the end of the data section belong to no tensor");
}

std::uint64_t read_length_field(Bytes bytes) {
    std::uint64_t length = 0;
    for (std::size_t i = kLengthFieldSize; i-- > 0;) {  // little-endian: last byte is most significant
        length = (length << 8U) | static_cast<std::uint64_t>(bytes[i]);
    }
    return length;
}

Header read_header(Bytes bytes) {
    KAEL_CHECK_VALUE(bytes.size() >= kLengthFieldSize,
                     "safetensors: the file has " << bytes.size()
                         << " bytes, fewer than the 8 of the header length field");
    const std::uint64_t length = read_length_field(bytes);
    // Both comparisons are on values already in range, so no sum can wrap around.
    KAEL_CHECK_VALUE(length <= kMaxHeaderSize, "safetensors: the header length " << length
                                                   << " exceeds the limit of " << kMaxHeaderSize << " bytes");
    const std::uint64_t after_field = bytes.size() - kLengthFieldSize;
    KAEL_CHECK_VALUE(length <= after_field, "safetensors: the header length " << length
                                                << " is larger than the " << after_field
                                                << " bytes after the length field");

    const auto header_size = static_cast<std::size_t>(length);
    const Json json = parse_json(bytes.subspan(kLengthFieldSize, header_size));
    KAEL_CHECK_VALUE(json.is_object(), "safetensors: the header is not a JSON object (it is "
                                           << describe(json) << ")");

    Header header;
    header.data = bytes.subspan(kLengthFieldSize + header_size);
    const auto data_size = static_cast<std::int64_t>(header.data.size());
    for (const auto& item : json.items()) {
        if (item.key() == kMetadataKey) {
            header.metadata = read_metadata(item.value());
        } else {
            header.entries.push_back(read_entry(item.key(), item.value(), data_size));
        }
    }
    check_tiling(header.entries, data_size);
    return header;
}

// ---------------------------------------------------------------------------------------
// Building tensors.

// The bytes of one entry's tensor.
Bytes bytes_of(const Entry& entry, Bytes data) {
    return data.subspan(static_cast<std::size_t>(entry.begin), static_cast<std::size_t>(entry.end - entry.begin));
}

// kael's Bool kernels assume 0 or 1; any other byte would break `a == b` and sums.
void check_bool_bytes(const Entry& entry, Bytes bytes) {
    if (entry.dtype != DType::Bool) {
        return;
    }
    const auto bad = std::find_if(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b > 1; });
    KAEL_CHECK_VALUE(bad == bytes.end(), "safetensors: BOOL tensor " << quoted_key(entry.name) << " holds the byte "
                                             << static_cast<int>(*bad) << " at element " << bad - bytes.begin()
                                             << "; BOOL elements must be 0 or 1");
}

Tensor read_tensor(const Entry& entry, Bytes data) {
    const Bytes bytes = bytes_of(entry, data);
    check_bool_bytes(entry, bytes);
    Tensor t = empty(entry.shape, entry.dtype);
    if (!bytes.empty()) {  // an empty tensor may have no buffer to copy into
        std::memcpy(t.data_ptr_raw(), bytes.data(), bytes.size());
    }
    return t;
}

// ---------------------------------------------------------------------------------------
// Writing.

void write_length_field(std::uint64_t length, std::uint8_t* out) {
    for (std::size_t i = 0; i < kLengthFieldSize; ++i) {
        out[i] = static_cast<std::uint8_t>(length >> (8U * i));
    }
}

std::string dump_header(const OrderedJson& header) {
    std::string problem;
    std::string text;
    try {
        text = header.dump();
    } catch (const OrderedJson::type_error& error) {  // a string that is not valid UTF-8
        problem = error.what();
    }
    KAEL_CHECK_VALUE(problem.empty(), "safetensors: a tensor name or metadata string is not valid UTF-8 ("
                                          << problem << ")");
    // Spaces are JSON whitespace, so readers ignore them; they put the data section on an
    // 8-byte boundary, where a memory-mapped file can be read in place.
    text.append((kLengthFieldSize - text.size() % kLengthFieldSize) % kLengthFieldSize, ' ');
    return text;
}

//> stage 13
// A tensor over its own bytes of the mapping, when they are aligned for its dtype; a copy
// when they are not, since a float read from an address that is not a multiple of 4 is
// undefined behaviour in C++ (and slow where the hardware allows it).
Tensor map_tensor(const Entry& entry, Bytes data, const std::shared_ptr<MappedFile>& file) {
    const Bytes bytes = bytes_of(entry, data);
    check_bool_bytes(entry, bytes);
    const auto offset = static_cast<std::size_t>(bytes.data() - file->bytes().data());
    if (offset % static_cast<std::size_t>(element_size(entry.dtype)) != 0) {
        return read_tensor(entry, data);
    }
    return from_external(file->writable(offset), entry.shape, contiguous_strides(entry.shape), entry.dtype, file);
}

// What `read` throws, with the file's path added to the message: a loader of many files
// (a model directory) must say which one is malformed.
template <typename Read> auto naming_file(const std::filesystem::path& path, Read&& read) {
    const std::string where = " (in '" + path.string() + "')";
    try {
        return read();
    } catch (const TypeError& error) {
        throw TypeError(error.what() + where);
    } catch (const ValueError& error) {
        throw ValueError(error.what() + where);
    }
}

//< stage 13
std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    KAEL_CHECK(!error, "safetensors: cannot read '" << path.string() << "': " << error.message());
    std::ifstream in(path, std::ios::binary);
    KAEL_CHECK(in.is_open(), "safetensors: cannot open '" << path.string() << "'");
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    KAEL_CHECK(in.gcount() == static_cast<std::streamsize>(bytes.size()),
               "safetensors: read only " << in.gcount() << " of the " << bytes.size() << " bytes of '"
                                         << path.string() << "'");
    return bytes;
}

}  // namespace

std::vector<std::uint8_t> to_safetensors_bytes(const nn::StateDict& tensors,
                                               const SafetensorsMetadata& metadata) {
    std::vector<std::pair<std::string, Tensor>> sorted;
    sorted.reserve(tensors.size());
    for (const auto& [name, tensor] : tensors) {
        KAEL_CHECK_VALUE(name != kMetadataKey, "safetensors: a tensor cannot be named '"
                                                   << kMetadataKey << "', the key that holds the metadata");
        sorted.emplace_back(name, tensor.cpu().contiguous());
    }
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

    OrderedJson header = OrderedJson::object();
    if (!metadata.empty()) {
        header[std::string(kMetadataKey)] = metadata;
    }
    std::int64_t data_size = 0;
    for (const auto& [name, t] : sorted) {
        const std::int64_t end = detail::checked_add(data_size, t.nbytes(), "safetensors: the data section size");
        OrderedJson entry = OrderedJson::object();
        entry["dtype"] = format_name(t.dtype());
        entry["shape"] = t.shape();
        entry["data_offsets"] = OrderedJson::array({data_size, end});
        header[name] = std::move(entry);
        data_size = end;
    }

    const std::string text = dump_header(header);
    std::vector<std::uint8_t> bytes(kLengthFieldSize + text.size() + static_cast<std::size_t>(data_size));
    write_length_field(text.size(), bytes.data());
    std::memcpy(bytes.data() + kLengthFieldSize, text.data(), text.size());
    std::uint8_t* out = bytes.data() + kLengthFieldSize + text.size();
    for (const auto& [name, t] : sorted) {
        const auto nbytes = static_cast<std::size_t>(t.nbytes());
        if (nbytes > 0) {
            std::memcpy(out, t.data_ptr_raw(), nbytes);
            out += nbytes;
        }
    }
    return bytes;
}

void save_safetensors(const nn::StateDict& tensors, const std::filesystem::path& path,
                      const SafetensorsMetadata& metadata) {
    const std::vector<std::uint8_t> bytes = to_safetensors_bytes(tensors, metadata);
    std::filesystem::path temporary = path;
    temporary += ".tmp";
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    KAEL_CHECK(out.is_open(), "safetensors: cannot open '" << temporary.string() << "' for writing");
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    std::error_code error;
    const bool written = static_cast<bool>(out);
    if (written) {
        std::filesystem::rename(temporary, path, error);
    }
    if (!written || error) {
        std::error_code ignored;  // the first failure is the one worth reporting
        std::filesystem::remove(temporary, ignored);
    }
    KAEL_CHECK(written, "safetensors: writing '" << temporary.string() << "' failed");
    KAEL_CHECK(!error, "safetensors: cannot rename '" << temporary.string() << "' to '" << path.string()
                                                      << "': " << error.message());
}

nn::StateDict from_safetensors_bytes(std::span<const std::uint8_t> bytes) {
    const Header header = read_header(bytes);
    nn::StateDict tensors;
    for (const Entry& entry : header.entries) {
        tensors.insert(entry.name, read_tensor(entry, header.data));
    }
    return tensors;
}

SafetensorsMetadata safetensors_metadata(std::span<const std::uint8_t> bytes) {
    return read_header(bytes).metadata;
}

nn::StateDict load_safetensors(const std::filesystem::path& path) {
    return from_safetensors_bytes(read_file(path));
}
//> stage 13

nn::StateDict map_safetensors(const std::filesystem::path& path) {
    const std::shared_ptr<MappedFile> file = MappedFile::open(path);
    return naming_file(path, [&] {
        const Header header = read_header(file->bytes());
        nn::StateDict tensors;
        for (const Entry& entry : header.entries) {
            tensors.insert(entry.name, map_tensor(entry, header.data, file));
        }
        return tensors;
    });
}
//< stage 13

}  // namespace kael::io
