// start_async for a plugin request whose plugin has only infer(): the ABI promises asynchronous
// inference on every device, so the host runs infer() on a worker thread of its own (the SDK's
// Worker, which SDK plugins use for the same purpose) and calls the completion as a plugin would.
// Used by the device runner and by the host services that run requests for orchestrators.
#pragma once

#include <mosaic/plugin_abi.h>
#include <mosaic/sdk/worker.hpp>

#include <atomic>
#include <cstdint>
#include <vector>

namespace mosaic {

class SyncOnlyRequest {
public:
    SyncOnlyRequest(const mosaic_plugin_api& api, mosaic_infer_request* request) : api_(api), request_(request) {}

    // start_async's contract: an error status when the inference cannot start, else `done` runs
    // exactly once on the worker. The descriptors are copied; the caller keeps the data alive.
    mosaic_status* start(const mosaic_tensor* inputs, size_t n_in, const mosaic_tensor* outputs, size_t n_out,
                         mosaic_completion_fn done, void* user_data) noexcept;

private:
    const mosaic_plugin_api& api_;
    mosaic_infer_request* request_;
    std::atomic<bool> running_{false};
    std::vector<mosaic_tensor> inputs_, outputs_;
    std::vector<std::vector<int64_t>> dims_;
    sdk::Worker worker_;  // last: it joins before the rest goes
};

}  // namespace mosaic
