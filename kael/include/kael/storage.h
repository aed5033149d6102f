#pragma once
/// \file
/// \brief Storage: a block of bytes on one device, owned or borrowed.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "kael/dtype.h"

namespace kael {

/// A block of `nbytes` bytes on one device. Storage knows nothing of shapes or dtypes.
///
/// It is not copyable, because two owners of one block would free it twice; tensors share
/// a Storage through std::shared_ptr instead. It is movable: the moved-from object owns
/// nothing. A zero-byte storage holds a null pointer. Fresh memory is uninitialized.
class Storage {
public:
    /// Alignment of every block kael allocates: a cache line, and a multiple of the SSE,
    /// AVX2 and AVX-512 vector widths.
    static constexpr std::size_t kAlignment = 64;

    /// Allocates `nbytes` uninitialized bytes on `device`. Throws ValueError for a negative
    /// size, and kael::Error for a device this build cannot reach.
    explicit Storage(std::int64_t nbytes, Device device = Device::CPU);

//> stage 11
    /// Wraps `nbytes` bytes of host memory that kael did not allocate. The storage never
    /// frees `data`; it keeps `owner` alive instead, and releasing the owner (when the last
    /// tensor over this storage dies) is what frees the memory.
    [[nodiscard]] static Storage external(std::byte* data, std::int64_t nbytes,
                                          std::shared_ptr<void> owner);

//< stage 11
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    /// Takes over the block; the moved-from storage owns nothing afterwards.
    Storage(Storage&&) noexcept = default;
    /// Frees this storage's block and takes over the other's.
    Storage& operator=(Storage&&) noexcept = default;
    ~Storage() = default;

    /// The first byte, or nullptr for a zero-byte storage.
    [[nodiscard]] std::byte* data() noexcept { return data_.get(); }
    /// The first byte, or nullptr for a zero-byte storage.
    [[nodiscard]] const std::byte* data() const noexcept { return data_.get(); }
    /// The size requested at construction.
    [[nodiscard]] std::int64_t nbytes() const noexcept { return nbytes_; }
    /// The device the bytes live on.
    [[nodiscard]] Device device() const noexcept { return device_; }

    /// How many in-place writes this storage has seen. It lives here, not on a tensor, so
    /// that every view of the same bytes sees the same count (autograd checks it).
    [[nodiscard]] std::int64_t version() const noexcept { return version_; }
    /// Records one in-place write.
    void bump_version() noexcept { ++version_; }

private:
    // Remembers how a block was obtained, so it goes back the same way. A capacity of 0
    // marks memory that kael does not own and must not free.
    struct BlockDeleter {
        std::int64_t capacity;
        Device device;
        void operator()(std::byte* block) const noexcept;
    };

    std::unique_ptr<std::byte[], BlockDeleter> data_;
//> stage 11
    std::shared_ptr<void> owner_;
//< stage 11
    std::int64_t nbytes_;
    Device device_;
    std::int64_t version_ = 0;
};

}  // namespace kael
