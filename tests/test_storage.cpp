// Storage: allocation, alignment, ownership, and external memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "kael/device.h"
#include "kael/storage.h"

namespace {

using kael::Device;
using kael::Storage;

TEST(Storage, AllocatesTheRequestedBytes) {
    const Storage storage(24);
    EXPECT_EQ(storage.nbytes(), 24);
    EXPECT_EQ(storage.device(), Device::CPU);
    EXPECT_NE(storage.data(), nullptr);
}

TEST(Storage, AlignedTo64Bytes) {
    for (const std::int64_t nbytes : {1, 3, 64, 100, 4097}) {
        const Storage storage(nbytes);
        const auto address = reinterpret_cast<std::uintptr_t>(storage.data());
        EXPECT_EQ(address % Storage::kAlignment, 0u) << nbytes << " bytes";
    }
}

TEST(Storage, EveryByteIsWritable) {
    // Under AddressSanitizer a block shorter than requested fails here.
    Storage storage(4097);
    for (std::int64_t i = 0; i < storage.nbytes(); ++i) {
        storage.data()[i] = static_cast<std::byte>(i & 0xff);
    }
    EXPECT_EQ(storage.data()[4096], std::byte{0});
    EXPECT_EQ(storage.data()[255], std::byte{255});
}

TEST(Storage, ZeroBytesIsNull) {
    const Storage storage(0);
    EXPECT_EQ(storage.data(), nullptr);
    EXPECT_EQ(storage.nbytes(), 0);
}

TEST(Storage, NegativeBytesThrows) {
    EXPECT_THROW(Storage(-1), kael::ValueError);
    EXPECT_NO_THROW(Storage(0));
}

TEST(Storage, CudaThrows) {
    if (kael::cuda_is_available()) {
        GTEST_SKIP() << "a CUDA device is present";
    }
    try {
        Storage storage(16, Device::CUDA);
        FAIL() << "allocated CUDA memory without a backend";
    } catch (const kael::Error& error) {
//> until 10
//|         EXPECT_NE(std::string(error.what())
//|                       .find("kael was built without CUDA; configure with KAEL_ENABLE_CUDA=ON"),
//|                   std::string::npos)
//|             << error.what();
//< until 10
//> stage 10
        // A build without the backend says how to get one; a build with it, on a machine
        // without a GPU, says that the device is missing.
        const std::string expected = kael::cuda_is_built()
                                         ? "no CUDA device is available"
                                         : "kael was built without CUDA; configure with KAEL_ENABLE_CUDA=ON";
        EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
//< stage 10
    }
}

TEST(Storage, NotCopyable) {
    static_assert(!std::is_copy_constructible_v<Storage>);
    static_assert(!std::is_copy_assignable_v<Storage>);
    SUCCEED();
}

TEST(Storage, Movable) {
    static_assert(std::is_nothrow_move_constructible_v<Storage>);
    Storage source(32);
    std::byte* block = source.data();
    Storage target = std::move(source);
    EXPECT_EQ(target.data(), block);
    EXPECT_EQ(target.nbytes(), 32);
    // The moved-from storage owns nothing, so its destructor frees nothing; a double free
    // would be reported by AddressSanitizer.
    EXPECT_EQ(source.data(), nullptr);  // NOLINT(bugprone-use-after-move)
}

TEST(Storage, VersionCountsBumps) {
    Storage storage(8);
    EXPECT_EQ(storage.version(), 0);
    storage.bump_version();
    storage.bump_version();
    EXPECT_EQ(storage.version(), 2);
}

//> stage 11
// An owner whose destructor we can observe: it holds the memory and records its release.
struct ObservedBuffer {
    std::vector<std::byte> bytes;
    bool* released;
    ObservedBuffer(std::size_t n, bool* flag) : bytes(n, std::byte{7}), released(flag) {}
    ObservedBuffer(const ObservedBuffer&) = delete;
    ObservedBuffer& operator=(const ObservedBuffer&) = delete;
    ~ObservedBuffer() { *released = true; }
};

TEST(Storage, ExternalMemoryIsAdoptedAndReleasedWithItsOwner) {
    bool released = false;
    auto owner = std::make_shared<ObservedBuffer>(40, &released);
    std::byte* data = owner->bytes.data();
    {
        auto storage = std::make_shared<Storage>(Storage::external(data, 40, owner));
        owner.reset();  // the storage is now the only owner
        EXPECT_FALSE(released);
        EXPECT_EQ(storage->data(), data);
        EXPECT_EQ(storage->nbytes(), 40);
        EXPECT_EQ(storage->device(), Device::CPU);
        EXPECT_EQ(storage->data()[39], std::byte{7});  // adopted, not copied
    }
    EXPECT_TRUE(released);
}

TEST(Storage, ExternalMemoryDoesNotTouchTheAllocator) {
    // The storage must never free memory it did not allocate: the owner's vector frees it,
    // once. A stray free of `data` would be a double free under AddressSanitizer, and the
    // bytes must still be readable after the storage is gone.
    bool released = false;
    auto owner = std::make_shared<ObservedBuffer>(16, &released);
    std::byte* data = owner->bytes.data();
    { const Storage storage = Storage::external(data, 16, owner); }
    EXPECT_FALSE(released);
    EXPECT_EQ(owner->bytes[15], std::byte{7});
    owner.reset();
    EXPECT_TRUE(released);
}

TEST(Storage, ExternalRejectsNullDataAndNegativeSizes) {
    EXPECT_THROW((void)Storage::external(nullptr, 8, nullptr), kael::ValueError);
    std::byte byte{};
    EXPECT_THROW((void)Storage::external(&byte, -1, nullptr), kael::ValueError);
    EXPECT_NO_THROW((void)Storage::external(nullptr, 0, nullptr));
}
//< stage 11

}  // namespace
