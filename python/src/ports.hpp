// Model and compiled-model inputs/outputs as Python sees them (ConstOutput, PartialShape), and how a
// Python key (an index, a name or a port) picks one.
#pragma once

#include <mosaic/compiled_model.hpp>

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <vector>

namespace mosaic::python {

namespace nb = nanobind;

// A shape whose dimensions may be dynamic (-1, printed "?").
struct PartialShape {
    Shape dims;
};

// The index of the port that `key` names: an int, one of a port's names, or a ConstOutput.
// `kind` ("input", "output") words the errors: IndexError for a bad index, KeyError for a name the
// ports do not have (listing those they have), TypeError for any other key.
size_t port_index(const std::vector<PortDesc>& ports, nb::handle key, const char* kind);

// The port with that name (its first name or any other), if any.
std::optional<size_t> find_port(const std::vector<PortDesc>& ports, const std::string& name);

// The name a str or ConstOutput key gives; nullopt for other keys.
std::optional<std::string> key_name(nb::handle key);

}  // namespace mosaic::python
