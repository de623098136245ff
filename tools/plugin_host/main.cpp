// mosaic-plugin-host --library PATH --device NAME
//
// Runs one plugin library for an isolated registry entry ("isolation": "process"), serving the
// application's proxy over the socket it finds on descriptor 3. Started and watched by libmosaic
// (framework/src/isolation/host_process.cpp), never by hand: if this process crashes, aborts, runs
// out of memory or hangs, the application gets an error naming the device and goes on.
#include "isolation/host_server.hpp"

#include <mosaic/sdk/status.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <new>

namespace {

// An allocation the address-space cap refused: leave with a status the application recognises,
// so it can say "ran out of memory" rather than report an abort or a crash the plugin did not cause.
void out_of_memory() {
    static const char text[] = "mosaic-plugin-host: out of memory\n";
    [[maybe_unused]] ssize_t ignored = write(STDERR_FILENO, text, sizeof(text) - 1);
    _exit(mosaic::host_protocol::kOutOfMemoryExit);
}

}  // namespace

int main(int argc, char** argv) {
    std::string library, device;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--library")) library = argv[i + 1];
        else if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
    }
    const int socket = mosaic::host_protocol::kHostSocketFd;
    if (library.empty() || device.empty() || fcntl(socket, F_GETFD) < 0) {
        std::cerr << "mosaic-plugin-host runs an isolated plugin for libmosaic, which starts it with "
                     "--library PATH --device NAME and a socket on descriptor 3; it is not meant to be run by hand\n";
        return mosaic::host_protocol::kUsageExit;
    }
    std::set_new_handler(out_of_memory);
    std::shared_ptr<mosaic::PluginLibrary> loaded;
    try {
        loaded = mosaic::PluginLibrary::load(library);
    } catch (const std::exception& e) {
        mosaic::host_protocol::send_message(socket, {{"error", e.what()}});
        return 1;
    }
    const mosaic_plugin_api& api = loaded->api();
    mosaic::host_protocol::send_message(socket, {{"hello",
                                                  {{"plugin_name", api.plugin_name ? api.plugin_name : ""},
                                                   {"plugin_version", api.plugin_version ? api.plugin_version : ""},
                                                   {"abi_major", api.abi_major},
                                                   {"abi_minor", api.abi_minor},
                                                   {"export_model", api.export_model != nullptr},
                                                   {"import_model", api.import_model != nullptr}}}});
    mosaic::HostServer server(std::move(loaded), device);
    server.serve(socket);
    // The application closed the connection: leave without running the plugin's teardown, which a
    // broken plugin could hang in, and which the kernel makes unnecessary for a process that ends.
    std::cout.flush();
    _exit(0);
}
