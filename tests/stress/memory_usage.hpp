// How much memory this process uses: the heap bytes the allocator has handed out and not had back
// (exact, so a few bytes leaked per inference add up visibly), and the resident set size (what the
// system sees, blurred by the allocator's caching).
#pragma once

#include "common/process_status.hpp"

#include <malloc.h>

#include <cstddef>
#include <cstdint>

namespace mosaic::test::stress {

// glibc's count (every arena, so the threads' allocations too; chunks from mmap included). A
// sanitizer's allocator replaces glibc's, which then counts nothing.
inline int64_t heap_bytes_in_use() {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<int64_t>(m.uordblks + m.hblkhd);
}

// VmRSS of /proc/self/status in KiB, -1 where there is none.
inline int64_t rss_kib() { return process_status_kib("VmRSS"); }

}  // namespace mosaic::test::stress
