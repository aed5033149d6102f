// libFuzzer target: the safetensors reader. Every input is a file from a stranger. The
// reader may refuse it, but only with a kael::Error; and a file it accepts must mean one
// thing: the metadata reader accepts it too, and what was loaded, written out again and
// reloaded, gives the same tensors byte for byte.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "fuzz_check.h"
#include "kael/io/safetensors.h"

namespace {

using kael::fuzz::require;
using kael::fuzz::succeeds;

bool same_tensor(const kael::Tensor& a, const kael::Tensor& b) {
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
        return false;
    }
    // Both are contiguous CPU tensors, and empty ones may have no buffer at all.
    const auto nbytes = static_cast<std::size_t>(a.nbytes());
    return nbytes == 0 || std::memcmp(a.data_ptr_raw(), b.data_ptr_raw(), nbytes) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> file(data, size);
    std::optional<kael::nn::StateDict> tensors;
    if (!succeeds([&] { tensors = kael::io::from_safetensors_bytes(file); })) {
        return 0;
    }
    std::optional<kael::io::SafetensorsMetadata> metadata;
    require(succeeds([&] { metadata = kael::io::safetensors_metadata(file); }),
            "a file that loads has metadata that does not");

    std::optional<kael::nn::StateDict> reloaded;
    std::optional<kael::io::SafetensorsMetadata> metadata_reloaded;
    require(succeeds([&] {
                const std::vector<std::uint8_t> rewritten = kael::io::to_safetensors_bytes(*tensors, *metadata);
                reloaded = kael::io::from_safetensors_bytes(rewritten);
                metadata_reloaded = kael::io::safetensors_metadata(rewritten);
            }),
            "what a file loaded cannot be written and loaded again");
    require(*metadata_reloaded == *metadata, "the metadata changed on the way round");
    require(reloaded->keys() == tensors->keys(), "the tensor names changed on the way round");
    for (const auto& [name, tensor] : *tensors) {
        require(same_tensor(reloaded->at(name), tensor), "a tensor changed on the way round");
    }
    return 0;
}
