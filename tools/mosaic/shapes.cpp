#include "shapes.hpp"

#include "common.hpp"

#include <algorithm>

namespace mosaic::cli {

namespace {

Shape parse_dims(const std::string& text, const std::string& arg, const std::string& flag) {
    Shape shape;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t comma = text.find(',', pos);
        const std::string dim = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        size_t used = 0;
        long long v = -2;
        try {
            v = dim == "?" ? -1 : std::stoll(dim, &used);
            if (dim == "?") used = 1;
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != dim.size() || v < -1)
            throw UsageError(flag + " '" + arg + "': '" + dim +
                             "' is not a dimension (a whole number >= 0, or ? or -1 for dynamic)");
        shape.push_back(v < 0 ? kDynamicDim : v);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return shape;
}

std::string input_list(const std::vector<std::pair<std::string, Shape>>& declared) {
    std::string names;
    for (const auto& [name, shape] : declared) names += (names.empty() ? "" : ", ") + name;
    return names;
}

// The shape `given` holds for input `name`: its own entry, else the one for every input ("").
const Shape* given_for(const std::map<std::string, Shape>& given, const std::string& name) {
    auto it = given.find(name);
    if (it == given.end()) it = given.find("");
    return it == given.end() ? nullptr : &it->second;
}

void check_names(const std::map<std::string, Shape>& given, const std::vector<std::pair<std::string, Shape>>& declared,
                 const std::string& flag) {
    for (const auto& entry : given) {
        const std::string& name = entry.first;  // a lambda cannot capture a structured binding before C++20 (clang)
        const bool known = name.empty() || std::any_of(declared.begin(), declared.end(),
                                                        [&](const auto& d) { return d.first == name; });
        if (!known)
            throw UsageError(flag + " names input '" + name + "', which the model does not have; its inputs are: " +
                             input_list(declared));
    }
}

void check_rank(const std::string& flag, const std::string& name, const Shape& model, const Shape& given) {
    if (model.size() != given.size())
        throw UsageError(flag + " gives input '" + name + "' the shape " + to_string(given) + " of rank " +
                         std::to_string(given.size()) + ", but the input has rank " + std::to_string(model.size()) +
                         " (" + to_string(model) + ")");
}

}  // namespace

std::map<std::string, Shape> parse_shape_args(const std::vector<std::string>& args, const std::string& flag) {
    std::map<std::string, Shape> shapes;
    for (const auto& arg : args) {
        size_t pos = 0;
        while (pos < arg.size()) {
            const size_t open = arg.find('[', pos);
            const size_t close = open == std::string::npos ? std::string::npos : arg.find(']', open);
            if (close == std::string::npos)
                throw UsageError(flag + " '" + arg +
                                 "' is not NAME[d0,d1,...] or [d0,d1,...] (e.g. input[1,3,224,224])");
            const std::string name = arg.substr(pos, open - pos);
            if (shapes.count(name))
                throw UsageError(flag + " gives " + (name.empty() ? "the shape of every input" : "input '" + name + "'") +
                                 " twice");
            shapes[name] = parse_dims(arg.substr(open + 1, close - open - 1), arg, flag);
            pos = close + 1;
            if (pos < arg.size() && arg[pos] == ',') ++pos;
        }
    }
    return shapes;
}

std::vector<ResolvedShape> resolve_shapes(const std::vector<std::pair<std::string, Shape>>& declared,
                                          const ShapeArgs& args) {
    const std::map<std::string, Shape> shapes = parse_shape_args(args.shape, "-shape");
    const std::map<std::string, Shape> data = parse_shape_args(args.data_shape, args.data_flag);
    check_names(shapes, declared, "-shape");
    check_names(data, declared, args.data_flag);
    if (args.batch < 0) throw UsageError("-b must be a positive batch size, got " + std::to_string(args.batch));
    const bool batched = std::any_of(declared.begin(), declared.end(), [](const auto& d) { return has_batch_dim(d.second); });
    if (args.batch > 0 && !batched)
        throw UsageError("-b " + std::to_string(args.batch) + ": no input has a batch dimension (rank 2 or more); "
                         "its inputs are: " + input_list(declared));

    std::vector<ResolvedShape> out;
    for (const auto& [name, model_shape] : declared) {
        ResolvedShape r{name, model_shape, model_shape, false};
        if (const Shape* s = given_for(shapes, name)) {
            check_rank("-shape", name, model_shape, *s);
            r.resolved = *s;
        }
        if (args.batch > 0 && has_batch_dim(r.resolved)) r.resolved[0] = args.batch;
        if (const Shape* d = given_for(data, name)) {
            check_rank(args.data_flag, name, r.resolved, *d);
            for (size_t i = 0; i < d->size(); ++i) {
                if ((*d)[i] == kDynamicDim)
                    throw UsageError(args.data_flag + " gives input '" + name + "' the shape " + to_string(*d) +
                                     ": the shape of data has no dynamic dimensions");
                if (r.resolved[i] != kDynamicDim && r.resolved[i] != (*d)[i])
                    throw UsageError(args.data_flag + " gives input '" + name + "' the shape " + to_string(*d) +
                                     ", which does not fit its shape " + to_string(r.resolved) + " (dimension " +
                                     std::to_string(i) + ")");
            }
            r.resolved = *d;
        }
        for (int64_t& dim : r.resolved)
            if (dim == kDynamicDim && !args.keep_dynamic) {
                dim = 1;
                r.defaulted = true;
            }
        out.push_back(std::move(r));
    }
    return out;
}

void add_shape_options(CLI::App* cmd, ShapeArgs& target, bool benchmark_flags) {
    // One value per use: CLI11 would otherwise split "[1,3,224,224]" into four values.
    const std::string left = target.keep_dynamic ? "Dynamic dimensions left unset stay dynamic"
                                                  : "Dynamic dimensions left unset become 1";
    cmd->add_option("--shape", target.shape,
                    "Input shapes: NAME[1,3,224,224], or [1,3,224,224] for every input; ? or -1 for a dynamic "
                    "dimension (repeatable; also -shape). " + left)
        ->allow_extra_args(false);
    if (!benchmark_flags) return;
    cmd->add_option("--data_shape", target.data_shape,
                    "Shape of the data for dynamic inputs, spelled as -shape (also -data_shape)")
        ->allow_extra_args(false);
    cmd->add_option("-b,--batch", target.batch, "Batch size: the first dimension of every input of rank 2 or more");
}

}  // namespace mosaic::cli
