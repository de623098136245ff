#include "readers/ir/weights_file.hpp"

#include <mosaic/model.hpp>

#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mosaic::ir {

namespace bip = boost::interprocess;

struct WeightsFile::Mapping {
    bip::file_mapping file;
    bip::mapped_region region;
};

WeightsFile::~WeightsFile() {
    if (fd_ >= 0) ::close(fd_);
}

void WeightsFile::read(uint64_t offset, uint64_t size, void* out) const {
    auto* dst = static_cast<uint8_t*>(out);
    while (size > 0) {
        const ssize_t got = ::pread(fd_, dst, size, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0)
            throw ModelError(path_ + ": cannot read the weights file at byte " + std::to_string(offset) + " (" +
                             (got < 0 ? std::strerror(errno) : "it ended early") + "); check that it is readable and not being truncated");
        dst += got;
        offset += static_cast<uint64_t>(got);
        size -= static_cast<uint64_t>(got);
    }
}

std::shared_ptr<const WeightsFile> WeightsFile::open(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw ModelError(path + ": cannot open the weights file (" + std::strerror(errno) +
                         "); the model has Constants, so its .bin must be next to the .xml or passed as bin_path");
    if (!S_ISREG(st.st_mode))
        throw ModelError(path + ": the weights file is not a regular file; pass the model's .bin as bin_path");

    std::shared_ptr<WeightsFile> w(new WeightsFile());
    w->path_ = path;
    w->size_ = static_cast<uint64_t>(st.st_size);
    if (w->size_ == 0) return w;  // every Constant that needs bytes will be reported as out of range
    w->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (w->fd_ < 0)
        throw ModelError(path + ": cannot open the weights file (" + std::strerror(errno) +
                         "); check that it is readable");
    try {
        auto m = std::make_unique<Mapping>();
        m->file = bip::file_mapping(path.c_str(), bip::read_only);
        m->region = bip::mapped_region(m->file, bip::read_only);
        w->data_ = static_cast<const uint8_t*>(m->region.get_address());
        w->size_ = m->region.get_size();
        w->mapping_ = std::move(m);
    } catch (const bip::interprocess_exception& e) {
        throw ModelError(path + ": cannot memory-map the weights file (" + e.what() +
                         "); check that it is readable and not being truncated");
    }
    return w;
}

std::shared_ptr<void> weights_memory(size_t size) {
    constexpr size_t kHugePage = size_t{2} << 20;
    if (size < kHugePage) return std::shared_ptr<uint8_t[]>(new uint8_t[size]);  // new[] aligns for every type
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        throw ModelError("cannot allocate " + std::to_string(size) + " bytes for a copy of weights (" +
                         std::strerror(errno) + ")");
    ::madvise(p, size, MADV_HUGEPAGE);  // a hint: refused where huge pages are off, which only costs speed
    return std::shared_ptr<void>(p, [size](void* q) { ::munmap(q, size); });
}

}  // namespace mosaic::ir
