#include "shapes.hpp"

#include "common.hpp"

namespace mosaic::cli {

namespace {

Shape parse_dims(const std::string& text, const std::string& arg) {
    Shape shape;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t comma = text.find(',', pos);
        const std::string dim = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        size_t used = 0;
        long long v = -1;
        try {
            v = std::stoll(dim, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != dim.size() || v < 0)
            throw UsageError("--shape '" + arg + "': '" + dim + "' is not a dimension (a whole number >= 0)");
        shape.push_back(v);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return shape;
}

}  // namespace

std::map<std::string, Shape> parse_shape_args(const std::vector<std::string>& args) {
    std::map<std::string, Shape> shapes;
    for (const auto& arg : args) {
        size_t pos = 0;
        while (pos < arg.size()) {
            const size_t open = arg.find('[', pos);
            const size_t close = open == std::string::npos ? std::string::npos : arg.find(']', open);
            if (close == std::string::npos)
                throw UsageError("--shape '" + arg + "' is not NAME[d0,d1,...] (e.g. input[1,3,224,224])");
            const std::string name = arg.substr(pos, open - pos);
            if (name.empty()) throw UsageError("--shape '" + arg + "': name the input: NAME[d0,d1,...]");
            if (shapes.count(name)) throw UsageError("--shape gives input '" + name + "' twice");
            shapes[name] = parse_dims(arg.substr(open + 1, close - open - 1), arg);
            pos = close + 1;
            if (pos < arg.size() && arg[pos] == ',') ++pos;
        }
    }
    return shapes;
}

void add_shape_option(CLI::App* cmd, std::vector<std::string>& target) {
    cmd->add_option("--shape", target,
                    "Input shapes for dynamic dimensions: NAME[1,3,224,224] (repeatable). "
                    "Dynamic dimensions left unset become 1");
}

}  // namespace mosaic::cli
