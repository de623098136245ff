// MOSAIC_API marks what libmosaic exports: the public API's classes and functions. libmosaic is
// built with hidden visibility, so everything else (its internals, the libraries it links
// statically) stays inside it; tests/install checks the exported symbols.
#pragma once

#define MOSAIC_API __attribute__((visibility("default")))
// A class nested in an exported one inherits its visibility: the pimpl classes say they stay inside.
#define MOSAIC_INTERNAL __attribute__((visibility("hidden")))
