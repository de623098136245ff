// One function per part of the API; module.cpp calls them in dependency order.
#pragma once

#include <nanobind/nanobind.h>

namespace mosaic {
class Core;
}

namespace mosaic::python {

namespace nb = nanobind;

void bind_tensor(nb::module_& m);
void bind_remote_context(nb::module_& m);  // after bind_tensor
void bind_ports(nb::module_& m);
void bind_model(nb::module_& m);
void bind_results(nb::module_& m);
void bind_infer_request(nb::module_& m);
void bind_compiled_model(nb::module_& m);
void bind_core(nb::module_& m);
void bind_genai(nb::module_& m);  // the submodule genai (libmosaic_genai)
// Core's members that read the model API (query_model); `core` is the bound Core class.
void bind_model_queries(nb::class_<Core>& core);

}  // namespace mosaic::python
