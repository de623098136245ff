// hello_query_device, as OpenVINO's sample: lists the available devices and every property each
// declares, mutable or not, with its value.
//
//   hello_query_device
#include <mosaic/mosaic.hpp>

#include <iostream>
#include <string>

namespace {

std::string value_text(const mosaic::PropertyValue& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "YES" : "NO";
    if (v.is_array()) {
        std::string s;
        for (const auto& item : v) s += (s.empty() ? "" : " ") + value_text(item);
        return s;
    }
    return v.dump();
}

}  // namespace

int main(int argc, char* argv[]) {
    try {
        if (argc != 1) {
            std::cout << "Usage : " << argv[0] << std::endl;
            return EXIT_FAILURE;
        }
        mosaic::Core core;
        std::cout << "[ INFO ] Available devices: " << std::endl;
        for (const std::string& device : core.get_available_devices()) {
            std::cout << "[ INFO ] " << device << std::endl;
            std::cout << "[ INFO ] \tSUPPORTED_PROPERTIES: " << std::endl;
            for (const auto& property : core.get_property(device, mosaic::supported_properties)) {
                const std::string name = property.is_object() ? property.value("name", "") : value_text(property);
                const bool is_mutable = property.is_object() && property.value("mutable", false);
                if (name == "SUPPORTED_PROPERTIES") continue;
                std::string value;
                try {
                    value = value_text(core.get_property(device, name));
                } catch (const std::exception& e) {
                    value = std::string("UNSUPPORTED TYPE (") + e.what() + ")";
                }
                std::cout << "[ INFO ] \t\t" << (is_mutable ? "Mutable: " : "Immutable: ") << name << " : " << value
                          << std::endl;
            }
            std::cout << std::endl;
        }
        for (const auto& problem : core.problems())
            std::cout << "[ WARNING ] " << (problem.device.empty() ? problem.source : problem.device) << ": "
                      << problem.message << std::endl;
    } catch (const std::exception& ex) {
        std::cerr << ex.what() << std::endl;
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}
