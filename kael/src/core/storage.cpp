#include "kael/storage.h"

#include <new>
#include <utility>

#include "core/device_backend.h"
//> stage 9
#include "kael/allocator.h"
//> stage 14
#include "kael/profiler.h"
//< stage 14
//< stage 9

namespace kael {
//> until 9
//| namespace {
//|
//| // The aligned forms of operator new and operator delete must always be used as a pair;
//| // freeing aligned memory with the plain operator delete is undefined behavior.
//| std::byte* allocate_block(std::int64_t nbytes, Device device) {
//|     switch (device) {
//|     case Device::CPU:
//|         return static_cast<std::byte*>(::operator new(
//|             static_cast<std::size_t>(nbytes), std::align_val_t{Storage::kAlignment}));
//|     case Device::CUDA:
//|         return device::allocate(nbytes);
//|     }
//|     detail::unreachable();
//| }
//|
//| void free_block(std::byte* block, Device device) noexcept {
//|     switch (device) {
//|     case Device::CPU:
//|         ::operator delete(block, std::align_val_t{Storage::kAlignment});
//|         return;
//|     case Device::CUDA:
//|         device::free(block);
//|         return;
//|     }
//| }
//|
//| }  // namespace
//< until 9

Storage::Storage(std::int64_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
    KAEL_CHECK_VALUE(nbytes >= 0, "storage size must be non-negative, got " << nbytes << " bytes");
    // Zero bytes stay a null pointer: allocating zero bytes has implementation-defined
    // results, and an empty tensor never reads its storage.
    if (nbytes > 0) {
//> until 9
//|         data_ = {allocate_block(nbytes, device), BlockDeleter{nbytes, device}};
//< until 9
//> stage 9
        // The block is the request rounded up to its bucket (chapter 08); nbytes_ stays the
        // request, so validate() keeps every view inside the bytes that were asked for.
        const std::int64_t capacity = detail::block_capacity(nbytes);
        data_ = {detail::allocate_block(capacity, device), BlockDeleter{capacity, device}};
//< stage 9
//> stage 14
        profiler::count_allocation(nbytes);  // against the operation that asked (chapter 13)
//< stage 14
    }
}

//> stage 11
Storage Storage::external(std::byte* data, std::int64_t nbytes, std::shared_ptr<void> owner) {
    KAEL_CHECK_VALUE(nbytes >= 0, "storage size must be non-negative, got " << nbytes << " bytes");
    KAEL_CHECK_VALUE(data != nullptr || nbytes == 0,
                     "external storage of " << nbytes << " bytes needs a non-null pointer");
    Storage storage(0);
    storage.data_ = {data, BlockDeleter{0, Device::CPU}};  // capacity 0: never freed here
    storage.nbytes_ = nbytes;
    storage.owner_ = std::move(owner);
    return storage;
}

//< stage 11
void Storage::BlockDeleter::operator()(std::byte* block) const noexcept {
    if (capacity > 0) {
//> until 9
//|         free_block(block, device);
//< until 9
//> stage 9
        detail::release_block(block, capacity, device);
//< stage 9
    }
}

}  // namespace kael
