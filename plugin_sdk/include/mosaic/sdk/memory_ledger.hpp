// The bytes a device holds for its compiled models and requests, counted against a budget (its
// DEVICE_MEMORY_LIMIT, or its memory): what the GPU and CPU devices refuse with OUT_OF_MEMORY past
// it, and what memory_info reports as used. Thread-safe: models and requests come and go on any thread.
#pragma once

#include <mosaic/sdk/status.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace mosaic::sdk {

class MemoryLedger {
public:
    // `memory` names what is counted in messages ("host memory", "'<device name>'").
    explicit MemoryLedger(std::string memory) : memory_(std::move(memory)) {}

    // Holds `bytes` more unless that would pass `budget` (0: no budget); then throws Error
    // OUT_OF_MEMORY saying that `what` needs them, how much is held and what to change.
    void reserve(uint64_t bytes, uint64_t budget, const std::string& what) {
        int64_t held = held_.load();
        for (;;) {
            const uint64_t now = static_cast<uint64_t>(std::max<int64_t>(held, 0));
            if (budget && (bytes > budget || now > budget - bytes))
                throw Error(MOSAIC_ERROR_OUT_OF_MEMORY,
                            what + " needs " + std::to_string(bytes) + " bytes of " + memory_ + ", but " +
                                std::to_string(now) + " of its " + std::to_string(budget) +
                                " bytes (DEVICE_MEMORY_LIMIT, or the device's memory) are held already; raise "
                                "DEVICE_MEMORY_LIMIT, release other models or requests, or split the model over more "
                                "devices (HETERO with MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL)");
            if (held_.compare_exchange_weak(held, held + static_cast<int64_t>(bytes))) return;
        }
    }
    void release(uint64_t bytes) { held_ -= static_cast<int64_t>(bytes); }
    uint64_t held() const { return static_cast<uint64_t>(std::max<int64_t>(held_.load(), 0)); }

private:
    std::string memory_;
    std::atomic<int64_t> held_{0};
};

// Bytes reserved on a ledger for an object's life.
class Reservation {
public:
    Reservation(std::shared_ptr<MemoryLedger> ledger, uint64_t bytes, uint64_t budget, const std::string& what)
        : ledger_(std::move(ledger)), bytes_(bytes) {
        ledger_->reserve(bytes_, budget, what);
    }
    ~Reservation() { ledger_->release(bytes_); }
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;

private:
    std::shared_ptr<MemoryLedger> ledger_;
    uint64_t bytes_;
};

}  // namespace mosaic::sdk
