// Log messages from the host and from plugins (through the host services). Printed to stderr
// when their level is at or above MOSAIC_LOG_LEVEL (ERROR, WARNING (default), INFO, DEBUG).
#pragma once

#include <mosaic/plugin_abi.h>

#include <string>

namespace mosaic {

void log_message(mosaic_log_level level, const std::string& source, const std::string& message);

// The `log` member of every host table handed to plugins.
void log_from_plugin(void* host_context, mosaic_log_level level, const char* device, const char* message);

}  // namespace mosaic
