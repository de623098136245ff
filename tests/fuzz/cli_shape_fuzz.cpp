// The -shape / -data_shape parser and the shape resolution behind mosaic run and benchmark: the
// input's lines up to a line "--" are -shape arguments, the lines after it -data_shape arguments,
// resolved against a model with one dynamic NCHW input and one [1,?] input.
#include "fuzz_targets.hpp"

#include "tools/mosaic/shapes.hpp"

#include <stdexcept>
#include <string_view>

namespace mosaic::fuzz {

void cli_shape(const uint8_t* data, size_t size) {
    cli::ShapeArgs args;
    std::vector<std::string>* into = &args.shape;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    while (!text.empty()) {
        const size_t end = std::min(text.find('\n'), text.size());
        const std::string line(text.substr(0, end));
        if (line == "--") into = &args.data_shape;
        else into->push_back(line);
        text.remove_prefix(std::min(end + 1, text.size()));
    }
    const std::vector<std::pair<std::string, Shape>> declared = {{"data", {-1, 3, -1, -1}}, {"mask", {1, -1}}};
    try {
        for (const auto& r : cli::resolve_shapes(declared, args))
            for (int64_t d : r.resolved)
                if (d < 0)  // dimensions nothing decides become 1: a compiled model has static shapes
                    report_finding("cli_shape", "input '" + r.name + "' resolved to the dynamic shape " + to_string(r.resolved));
    } catch (const std::runtime_error&) {
        // a usage error naming the flag and the input
    }
}

}  // namespace mosaic::fuzz
