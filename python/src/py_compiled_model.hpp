// mosaic.CompiledModel's state: the compiled model and the request that calling it uses.
#pragma once

#include "py_infer_request.hpp"

#include <mosaic/compiled_model.hpp>

#include <memory>

namespace mosaic::python {

struct PyCompiledModel {
    CompiledModel compiled;
    std::shared_ptr<PyInferRequest> request;  // made on the first call
};

}  // namespace mosaic::python
