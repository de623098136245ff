// The extension module mosaic._mosaic; the package mosaic (python/mosaic) re-exports it.
#include "bindings.hpp"

NB_MODULE(_mosaic, m) {
    using namespace mosaic::python;
    m.doc() = "Mosaic's C++ runtime, bound with nanobind. Import the package `mosaic`, not this module.";
    bind_tensor(m);
    bind_remote_context(m);
    bind_ports(m);
    bind_model(m);
    bind_results(m);
    bind_infer_request(m);
    bind_compiled_model(m);
    bind_core(m);
    bind_genai(m);
}
