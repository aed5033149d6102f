#pragma once
/// \file
/// \brief Checkpoints in the safetensors format of Hugging Face (chapter 07).
///
/// A safetensors file is three parts: an 8-byte little-endian unsigned length N, N bytes of
/// UTF-8 JSON that give each tensor's dtype, shape and byte range, and then the raw
/// little-endian bytes of every tensor, back to back. The format holds no code, so loading
/// a file from a stranger can at worst fail; kael checks every field of the header before
/// it trusts any of it, and every failure is a typed kael error whose message starts with
/// "safetensors:". A message never quotes a value of the file: it names the value's JSON
/// type and size and where it is (the tensor, the field, the byte), and shows a tensor
/// name cut to 100 bytes with its control characters escaped.
///
/// kael reads and writes the dtypes F32, F64, I64 and BOOL. The other dtypes of the format
/// (F16, BF16, the 8-bit floats, the narrower and unsigned integers) are refused with
/// TypeError.

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "kael/nn/state_dict.h"

namespace kael::io {

/// Free-form string pairs stored under the header's "__metadata__" key, such as the
/// format name or the training step a checkpoint was taken at.
using SafetensorsMetadata = std::map<std::string, std::string>;

/// The bytes of a safetensors file holding `tensors` and, when not empty, `metadata`.
/// Tensors on another device are copied to the CPU first and strided ones are made
/// contiguous; the data section lists them sorted by name. The header is padded with
/// spaces so that the data section starts at a multiple of 8 bytes, as the Python library
/// writes it. Throws ValueError for a tensor named "__metadata__" (the key the format
/// reserves) and for names or metadata that are not valid UTF-8.
[[nodiscard]] std::vector<std::uint8_t> to_safetensors_bytes(const nn::StateDict& tensors,
                                                             const SafetensorsMetadata& metadata = {});

/// Writes to_safetensors_bytes(tensors, metadata) to `path`. The bytes go to a temporary
/// file next to it that is then renamed over `path`, so an interrupted save leaves the
/// previous checkpoint intact. Throws kael::Error when the file cannot be written.
void save_safetensors(const nn::StateDict& tensors, const std::filesystem::path& path,
                      const SafetensorsMetadata& metadata = {});

/// The tensors of a safetensors file held in memory, as new contiguous CPU tensors in name
/// order (the order of Python's `safetensors.torch.load_file`). Throws ValueError, naming
/// the tensor involved, for anything malformed: a truncated file, a header that is not a
/// JSON object, repeats a key or nests arrays and objects deeper than the format's three
/// levels (parsing stops there), an entry with missing, extra or mistyped fields, a shape
/// whose size overflows, byte ranges that do not match the shape, overlap, or leave gaps
/// or unused bytes, a BOOL byte other than 0 or 1. Throws TypeError for a dtype of the
/// format that kael does not have. Either every tensor is returned or none.
[[nodiscard]] nn::StateDict from_safetensors_bytes(std::span<const std::uint8_t> bytes);

/// The "__metadata__" of a safetensors file held in memory (empty when it has none). The
/// whole header and the layout of the data section are checked as from_safetensors_bytes
/// checks them, so a file that this accepts also loads, except for a bad BOOL byte.
[[nodiscard]] SafetensorsMetadata safetensors_metadata(std::span<const std::uint8_t> bytes);

/// Reads the file at `path` and returns from_safetensors_bytes of its contents. Throws
/// kael::Error when the file cannot be read, and what from_safetensors_bytes throws.
[[nodiscard]] nn::StateDict load_safetensors(const std::filesystem::path& path);
//> stage 13

/// The tensors of the safetensors file at `path`, viewing the file in place (chapter 12):
/// the file is memory-mapped, and each tensor's storage is its byte range of the mapping,
/// so nothing is read or copied until a tensor's pages are touched. The mapping is private
/// (a write changes this process's copy of a page, never the file) and stays until the
/// last tensor over it dies. A tensor whose bytes are not aligned for its dtype (the format
/// does not require it; Python's writer pads the header so that they are) is copied
/// instead. The header is checked exactly as from_safetensors_bytes checks it, and a
/// malformed file gets the same typed error with the path added to its message.
[[nodiscard]] nn::StateDict map_safetensors(const std::filesystem::path& path);
//< stage 13

}  // namespace kael::io
