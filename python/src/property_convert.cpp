#include "property_convert.hpp"
#include "py_text.hpp"

#include <nanobind/stl/string.h>

namespace mosaic::python {

PropertyValue to_property_value(nb::handle value, const std::string& key) {
    if (value.is_none()) return nullptr;
    if (nb::isinstance<nb::bool_>(value)) return nb::cast<bool>(value);
    if (nb::isinstance<nb::int_>(value)) return nb::cast<int64_t>(value);
    if (nb::isinstance<nb::float_>(value)) return nb::cast<double>(value);
    if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
    if (nb::isinstance<ElementType>(value)) return to_string(nb::cast<ElementType>(value));
    if (nb::isinstance<nb::list>(value) || nb::isinstance<nb::tuple>(value)) {
        PropertyValue out = PropertyValue::array();
        for (nb::handle item : value) out.push_back(to_property_value(item, key));
        return out;
    }
    if (nb::isinstance<nb::dict>(value)) {
        PropertyValue out = PropertyValue::object();
        for (auto [k, v] : nb::cast<nb::dict>(value)) {
            const std::string name = text_of(k);
            out[name] = to_property_value(v, name);
        }
        return out;
    }
    throw nb::type_error(("property '" + key + "': a value of type " +
                          type_name_of(value) +
                          " cannot be passed to Mosaic (use bool, int, float, str, mosaic.Type, list or dict)")
                             .c_str());
}

AnyMap to_any_map(nb::handle config) {
    AnyMap out;
    if (config.is_none()) return out;
    if (!nb::isinstance<nb::dict>(config))
        throw nb::type_error("config must be a dict of property name -> value");
    for (auto [k, v] : nb::cast<nb::dict>(config)) {
        if (!nb::isinstance<nb::str>(k))
            throw nb::type_error(("property names are strings, not " +
                                  type_name_of(k))
                                     .c_str());
        const std::string key = nb::cast<std::string>(k);
        out[key] = to_property_value(v, key);
    }
    return out;
}

nb::object from_property_value(const PropertyValue& value) {
    switch (value.type()) {
        case PropertyValue::value_t::null: return nb::none();
        case PropertyValue::value_t::boolean: return nb::bool_(value.get<bool>());
        case PropertyValue::value_t::number_integer: return nb::int_(value.get<int64_t>());
        case PropertyValue::value_t::number_unsigned: return nb::int_(value.get<uint64_t>());
        case PropertyValue::value_t::number_float: return nb::float_(value.get<double>());
        case PropertyValue::value_t::string: return nb::str(value.get<std::string>().c_str());
        case PropertyValue::value_t::array: {
            nb::list out;
            for (const auto& item : value) out.append(from_property_value(item));
            return std::move(out);
        }
        case PropertyValue::value_t::object: {
            nb::dict out;
            for (const auto& [k, v] : value.items()) out[k.c_str()] = from_property_value(v);
            return std::move(out);
        }
        default: return nb::str(value.dump().c_str());
    }
}

}  // namespace mosaic::python
