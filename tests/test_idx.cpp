// The IDX reader: every type byte decoded from big-endian bytes built here, conversion to
// each dtype, every malformed header and data size at and just past its limit, gzip and
// plain files written by the test, and the real Fashion-MNIST files where installed.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "helpers.h"
#include "kael/data/idx.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Tensor;
using kael::data::parse_idx;
using kael::data::read_idx;
using kael::testing::values;

using Bytes = std::vector<std::uint8_t>;
using I = std::int64_t;

// ---- Building IDX bytes -------------------------------------------------------------------
// Written independently of the reader: shifts out the most significant byte first.

void append_big_endian(Bytes& bytes, std::uint64_t bits, std::size_t width) {
    for (std::size_t i = width; i > 0; --i) {
        bytes.push_back(static_cast<std::uint8_t>(bits >> (8 * (i - 1))));
    }
}

Bytes header(std::uint8_t type, const std::vector<std::uint32_t>& dims) {
    Bytes bytes{0, 0, type, static_cast<std::uint8_t>(dims.size())};
    for (const std::uint32_t d : dims) {
        append_big_endian(bytes, d, 4);
    }
    return bytes;
}

// An IDX file: the header for `dims`, then `data` in big-endian order. The element type
// decides the width; floats go through their bit patterns.
template <typename Source>
Bytes idx_file(std::uint8_t type, const std::vector<std::uint32_t>& dims, const std::vector<Source>& data) {
    Bytes bytes = header(type, dims);
    for (const Source value : data) {
        if constexpr (std::is_floating_point_v<Source>) {
            using Bits = std::conditional_t<sizeof(Source) == 4, std::uint32_t, std::uint64_t>;
            append_big_endian(bytes, std::bit_cast<Bits>(value), sizeof(Source));
        } else {
            using Bits = std::make_unsigned_t<Source>;
            append_big_endian(bytes, static_cast<Bits>(value), sizeof(Source));
        }
    }
    return bytes;
}

// A small valid file used by the malformed-input tests: int16, shape [2, 2].
Bytes small_int16_file() { return idx_file<std::int16_t>(0x0B, {2, 2}, {1, -2, 300, -400}); }

// Success when `f` throws `Exception` with `part` in its message. Wrong types fail from
// chapter 09 on, where IndexError, ValueError and TypeError become distinct classes.
template <typename Exception, typename F>
::testing::AssertionResult refused(F&& f, const std::string& part) {
    try {
        f();
    } catch (const Exception& error) {
        const std::string message = error.what();
        if (message.find(part) != std::string::npos) {
            return ::testing::AssertionSuccess();
        }
        return ::testing::AssertionFailure() << "the message lacks '" << part << "': " << message;
    } catch (const std::exception& error) {
        return ::testing::AssertionFailure() << "an exception of another type: " << error.what();
    }
    return ::testing::AssertionFailure() << "no exception (expected one mentioning '" << part << "')";
}

// ---- Files ----------------------------------------------------------------------------------

// A file in the temporary directory, named after the process and test so that parallel
// test runs never share one, and removed at the end of the test.
class TempFile {
public:
    explicit TempFile(const std::string& suffix) {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = std::filesystem::temp_directory_path() /
                ("kael_idx_" + std::to_string(::getpid()) + "_" + test->name() + suffix);
    }
    ~TempFile() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

void write_plain(const std::filesystem::path& path, const Bytes& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << "could not write " << path;
}

void write_gzip(const std::filesystem::path& path, const Bytes& bytes) {
    gzFile file = gzopen(path.string().c_str(), "wb");
    ASSERT_NE(file, nullptr) << "could not create " << path;
    const int written = gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
    EXPECT_EQ(written, static_cast<int>(bytes.size()));
    ASSERT_EQ(gzclose(file), Z_OK);
}

// ---- Every type byte ------------------------------------------------------------------------

TEST(Idx, ParsesUnsignedBytes) {
    const Tensor t = parse_idx(Bytes{0, 0, 0x08, 1, 0, 0, 0, 4, 0, 1, 128, 255}, DType::F32);
    EXPECT_EQ(t.shape(), (Shape{4}));
    EXPECT_EQ(t.dtype(), DType::F32);
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(values<float>(t), (std::vector<float>{0, 1, 128, 255}));
}

TEST(Idx, ParsesSignedBytes) {
    const Tensor t = parse_idx(Bytes{0, 0, 0x09, 1, 0, 0, 0, 4, 0x80, 0xFF, 0, 0x7F}, DType::I64);
    EXPECT_EQ(values<I>(t), (std::vector<I>{-128, -1, 0, 127}));
}

TEST(Idx, ParsesInt16MostSignificantByteFirst) {
    const Tensor t = parse_idx(Bytes{0, 0, 0x0B, 1, 0, 0, 0, 2, 0x01, 0x02, 0xFF, 0xFE}, DType::I64);
    EXPECT_EQ(values<I>(t), (std::vector<I>{258, -2}));
    const std::vector<std::int16_t> limits{std::numeric_limits<std::int16_t>::min(), -1, 0,
                                           std::numeric_limits<std::int16_t>::max()};
    EXPECT_EQ(values<I>(parse_idx(idx_file(0x0B, {4}, limits), DType::I64)), (std::vector<I>{-32768, -1, 0, 32767}));
}

TEST(Idx, ParsesInt32MostSignificantByteFirst) {
    const Tensor t = parse_idx(Bytes{0, 0, 0x0C, 1, 0, 0, 0, 2, 0x01, 0x02, 0x03, 0x04, 0xFF, 0xFF, 0xFF, 0xFE},
                               DType::I64);
    EXPECT_EQ(values<I>(t), (std::vector<I>{0x01020304, -2}));
    const std::vector<std::int32_t> limits{std::numeric_limits<std::int32_t>::min(),
                                           std::numeric_limits<std::int32_t>::max()};
    EXPECT_EQ(values<I>(parse_idx(idx_file(0x0C, {2}, limits), DType::I64)),
              (std::vector<I>{-2147483648LL, 2147483647LL}));
}

TEST(Idx, ParsesFloat32MostSignificantByteFirst) {
    // 1.0f is 0x3F800000 and -2.5f is 0xC0200000.
    const Tensor t = parse_idx(Bytes{0, 0, 0x0D, 1, 0, 0, 0, 2, 0x3F, 0x80, 0, 0, 0xC0, 0x20, 0, 0}, DType::F32);
    EXPECT_EQ(values<float>(t), (std::vector<float>{1.0f, -2.5f}));
    const std::vector<float> data{0.1f, -0.0f, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()};
    EXPECT_EQ(values<float>(parse_idx(idx_file(0x0D, {4}, data), DType::F32)), data);
    // Widening to float64 is exact.
    const std::vector<double> widened(data.begin(), data.end());
    EXPECT_EQ(values<double>(parse_idx(idx_file(0x0D, {4}, data), DType::F64)), widened);
}

TEST(Idx, ParsesFloat64MostSignificantByteFirst) {
    // 1.0 is 0x3FF0000000000000.
    const Tensor t = parse_idx(Bytes{0, 0, 0x0E, 1, 0, 0, 0, 1, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0}, DType::F64);
    EXPECT_EQ(values<double>(t), (std::vector<double>{1.0}));
    const std::vector<double> data{0.1, -2.5, 1e300, std::numeric_limits<double>::lowest()};
    EXPECT_EQ(values<double>(parse_idx(idx_file(0x0E, {4}, data), DType::F64)), data);
    // Narrowing to float32 rounds each value as a cast does.
    const std::vector<float> narrowed{0.1f, -2.5f};
    EXPECT_EQ(values<float>(parse_idx(idx_file(0x0E, {2}, std::vector<double>{0.1, -2.5}), DType::F32)), narrowed);
}

TEST(Idx, ReadsAThreeDimensionalImageFileInRowMajorOrder) {
    std::vector<std::uint8_t> pixels(2 * 3 * 4);
    for (std::size_t i = 0; i < pixels.size(); ++i) {
        pixels[i] = static_cast<std::uint8_t>(10 * i);
    }
    const Tensor images = parse_idx(idx_file(0x08, {2, 3, 4}, pixels), DType::F32);
    EXPECT_EQ(images.shape(), (Shape{2, 3, 4}));
    EXPECT_EQ(images.at<float>({0, 0, 1}), 10.0f);
    EXPECT_EQ(images.at<float>({0, 1, 0}), 40.0f);
    EXPECT_EQ(images.at<float>({1, 0, 0}), 120.0f);
    EXPECT_EQ(images.at<float>({1, 2, 3}), 230.0f);
}

TEST(Idx, ZeroSizedDimensionGivesAnEmptyTensor) {
    const Tensor t = parse_idx(header(0x08, {0, 28}), DType::F32);
    EXPECT_EQ(t.shape(), (Shape{0, 28}));
    EXPECT_EQ(t.numel(), 0);
}

// ---- Conversion to each dtype -------------------------------------------------------------

TEST(Idx, IntegerDataConvertsToEveryDtype) {
    const Bytes file = idx_file<std::int32_t>(0x0C, {3}, {0, 1, -7});
    EXPECT_EQ(values<float>(parse_idx(file, DType::F32)), (std::vector<float>{0, 1, -7}));
    EXPECT_EQ(values<double>(parse_idx(file, DType::F64)), (std::vector<double>{0, 1, -7}));
    EXPECT_EQ(values<I>(parse_idx(file, DType::I64)), (std::vector<I>{0, 1, -7}));
    // Bool holds a mask of 0s and 1s; any other value would silently become 1.
    const Bytes mask = idx_file<std::uint8_t>(0x08, {4}, {0, 1, 1, 0});
    EXPECT_EQ(values<std::uint8_t>(parse_idx(mask, DType::Bool)), (std::vector<std::uint8_t>{0, 1, 1, 0}));
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(file, DType::Bool); },
                                          "IDX: element 2 is -7, but a bool tensor holds only 0 and 1"));
    const Bytes two = idx_file<std::uint8_t>(0x08, {2}, {1, 2});
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(two, DType::Bool); }, "element 1 is 2"));
}

TEST(Idx, FloatingDataIsRefusedAsInt64OrBool) {
    const Bytes f32 = idx_file<float>(0x0D, {2}, {0.5f, 1.0f});
    EXPECT_TRUE(refused<kael::TypeError>([&] { (void)parse_idx(f32, DType::I64); },
                                         "IDX: cannot read float32 data as int64"));
    EXPECT_TRUE(refused<kael::TypeError>([&] { (void)parse_idx(f32, DType::Bool); },
                                         "IDX: cannot read float32 data as bool"));
    const Bytes f64 = idx_file<double>(0x0E, {1}, {1.0});
    EXPECT_TRUE(refused<kael::TypeError>([&] { (void)parse_idx(f64, DType::I64); },
                                         "IDX: cannot read float64 data as int64"));
}

// ---- Malformed headers --------------------------------------------------------------------

TEST(Idx, FewerThanFourBytesAreRefused) {
    for (std::size_t size = 0; size < 4; ++size) {
        const Bytes bytes(size, 0);
        EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(bytes, DType::F32); },
                                              "IDX: too short for the 4-byte magic number, got " +
                                                  std::to_string(size) + " bytes"));
    }
}

TEST(Idx, MagicMustStartWithTwoZeroBytes) {
    Bytes bytes = header(0x08, {1});
    bytes.push_back(7);
    bytes[1] = 0x01;
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(bytes, DType::F32); },
                                          "IDX: the magic number must start with two zero bytes, got 0x00 0x01"));
    bytes[0] = 0x10;
    bytes[1] = 0x00;
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(bytes, DType::F32); }, "got 0x10 0x00"));
    // Still-compressed data is the usual cause, and the message says so.
    const Bytes gzip{0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03};
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(gzip, DType::F32); }, "decompress them first"));
}

TEST(Idx, EveryUnknownTypeByteIsRefused) {
    const std::vector<int> known{0x08, 0x09, 0x0B, 0x0C, 0x0D, 0x0E};
    for (int type = 0; type < 256; ++type) {
        const Bytes bytes = header(static_cast<std::uint8_t>(type), {0});
        if (std::find(known.begin(), known.end(), type) != known.end()) {
            EXPECT_EQ(parse_idx(bytes, DType::F64).shape(), (Shape{0})) << "type byte " << type;
        } else {
            EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(bytes, DType::F64); },
                                                  "IDX: unknown type byte 0x"))
                << "type byte " << type;
        }
    }
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(header(0x0A, {0}), DType::F64); },
                                          "unknown type byte 0x0A"));
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(header(0xFF, {0}), DType::F64); },
                                          "unknown type byte 0xFF"));
}

TEST(Idx, ZeroDimensionsAreRefused) {
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(Bytes{0, 0, 0x08, 0}, DType::F32); },
                                          "IDX: the header declares 0 dimensions"));
}

TEST(Idx, TruncatedDimensionListIsRefused) {
    Bytes bytes = header(0x08, {1, 1});
    bytes.pop_back();
    EXPECT_TRUE(refused<kael::ValueError>(
        [&] { (void)parse_idx(bytes, DType::F32); },
        "IDX: truncated header: 2 dimensions need 8 bytes of sizes after the magic number, but only 7 follow"));
    // 255 dimensions announced, none given.
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)parse_idx(Bytes{0, 0, 0x08, 255}, DType::F32); },
                                          "255 dimensions need 1020 bytes of sizes"));
}

TEST(Idx, ElementAndByteCountsThatOverflowAreRefused) {
    // (2^32 - 1)^2 is about 1.8e19, past int64's 9.2e18.
    EXPECT_TRUE(refused<kael::ValueError>(
        [&] { (void)parse_idx(header(0x08, {0xFFFFFFFF, 0xFFFFFFFF}), DType::F32); },
        "IDX: the element count of shape [4294967295, 4294967295] overflows int64"));
    // 2^62 elements fit in int64, but not their 2^65 bytes.
    EXPECT_TRUE(refused<kael::ValueError>(
        [&] { (void)parse_idx(header(0x0E, {0x80000000, 0x80000000}), DType::F64); },
        "IDX: the byte count of shape [2147483648, 2147483648] overflows int64"));
    // At the limit: 2^62 one-byte elements do not overflow and fail only as truncated data.
    EXPECT_TRUE(refused<kael::ValueError>(
        [&] { (void)parse_idx(header(0x08, {0x80000000, 0x80000000}), DType::F32); }, "truncated data"));
}

// A header may claim a quarter of a petabyte; the reader must compare that with the bytes
// present before it allocates anything (a huge allocation would fail or take the machine).
TEST(Idx, HugeClaimedShapeIsRefusedBeforeAllocating) {
    Bytes bytes = header(0x08, {65536, 65536, 65536});
    bytes.push_back(1);
    EXPECT_TRUE(refused<kael::ValueError>(
        [&] { (void)parse_idx(bytes, DType::F64); },
        "IDX: truncated data: shape [65536, 65536, 65536] of uint8 needs 281474976710656 bytes after the header, "
        "but only 1 follow"));
}

// ---- The data size, at the limit and one byte past it ------------------------------------

TEST(Idx, DataMustBeExactlyTheSizeTheHeaderNames) {
    const Bytes exact = small_int16_file();
    EXPECT_EQ(values<I>(parse_idx(exact, DType::I64)), (std::vector<I>{1, -2, 300, -400}));

    Bytes short_by_one = exact;
    short_by_one.pop_back();
    EXPECT_TRUE(refused<kael::ValueError>(
        [&] { (void)parse_idx(short_by_one, DType::I64); },
        "IDX: truncated data: shape [2, 2] of int16 needs 8 bytes after the header, but only 7 follow"));

    Bytes one_extra = exact;
    one_extra.push_back(0);
    EXPECT_TRUE(refused<kael::ValueError>(
        [&] { (void)parse_idx(one_extra, DType::I64); },
        "IDX: trailing bytes: shape [2, 2] of int16 needs exactly 8 bytes after the header, but 9 follow"));
}

TEST(Idx, EveryPrefixOfAValidFileIsRefused) {
    const Bytes file = small_int16_file();
    for (std::size_t size = 0; size < file.size(); ++size) {
        const Bytes prefix(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(size));
        EXPECT_THROW((void)parse_idx(prefix, DType::I64), kael::ValueError) << "prefix of " << size << " bytes";
    }
}

// ---- Files ----------------------------------------------------------------------------------

TEST(Idx, ReadsAGzipFile) {
    const TempFile file(".gz");
    std::vector<std::uint8_t> pixels(3 * 5 * 7);
    for (std::size_t i = 0; i < pixels.size(); ++i) {
        pixels[i] = static_cast<std::uint8_t>(i * 37 % 256);
    }
    write_gzip(file.path(), idx_file(0x08, {3, 5, 7}, pixels));
    const Tensor images = read_idx(file.path(), DType::F32);
    EXPECT_EQ(images.shape(), (Shape{3, 5, 7}));
    EXPECT_EQ(values<float>(images), std::vector<float>(pixels.begin(), pixels.end()));
}

TEST(Idx, ReadsAPlainFile) {
    const TempFile file(".idx");
    write_plain(file.path(), small_int16_file());
    EXPECT_EQ(values<I>(read_idx(file.path(), DType::I64)), (std::vector<I>{1, -2, 300, -400}));
}

// Larger than one read chunk of the reader (1 MiB), so the data arrives in several pieces.
TEST(Idx, ReadsAFileLargerThanOneChunk) {
    const TempFile file(".gz");
    std::vector<std::int32_t> data(300'000);
    for (std::size_t i = 0; i < data.size(); ++i) {
        data[i] = static_cast<std::int32_t>(i * 7919 % 2'000'000'000) - 1'000'000'000;
    }
    write_gzip(file.path(), idx_file(0x0C, {300'000}, data));
    const Tensor t = read_idx(file.path(), DType::I64);
    EXPECT_EQ(values<I>(t), std::vector<I>(data.begin(), data.end()));
}

TEST(Idx, FileErrorsNameThePath) {
    const TempFile file(".gz");
    Bytes one_extra = small_int16_file();
    one_extra.push_back(0);
    write_gzip(file.path(), one_extra);
    const std::string where = "IDX: \"" + file.path().string() + "\": ";
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)read_idx(file.path(), DType::I64); },
                                          where + "trailing bytes: shape [2, 2] of int16 needs exactly 8 bytes"));

    Bytes short_by_one = small_int16_file();
    short_by_one.pop_back();
    write_gzip(file.path(), short_by_one);
    EXPECT_TRUE(refused<kael::ValueError>([&] { (void)read_idx(file.path(), DType::I64); },
                                          where + "truncated data: shape [2, 2] of int16 needs 8 bytes after the "
                                                  "header, but only 7 follow"));

    write_gzip(file.path(), idx_file<float>(0x0D, {1}, {0.5f}));
    EXPECT_TRUE(refused<kael::TypeError>([&] { (void)read_idx(file.path(), DType::I64); },
                                         where + "cannot read float32 data as int64"));
}

TEST(Idx, EveryPrefixOfAValidFileOnDiskIsRefused) {
    const TempFile file(".idx");
    const Bytes whole = small_int16_file();
    for (std::size_t size = 0; size < whole.size(); ++size) {
        write_plain(file.path(), Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(size)));
        EXPECT_THROW((void)read_idx(file.path(), DType::I64), kael::ValueError) << "prefix of " << size << " bytes";
    }
}

TEST(Idx, MissingFileIsRefused) {
    const TempFile file(".gz");  // never written
    EXPECT_TRUE(refused<kael::Error>([&] { (void)read_idx(file.path(), DType::F32); },
                                     "IDX: \"" + file.path().string() + "\": cannot open the file: No such file"));
}

// A valid gzip header followed by bytes that are no deflate stream: 0xFF announces a
// block of the reserved type 3.
TEST(Idx, CorruptGzipStreamIsRefused) {
    const TempFile file(".gz");
    Bytes bytes(10 + 32, 0xFF);
    // The ten header bytes one by one: appending to an initialised vector trips a false
    // array-bounds warning in GCC 12.
    const std::uint8_t header[] = {0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03};
    for (std::size_t i = 0; i < sizeof header; ++i) {
        bytes[i] = header[i];
    }
    write_plain(file.path(), bytes);
    EXPECT_TRUE(refused<kael::Error>([&] { (void)read_idx(file.path(), DType::F32); }, "corrupt gzip stream"));
}

// A download cut short: zlib only reports it through gzerror, never as a failed read.
TEST(Idx, TruncatedGzipStreamIsRefused) {
    const TempFile file(".gz");
    std::vector<std::uint8_t> pixels(4096);
    for (std::size_t i = 0; i < pixels.size(); ++i) {
        pixels[i] = static_cast<std::uint8_t>(i * i % 251);
    }
    write_gzip(file.path(), idx_file(0x08, {4096}, pixels));
    std::filesystem::resize_file(file.path(), std::filesystem::file_size(file.path()) - 4);  // cut the trailer
    EXPECT_TRUE(refused<kael::Error>([&] { (void)read_idx(file.path(), DType::F32); }, "truncated gzip stream"));
    std::filesystem::resize_file(file.path(), std::filesystem::file_size(file.path()) / 2);  // and half the data
    EXPECT_TRUE(refused<kael::Error>([&] { (void)read_idx(file.path(), DType::F32); }, "gzip stream"));
}

// ---- The real Fashion-MNIST files (Debian's dataset-fashion-mnist) -----------------------

const std::filesystem::path kFashionMnist = "/usr/share/datasets/fashion-mnist";

TEST(Idx, FashionMnistTrainLabels) {
    const std::filesystem::path path = kFashionMnist / "train-labels-idx1-ubyte.gz";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " is not installed (Debian package dataset-fashion-mnist)";
    }
    const Tensor labels = read_idx(path, DType::I64);
    EXPECT_EQ(labels.shape(), (Shape{60000}));
    EXPECT_EQ(labels.min().item<I>(), 0);
    EXPECT_EQ(labels.max().item<I>(), 9);
}

TEST(Idx, FashionMnistTestImages) {
    const std::filesystem::path path = kFashionMnist / "t10k-images-idx3-ubyte.gz";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " is not installed (Debian package dataset-fashion-mnist)";
    }
    const Tensor images = read_idx(path, DType::F32);
    EXPECT_EQ(images.shape(), (Shape{10000, 28, 28}));
    EXPECT_GE(images.min().item<float>(), 0.0f);
    EXPECT_LE(images.max().item<float>(), 255.0f);
    EXPECT_GT(images.max().item<float>(), 0.0f);  // not all black
}

}  // namespace
