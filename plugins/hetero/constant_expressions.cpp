#include "constant_expressions.hpp"

#include "owned_graph.hpp"

#include <mosaic/reference/constant_folding.hpp>

#include <set>

namespace mosaic::hetero {

void settle_constant_expressions(const sdk::GraphView& g, Placement& p) {
    const size_t count = g.node_count();
    const std::vector<bool> known = reference::compile_time_nodes(g);
    std::vector<std::vector<size_t>> readers(count);
    for (size_t m = 0; m < count; ++m)
        for (size_t i = 0; i < g.input_count(m); ++i) readers[g.input(m, i).node].push_back(m);
    std::vector<bool>& folded = p.folded;
    folded.assign(count, false);
    for (size_t n = count; n-- > 0;) {
        if (!known[n] || g.is_constant(n)) continue;
        std::set<std::string> devices;
        bool read_by_folded = false, read_by_result = false;
        for (size_t m : readers[n]) {
            if (folded[m]) read_by_folded = true;
            else if (g.is_result(m)) read_by_result = true;
            else if (!p.device[m].empty()) devices.insert(p.device[m]);
        }
        // A model output keeps the op where it is: its value goes out through a device's request.
        if (read_by_result && !read_by_folded && !p.device[n].empty()) continue;
        const bool keep_manual = p.manual[n] && !p.device[n].empty() && !read_by_folded;
        if (keep_manual) continue;
        if (!read_by_folded && devices.size() == 1 && p.supports(*devices.begin(), n)) {
            const std::string& reader_device = *devices.begin();
            if (p.device[n] != reader_device)
                p.why[n] = "chosen: " + reader_device + ", with the ops that read it (its inputs are all constants)";
            p.device[n] = reader_device;
            continue;
        }
        folded[n] = true;
        p.device[n].clear();
        p.unsupported[n].clear();
        p.why[n] = "computed once by HETERO when compiling (its inputs are all constants) and given as a constant to " +
                   (devices.empty() ? std::string("its readers") : "the ops on " + *devices.begin() +
                                                                        (devices.size() > 1 ? " and other devices" : ""));
    }
}

FoldedValues fold_constant_expressions(const sdk::GraphView& g, const std::vector<bool>& folded) {
    FoldedValues out;
    out.folded = folded;
    for (size_t n = 0; n < g.node_count(); ++n) {
        if (!folded[n]) continue;
        std::vector<ConstTensorView> inputs;
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef src = g.input(n, i);
            // A ShapeOf is known from its input's static shape alone: that input may be computed when
            // the model runs, and the kernel reads no data (reference::compile_time_nodes).
            const void* data = nullptr;
            if (g.is_constant(src.node)) {
                size_t bytes = 0;
                data = g.constant_data(src.node, &bytes);
            } else if (auto it = out.ports.find({src.node, src.port}); it != out.ports.end()) {
                data = it->second->data();
            } else if (g.type(n) != "ShapeOf") {
                throw sdk::Error(MOSAIC_ERROR_GENERAL, "computing the constant expression '" + g.node_name(n) + "' (" +
                                                           g.type(n) + "): its input " + std::to_string(i) + " ('" +
                                                           g.node_name(src.node) + "') is not known when compiling");
            }
            inputs.push_back({g.output_type(src.node, src.port), g.output_shape(src.node, src.port), data});
        }
        std::vector<std::unique_ptr<uint8_t[]>> values;
        try {
            values = reference::fold_node(g, n, inputs);
        } catch (const std::exception& e) {
            throw sdk::Error(MOSAIC_ERROR_GENERAL, "computing the constant expression '" + g.node_name(n) + "' (" +
                                                       g.type(n) + ") failed: " + e.what());
        }
        for (size_t o = 0; o < values.size(); ++o) {
            const size_t bytes = static_cast<size_t>(shape_size(g.output_shape(n, o))) * element_size(g.output_type(n, o));
            out.ports[{n, o}] = aligned_copy(values[o].get(), bytes);
        }
    }
    return out;
}

}  // namespace mosaic::hetero
