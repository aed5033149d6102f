// The IDX reader: the header checks, big-endian decoding, and gzip streaming that never
// trusts a header's sizes before the bytes it promises have arrived.
#include "kael/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "kael/checked_math.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/shape.h"

namespace kael::data {
namespace {

// The element types of IDX, by their type byte.
enum class IdxType : std::uint8_t { U8 = 0x08, I8 = 0x09, I16 = 0x0B, I32 = 0x0C, F32 = 0x0D, F64 = 0x0E };

constexpr std::size_t kMagicBytes = 4;
constexpr std::size_t kBytesPerDimension = 4;

// Floats are decoded by reinterpreting their bits, which assumes IEEE 754 layouts.
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

// What the header says: enough to check the data after it and decode it.
struct Header {
    IdxType type;
    Shape shape;
    std::size_t header_bytes;  // the magic number and the dimension sizes
    std::int64_t data_bytes;   // what the shape and the type need after that
};

// The one switch from a type byte to the C++ type of its elements.
template <typename F> decltype(auto) dispatch_idx(IdxType type, F&& f) {
    switch (type) {
    case IdxType::U8:
        return f.template operator()<std::uint8_t>();
    case IdxType::I8:
        return f.template operator()<std::int8_t>();
    case IdxType::I16:
        return f.template operator()<std::int16_t>();
    case IdxType::I32:
        return f.template operator()<std::int32_t>();
    case IdxType::F32:
        return f.template operator()<float>();
    case IdxType::F64:
        return f.template operator()<double>();
    }
    detail::unreachable();
}

// Any byte fits the enum's underlying type, so the cast is defined; the switch then tells
// the six real type bytes from the rest.
bool is_known_type(std::uint8_t byte) {
    switch (static_cast<IdxType>(byte)) {
    case IdxType::U8:
    case IdxType::I8:
    case IdxType::I16:
    case IdxType::I32:
    case IdxType::F32:
    case IdxType::F64:
        return true;
    }
    return false;
}

std::string_view type_name(IdxType type) {
    switch (type) {
    case IdxType::U8:
        return "uint8";
    case IdxType::I8:
        return "int8";
    case IdxType::I16:
        return "int16";
    case IdxType::I32:
        return "int32";
    case IdxType::F32:
        return "float32";
    case IdxType::F64:
        return "float64";
    }
    detail::unreachable();
}

std::int64_t type_size(IdxType type) {
    return dispatch_idx(type, []<typename Source>() { return static_cast<std::int64_t>(sizeof(Source)); });
}

bool is_floating(IdxType type) {
    return dispatch_idx(type, []<typename Source>() { return std::is_floating_point_v<Source>; });
}

// "0x0B": type bytes are written in hex in every description of the format.
std::string hex_byte(std::uint8_t byte) {
    constexpr std::string_view digits = "0123456789ABCDEF";
    return {'0', 'x', digits[byte >> 4U], digits[byte & 0x0FU]};
}

// "shape [60000, 28, 28] of uint8", the subject of every data size message.
std::string describe(const Header& header) {
    return "shape " + to_string(header.shape) + " of " + std::string(type_name(header.type));
}

// IDX stores every number most significant byte first, whatever the machine's own order.
template <typename Source> Source load_big_endian(const std::uint8_t* bytes) {
    using Bits = std::conditional_t<sizeof(Source) == 1, std::uint8_t,
                 std::conditional_t<sizeof(Source) == 2, std::uint16_t,
                 std::conditional_t<sizeof(Source) == 4, std::uint32_t, std::uint64_t>>>;
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < sizeof(Source); ++i) {
        value = (value << 8U) | bytes[i];
    }
    return std::bit_cast<Source>(static_cast<Bits>(value));
}

// Data handed to parse_idx still compressed is a common slip; its first bytes give it away.
std::string_view gzip_hint(std::span<const std::uint8_t> bytes) {
    const bool gzip = bytes[0] == 0x1F && bytes[1] == 0x8B;
    return gzip ? " (these bytes start a gzip stream: decompress them first, or use read_idx)" : "";
}

// The product of the dimensions and its size in bytes. A header can claim any sizes, so
// both products are checked: four dimensions of 2^32 - 1 would wrap around int64.
std::int64_t checked_data_bytes(const Shape& shape, IdxType type, const std::string& where) {
    const std::string count_what = "IDX: " + where + "the element count of shape " + to_string(shape);
    std::int64_t count = 1;
    for (const std::int64_t size : shape) {
        count = detail::checked_mul(count, size, count_what.c_str());
    }
    const std::string bytes_what = "IDX: " + where + "the byte count of shape " + to_string(shape);
    return detail::checked_mul(count, type_size(type), bytes_what.c_str());
}

// `where` is "" for bytes in memory and the quoted path and ": " for a file, so that both
// say the same thing after "IDX: ".
Header parse_header(std::span<const std::uint8_t> bytes, const std::string& where) {
    KAEL_CHECK_VALUE(bytes.size() >= kMagicBytes,
                     "IDX: " << where << "too short for the 4-byte magic number, got " << bytes.size() << " bytes");
    KAEL_CHECK_VALUE(bytes[0] == 0 && bytes[1] == 0,
                     "IDX: " << where << "the magic number must start with two zero bytes, got " << hex_byte(bytes[0])
                             << ' ' << hex_byte(bytes[1]) << gzip_hint(bytes));
    KAEL_CHECK_VALUE(is_known_type(bytes[2]),
                     "IDX: " << where << "unknown type byte " << hex_byte(bytes[2])
                             << " (the types are 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, "
                                "0x0E float64)");
    const std::size_t ndim = bytes[3];
    KAEL_CHECK_VALUE(ndim > 0, "IDX: " << where << "the header declares 0 dimensions; IDX data has at least one");
    const std::size_t header_bytes = kMagicBytes + ndim * kBytesPerDimension;
    KAEL_CHECK_VALUE(bytes.size() >= header_bytes,
                     "IDX: " << where << "truncated header: " << ndim << " dimensions need " << ndim * kBytesPerDimension
                             << " bytes of sizes after the magic number, but only " << bytes.size() - kMagicBytes
                             << " follow");
    Shape shape(ndim);
    for (std::size_t i = 0; i < ndim; ++i) {
        shape[i] = load_big_endian<std::uint32_t>(bytes.data() + kMagicBytes + i * kBytesPerDimension);
    }
    const auto type = static_cast<IdxType>(bytes[2]);
    const std::int64_t data_bytes = checked_data_bytes(shape, type, where);
    return {type, std::move(shape), header_bytes, data_bytes};
}

// I64 and Bool cannot hold 0.5. Refusing floating data outright is clearer than
// truncating fractions silently; integer data fits F32, F64 and I64 (Bool: see to_element).
void check_convertible(IdxType type, DType dtype, const std::string& where) {
    KAEL_CHECK_TYPE(!is_floating(type) || is_floating_point(dtype),
                    "IDX: " << where << "cannot read " << type_name(type) << " data as " << dtype
                            << ", which would drop the fractions; read it as float32 or float64");
}

// Both counts in the message, so a reader can tell a cut-off download from a wrong header.
void check_data_size(const Header& header, std::int64_t actual, const std::string& where) {
    KAEL_CHECK_VALUE(actual >= header.data_bytes,
                     "IDX: " << where << "truncated data: " << describe(header) << " needs " << header.data_bytes
                             << " bytes after the header, but only " << actual << " follow");
    KAEL_CHECK_VALUE(actual <= header.data_bytes,
                     "IDX: " << where << "trailing bytes: " << describe(header) << " needs exactly "
                             << header.data_bytes << " bytes after the header, but " << actual << " follow");
}

// A Bool element holds only 0 and 1. Any other value would become 1 and lose the
// difference, which here means the data is not a mask, so it is refused.
template <typename T, typename Source>
T to_element(Source value, std::size_t position, const std::string& where) {
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        KAEL_CHECK_VALUE(value == Source{0} || value == Source{1},
                         "IDX: " << where << "element " << position << " is " << +value
                                 << ", but a bool tensor holds only 0 and 1");
    }
    return convert_value<T>(value);
}

// Called only after check_data_size: `data` holds exactly the elements the header names.
Tensor decode(const Header& header, std::span<const std::uint8_t> data, DType dtype, const std::string& where) {
    Tensor t = empty(header.shape, dtype);
    dispatch(dtype, [&]<typename T>() {
        dispatch_idx(header.type, [&]<typename Source>() {
            T* out = t.data_ptr<T>();
            const std::size_t count = data.size() / sizeof(Source);
            for (std::size_t i = 0; i < count; ++i) {
                out[i] = to_element<T>(load_big_endian<Source>(data.data() + i * sizeof(Source)), i, where);
            }
        });
    });
    return t;
}

// ---- Reading files through zlib ---------------------------------------------------------
// gzread decompresses gzip files and passes plain files through unchanged, so one reader
// serves both.

struct GzClose {
    void operator()(gzFile file) const noexcept { gzclose(file); }
};

// What went wrong, in words, for zlib's status codes after a failed read.
std::string_view zlib_problem(int status) {
    switch (status) {
    case Z_DATA_ERROR:
        return "corrupt gzip stream";
    case Z_BUF_ERROR:
        return "truncated gzip stream";
    case Z_ERRNO:
        return "read error";
    default:  // zlib's codes are plain ints, not an enum; the rest are rare (out of memory)
        return "zlib error";
    }
}

class GzReader {
public:
    GzReader(const std::filesystem::path& path, const std::string& where) : where_(where) {
        errno = 0;  // gzopen fails through open(2), which says why in errno
        file_.reset(gzopen(path.string().c_str(), "rb"));
        KAEL_CHECK(file_ != nullptr,
                   "IDX: " << where_ << "cannot open the file: " << std::generic_category().message(errno));
    }

    // Fills `out` unless the file ends first, and returns how many bytes arrived. zlib
    // reports a damaged stream only through gzerror, even when gzread returned bytes.
    std::size_t read(std::span<std::uint8_t> out) {
        constexpr std::size_t kMaxCall = std::size_t{1} << 30U;  // gzread counts in int
        std::size_t filled = 0;
        while (filled < out.size()) {
            const auto wanted = static_cast<unsigned>(std::min(out.size() - filled, kMaxCall));
            const int got = gzread(file_.get(), out.data() + filled, wanted);
            check_status();
            if (got <= 0) {
                break;  // the end of the file (an error was thrown above)
            }
            filled += static_cast<std::size_t>(got);
        }
        return filled;
    }

private:
    void check_status() {
        int status = Z_OK;
        const char* text = gzerror(file_.get(), &status);
        KAEL_CHECK(status == Z_OK, "IDX: " << where_ << zlib_problem(status) << " (zlib: " << text << ")");
    }

    std::unique_ptr<gzFile_s, GzClose> file_;
    std::string where_;
};

// The magic number, then as many dimension sizes as its fourth byte announces. Fewer bytes
// are returned as they are, for parse_header to say what is missing.
std::vector<std::uint8_t> read_header_bytes(GzReader& reader) {
    std::vector<std::uint8_t> head(kMagicBytes);
    head.resize(reader.read(head));
    if (head.size() == kMagicBytes) {
        head.resize(kMagicBytes + std::size_t{head[3]} * kBytesPerDimension);
        head.resize(kMagicBytes + reader.read(std::span(head).subspan(kMagicBytes)));
    }
    return head;
}

// The data after the header, in chunks, stopping one byte past the expected size. A
// hostile header may claim terabytes: the buffer only grows by bytes that really arrived,
// and a file that keeps going is refused without decompressing the rest.
std::vector<std::uint8_t> read_data(GzReader& reader, const Header& header, const std::string& where) {
    constexpr std::size_t kChunk = std::size_t{1} << 20U;
    const std::size_t limit = static_cast<std::size_t>(header.data_bytes) + 1;  // one more shows trailing bytes
    std::vector<std::uint8_t> data;
    while (data.size() < limit) {
        const std::size_t old_size = data.size();
        const std::size_t wanted = std::min(kChunk, limit - old_size);
        data.resize(old_size + wanted);
        const std::size_t got = reader.read(std::span(data).subspan(old_size));
        data.resize(old_size + got);
        if (got < wanted) {
            break;  // the end of the file
        }
    }
    KAEL_CHECK_VALUE(data.size() < limit,
                     "IDX: " << where << "trailing bytes: " << describe(header) << " needs exactly "
                             << header.data_bytes << " bytes after the header, but more follow (reading stopped at "
                             << data.size() << ")");
    return data;
}

std::string quoted(const std::filesystem::path& path) {
    std::ostringstream text;
    text << path;  // std::filesystem::path prints itself in quotes
    return text.str();
}

}  // namespace

Tensor parse_idx(std::span<const std::uint8_t> bytes, DType dtype) {
    const std::string where;
    const Header header = parse_header(bytes, where);
    check_convertible(header.type, dtype, where);
    check_data_size(header, static_cast<std::int64_t>(bytes.size() - header.header_bytes), where);
    return decode(header, bytes.subspan(header.header_bytes), dtype, where);
}

Tensor read_idx(const std::filesystem::path& path, DType dtype) {
    const std::string where = quoted(path) + ": ";
    GzReader reader(path, where);
    const std::vector<std::uint8_t> head = read_header_bytes(reader);
    const Header header = parse_header(head, where);
    // Before the data: a file of the wrong kind is refused without decompressing it.
    check_convertible(header.type, dtype, where);
    const std::vector<std::uint8_t> data = read_data(reader, header, where);
    check_data_size(header, static_cast<std::int64_t>(data.size()), where);
    return decode(header, data, dtype, where);
}

}  // namespace kael::data
