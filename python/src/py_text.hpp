// Python objects as text for error messages.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

namespace mosaic::python {

// str(value)
inline std::string text_of(nanobind::handle value) { return nanobind::str(value).c_str(); }

// type(value).__name__
inline std::string type_name_of(nanobind::handle value) { return nanobind::type_name(value.type()).c_str(); }

}  // namespace mosaic::python
