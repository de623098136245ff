// Anonymous shared memory (memfd) mapped into this process: what an isolated plugin's weights and
// tensors travel in, so that only small headers go through the plugin host's socket. The file
// descriptor is passed to the other process (SCM_RIGHTS), which maps the same pages.
#pragma once

#include <cstddef>
#include <string>

namespace mosaic {

class SharedMemory {
public:
    SharedMemory() = default;
    // A new region of `size` bytes (at least one page is mapped even for 0). Throws
    // std::runtime_error naming `purpose` when the kernel refuses.
    static SharedMemory create(size_t size, const std::string& purpose);
    // Maps a region received from the other process; takes ownership of `fd`.
    static SharedMemory adopt(int fd, size_t size, const std::string& purpose);

    SharedMemory(SharedMemory&& other) noexcept { *this = std::move(other); }
    SharedMemory& operator=(SharedMemory&& other) noexcept;
    SharedMemory(const SharedMemory&) = delete;
    SharedMemory& operator=(const SharedMemory&) = delete;
    ~SharedMemory();

    unsigned char* data() const { return data_; }
    size_t size() const { return size_; }
    int fd() const { return fd_; }

private:
    int fd_ = -1;
    unsigned char* data_ = nullptr;
    size_t mapped_ = 0;  // what munmap releases (size_, but at least one byte)
    size_t size_ = 0;
};

}  // namespace mosaic
