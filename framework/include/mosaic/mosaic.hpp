// Mosaic's public C++ API in one include.
#pragma once

#include <mosaic/compiled_model.hpp>
#include <mosaic/core.hpp>
#include <mosaic/element_type.hpp>
#include <mosaic/infer_request.hpp>
#include <mosaic/model.hpp>
#include <mosaic/properties.hpp>
#include <mosaic/remote_context.hpp>
#include <mosaic/serialize.hpp>
#include <mosaic/tensor.hpp>
