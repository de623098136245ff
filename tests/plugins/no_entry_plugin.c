/* A shared library that is not a Mosaic plugin: it exports a function, but under a name other than
 * mosaic_plugin_entry (a plausible mistake), so the host must report the missing entry symbol. */
#include <mosaic/plugin_abi.h>

MOSAIC_PLUGIN_EXPORT int mosaic_plugin_init(void) { return 0; }
