// MappedFile (mapped_file.h) over POSIX open, fstat and mmap.
#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <string>
#include <utility>

#include "kael/error.h"

namespace kael::io {
namespace {

// Closes the descriptor when open() returns or throws: the mapping keeps the file's pages
// reachable by itself, so the descriptor is needed only to create it.
class Descriptor {
public:
    explicit Descriptor(int fd) : fd_(fd) {}
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    ~Descriptor() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    [[nodiscard]] int get() const noexcept { return fd_; }

private:
    int fd_;
};

// The system's words for the errno of the call that just failed (std::strerror is not
// thread-safe; the error category is).
std::string last_os_error() { return std::error_code(errno, std::generic_category()).message(); }

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::filesystem::path& path) {
    const Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    KAEL_CHECK(file.get() >= 0, "cannot open '" << path.string() << "': " << last_os_error());
    struct stat status {};
    KAEL_CHECK(::fstat(file.get(), &status) == 0, "cannot stat '" << path.string() << "': " << last_os_error());
    // A directory or a device has no size to map; a FIFO would block.
    KAEL_CHECK(S_ISREG(status.st_mode), "'" << path.string() << "' is not a regular file");
    const auto size = static_cast<std::size_t>(status.st_size);
    std::uint8_t* address = nullptr;
    if (size > 0) {
        // MAP_PRIVATE with PROT_WRITE on a file opened read-only is allowed: writes go to
        // private copies of the pages, never to the file.
        void* mapped = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.get(), 0);
        KAEL_CHECK(mapped != MAP_FAILED, "cannot map '" << path.string() << "' (" << size
                                                        << " bytes): " << last_os_error());
        address = static_cast<std::uint8_t*>(mapped);
    }
    return std::shared_ptr<MappedFile>(new MappedFile(path, address, size));
}

MappedFile::~MappedFile() {
    if (address_ != nullptr) {
        ::munmap(address_, size_);
    }
}

}  // namespace kael::io
