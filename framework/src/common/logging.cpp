#include "common/logging.hpp"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>

namespace mosaic {

namespace {

mosaic_log_level threshold() {
    static const mosaic_log_level level = [] {
        const char* env = std::getenv("MOSAIC_LOG_LEVEL");
        if (!env) return MOSAIC_LOG_WARNING;
        if (!std::strcmp(env, "ERROR")) return MOSAIC_LOG_ERROR;
        if (!std::strcmp(env, "INFO")) return MOSAIC_LOG_INFO;
        if (!std::strcmp(env, "DEBUG")) return MOSAIC_LOG_DEBUG;
        return MOSAIC_LOG_WARNING;
    }();
    return level;
}

const char* level_name(mosaic_log_level level) {
    switch (level) {
        case MOSAIC_LOG_ERROR: return "error";
        case MOSAIC_LOG_WARNING: return "warning";
        case MOSAIC_LOG_INFO: return "info";
        case MOSAIC_LOG_DEBUG: return "debug";
    }
    return "log";
}

}  // namespace

void log_message(mosaic_log_level level, const std::string& source, const std::string& message) {
    if (level > threshold()) return;
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    std::cerr << "[mosaic " << level_name(level) << (source.empty() ? "" : " " + source) << "] " << message << "\n";
}

void log_from_plugin(void*, mosaic_log_level level, const char* device, const char* message) {
    log_message(level, device ? device : "", message ? message : "");
}

}  // namespace mosaic
