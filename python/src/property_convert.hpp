// Property values between Python and Mosaic's JSON values: bool, int, float, str, None, lists,
// dicts and mosaic.Type (written as its name, "f32"), as the C++ properties expect them.
#pragma once

#include <mosaic/element_type.hpp>
#include <mosaic/properties.hpp>

#include <nanobind/nanobind.h>

namespace mosaic::python {

namespace nb = nanobind;

// A dict of property key -> value (None: empty). Keys are strings (mosaic.properties objects are).
// Values pass as they are: the devices read OpenVINO's spellings ("YES" for a switch) themselves.
// Throws TypeError for a value with no JSON form, naming the key.
AnyMap to_any_map(nb::handle config);

PropertyValue to_property_value(nb::handle value, const std::string& key);
nb::object from_property_value(const PropertyValue& value);

}  // namespace mosaic::python
