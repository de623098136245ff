// An inference's outputs, indexable like OpenVINO's OVDict: by output index, name or port.
#pragma once

#include <mosaic/compiled_model.hpp>

#include <nanobind/nanobind.h>

#include <vector>

namespace mosaic::python {

namespace nb = nanobind;

struct Results {
    std::vector<PortDesc> ports;
    std::vector<nb::object> arrays;  // numpy arrays, one per port
};

}  // namespace mosaic::python
