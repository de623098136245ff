/* A plugin whose entry point refuses to load, as a plugin does when its device or driver is
 * missing. The host must report the plugin's own message and keep the other devices working. */
#include <mosaic/plugin_abi.h>

#include <stdlib.h>
#include <string.h>

#define REFUSAL "no ACME accelerator found: install the ACME driver (simulated refusal by mosaic_test_refusing_plugin)"

/* Used only if the host offers no make_status; the host releases it through `release`. */
static void release_own(mosaic_status* status) { free(status); }

static mosaic_status* own_status(void) {
    mosaic_status* status = (mosaic_status*)calloc(1, sizeof(mosaic_status));
    if (!status) return NULL;
    status->struct_size = sizeof(mosaic_status);
    status->code = MOSAIC_ERROR_DEVICE;
    status->message = REFUSAL; /* static: lives as long as the library */
    status->release = release_own;
    return status;
}

MOSAIC_PLUGIN_EXPORT mosaic_status* mosaic_plugin_entry(const mosaic_host_api* host, const mosaic_plugin_api** api) {
    *api = NULL;
    if (host && host->make_status) return host->make_status(host->host_context, MOSAIC_ERROR_DEVICE, REFUSAL);
    return own_status();
}
