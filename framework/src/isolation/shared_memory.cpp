#include "isolation/shared_memory.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace mosaic {

namespace {

[[noreturn]] void fail(const std::string& purpose, const std::string& what) {
    throw std::runtime_error("shared memory for " + purpose + ": " + what + ": " + std::strerror(errno));
}

unsigned char* map(int fd, size_t bytes, const std::string& purpose) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) fail(purpose, "mmap of " + std::to_string(bytes) + " bytes failed");
    return static_cast<unsigned char*>(p);
}

}  // namespace

SharedMemory SharedMemory::create(size_t size, const std::string& purpose) {
    SharedMemory m;
    m.fd_ = memfd_create("mosaic", MFD_CLOEXEC);
    if (m.fd_ < 0) fail(purpose, "memfd_create failed");
    m.size_ = size;
    m.mapped_ = size ? size : 1;
    if (ftruncate(m.fd_, static_cast<off_t>(m.mapped_)) != 0)
        fail(purpose, "growing it to " + std::to_string(m.mapped_) + " bytes failed");
    m.data_ = map(m.fd_, m.mapped_, purpose);
    return m;
}

SharedMemory SharedMemory::adopt(int fd, size_t size, const std::string& purpose) {
    SharedMemory m;
    m.fd_ = fd;
    m.size_ = size;
    m.mapped_ = size ? size : 1;
    // Pages past the end of the file would raise SIGBUS when touched: a peer that claims more bytes
    // than it sent is refused here, not crashed on later.
    struct stat st {};
    if (fstat(fd, &st) != 0) fail(purpose, "fstat failed");
    if (static_cast<uint64_t>(st.st_size) < m.mapped_) {
        errno = EINVAL;
        fail(purpose, "the region has " + std::to_string(st.st_size) + " bytes, not the " + std::to_string(m.mapped_) +
                          " announced");
    }
    m.data_ = map(fd, m.mapped_, purpose);
    return m;
}

SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept {
    if (this == &other) return *this;
    this->~SharedMemory();
    fd_ = other.fd_;
    data_ = other.data_;
    mapped_ = other.mapped_;
    size_ = other.size_;
    other.fd_ = -1;
    other.data_ = nullptr;
    other.mapped_ = other.size_ = 0;
    return *this;
}

SharedMemory::~SharedMemory() {
    if (data_) munmap(data_, mapped_);
    if (fd_ >= 0) close(fd_);
    data_ = nullptr;
    fd_ = -1;
}

}  // namespace mosaic
