// Where an infer request's completion thread leaves its last reference to the request. A request
// whose callback dropped the application's last handle must not be destroyed on the thread that
// completed it: destruction joins that very thread (the host's fallback worker, or the plugin's own
// in release_request). The reaper is one process-wide thread that drops such references, so the
// destructor always runs on a thread that is neither the caller's nor a device's.
#pragma once

#include <memory>

namespace mosaic::detail {

// Hands `last` over; it is released on the reaper thread, in order, soon after. Never throws.
void reap(std::shared_ptr<void> last) noexcept;

}  // namespace mosaic::detail
