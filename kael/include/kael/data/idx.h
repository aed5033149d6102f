#pragma once
/// \file
/// \brief Reading the IDX format of MNIST and Fashion-MNIST into tensors (chapter 07).
///
/// An IDX file is a tiny header followed by raw numbers:
///
///     bytes 0-1   0x00 0x00          the magic number starts with two zero bytes
///     byte  2     the type byte      0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32,
///                                    0x0D float32, 0x0E float64
///     byte  3     the number of dimensions, at least 1
///     then        each dimension as a big-endian uint32
///     then        the elements, big-endian, in row-major order
///
/// The MNIST files are distributed gzip-compressed; read_idx reads compressed and plain
/// files alike. Every malformed file is refused with a message that starts with `IDX:` and
/// says what is wrong: ValueError for a bad header or a data size that does not match it,
/// TypeError for a dtype that cannot hold the file's values, kael::Error for a file that
/// cannot be opened or is not a valid gzip stream.

#include <cstdint>
#include <filesystem>
#include <span>

#include "kael/dtype.h"
#include "kael/tensor.h"

namespace kael::data {

/// Reads the IDX file at `path`, gzip-compressed or plain, into a new contiguous CPU tensor
/// with the file's shape and `dtype`. Images are usually read as F32 (holding 0..255) and
/// labels as I64. Integer data converts to F32, F64 and I64; floating data only to F32 and
/// F64 (TypeError otherwise); Bool accepts integer data whose values are all 0 or 1
/// (ValueError for any other value). Messages carry the path after `IDX:`.
[[nodiscard]] Tensor read_idx(const std::filesystem::path& path, DType dtype);

/// The tensor held by IDX data already in memory and decompressed: the same checks, messages
/// and result as read_idx, without a path in the messages.
[[nodiscard]] Tensor parse_idx(std::span<const std::uint8_t> bytes, DType dtype);

}  // namespace kael::data
