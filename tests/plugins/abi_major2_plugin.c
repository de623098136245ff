/* A plugin from a future, incompatible ABI: its table says abi_major 2. The host must refuse it
 * after reading only struct_size and the version, so every function member is left NULL. */
#include <mosaic/plugin_abi.h>

static mosaic_plugin_api table;

MOSAIC_PLUGIN_EXPORT mosaic_status* mosaic_plugin_entry(const mosaic_host_api* host, const mosaic_plugin_api** api) {
    (void)host;
    table.struct_size = sizeof(table);
    table.abi_major = 2;
    table.abi_minor = 0;
    table.plugin_name = "mosaic_test_abi_major2";
    table.plugin_version = "2.0.0";
    *api = &table;
    return NULL;
}
