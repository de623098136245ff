// Reads an ONNX ModelProto and translates its graph into a Mosaic Model: initializers and bound
// inputs become Constants, the other graph inputs Parameters, each node goes through its
// translator (onnx/translators/), and graph outputs become Results named by their tensor names.
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/onnx_subgraph.hpp"
#include "readers/onnx/onnx_tensor.hpp"
#include "readers/model_reader.hpp"
#include "graph/shape_inference.hpp"

#include <mosaic/onnx.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

namespace mosaic::onnx {

namespace {

using onnx_import::GraphBuilder;
using onnx_import::NodeContext;

// Translators implement opsets 1 to 21, each op by the version of it that the model's opset
// imports: the forms of opsets before 7 (legacy broadcasting, attributes that later became inputs,
// is_test...) are translated into what they mean (see translators/legacy_broadcast.hpp). What
// opsets 19 to 21 changed is mostly new element types (float8, int4, strings), which Mosaic refuses
// by type; the changes of meaning are each handled or refused by their translator: AveragePool's
// dilations, Pad's wrap mode, Resize's half_pixel_symmetric, GridSample-20's mode names and N-D,
// Q/DQ-21's blocked scales (not 1-D: refused), Gelu-20.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 21;
// Models of IR version 3 on list their opsets; older ones have no opset_import and mean opset 1.
constexpr int64_t kFirstIrWithOpsets = 3;

std::string read_file(const std::string& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ModelError(std::string(what) + " '" + path + "' cannot be opened: " + std::strerror(errno));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string folder_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string stem_of(const std::string& path) {
    std::string name = path.substr(path.find_last_of('/') + 1);
    const size_t dot = name.find_last_of('.');
    return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

class Importer {
public:
    Importer(std::string path, const ReadOptions& options, const ::onnx::ModelProto& proto)
        : path_(std::move(path)), base_dir_(folder_of(path_)), options_(options), proto_(proto),
          model_(std::make_shared<Model>(proto.graph().name().empty() ? stem_of(path_) : proto.graph().name())),
          builder_(*model_, inference_) {}

    std::shared_ptr<Model> run() {
        read_opsets();
        copy_metadata();
        const auto& graph = proto_.graph();
        if (graph.sparse_initializer_size() > 0)
            throw UnsupportedError("ONNX model '" + path_ + "': sparse initializers are not supported");
        check_options(graph);
        add_initializers(graph);
        add_inputs(graph);
        for (const ::onnx::NodeProto* node : topological_nodes(graph)) translate(*node);
        add_outputs(graph);
        model_->validate();
        return model_;
    }

private:
    void read_opsets() {
        for (const auto& op : proto_.opset_import()) opsets_[op.domain() == "ai.onnx" ? "" : op.domain()] = op.version();
        if (!opsets_.count("")) {
            if (proto_.ir_version() < kFirstIrWithOpsets) {
                opsets_[""] = 1;
            } else {
                throw UnsupportedError("ONNX model '" + path_ + "' imports no opset of the default domain; Mosaic "
                                       "reads opsets " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
            }
        }
        const int64_t v = opsets_[""];
        if (v < kMinOpset || v > kMaxOpset)
            throw UnsupportedError("ONNX model '" + path_ + "' uses opset " + std::to_string(v) + "; Mosaic reads opsets " +
                                   std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
    }

    void copy_metadata() {
        auto& info = model_->get_rt_info();
        info["onnx.ir_version"] = std::to_string(proto_.ir_version());
        info["onnx.opset"] = std::to_string(opsets_[""]);
        if (!proto_.producer_name().empty()) info["onnx.producer_name"] = proto_.producer_name();
        if (!proto_.producer_version().empty()) info["onnx.producer_version"] = proto_.producer_version();
        if (!proto_.domain().empty()) info["onnx.domain"] = proto_.domain();
        if (proto_.model_version() != 0) info["onnx.model_version"] = std::to_string(proto_.model_version());
        if (!proto_.doc_string().empty()) info["onnx.doc_string"] = proto_.doc_string();
        for (const auto& p : proto_.metadata_props()) info["onnx.metadata." + p.key()] = p.value();
    }

    void check_options(const ::onnx::GraphProto& graph) {
        std::set<std::string> names;
        std::string listed;
        for (const auto& in : graph.input()) {
            names.insert(in.name());
            listed += (listed.empty() ? "" : ", ") + in.name();
        }
        auto check = [&](const std::string& name, const char* what) {
            if (!names.count(name))
                throw ModelError("ONNX model '" + path_ + "': " + what + " names '" + name +
                                 "', which is not a graph input (inputs: " + listed + ")");
        };
        for (const auto& [name, shape] : options_.input_shapes) check(name, "a shape given for reading");
        for (const auto& [name, value] : options_.input_values) check(name, "a value given for reading");
    }

    void add_initializers(const ::onnx::GraphProto& graph) {
        for (const auto& init : graph.initializer()) {
            if (options_.input_values.count(init.name())) continue;  // the caller's value wins
            const std::string where = "ONNX model '" + path_ + "', initializer '" + init.name() + "'";
            onnx_import::TensorData t = onnx_import::tensor_data(init, base_dir_, where);
            Output c = builder_.constant(t.type, t.shape, t.data, init.name());
            c.node->set_output_names(0, {init.name()});
            values_[init.name()] = c;
        }
    }

    Shape declared_shape(const ::onnx::ValueInfoProto& in) {
        const auto& type = in.type().tensor_type();
        if (!type.has_shape())
            throw UnsupportedError("ONNX model '" + path_ + "': input '" + in.name() +
                                   "' has no declared shape (unknown rank); give one with --shape / "
                                   "ReadOptions::input_shapes");
        Shape shape;
        for (const auto& d : type.shape().dim())
            shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : kDynamicDim);
        return shape;
    }

    void add_inputs(const ::onnx::GraphProto& graph) {
        for (const auto& in : graph.input()) {
            if (values_.count(in.name())) continue;  // an initializer (IR < 4 lists them as inputs too)
            const std::string where = "ONNX model '" + path_ + "', input '" + in.name() + "'";
            if (!in.type().has_tensor_type())
                throw UnsupportedError(where + ": only tensor inputs are supported (not sequences, maps or optionals)");
            const ElementType type = onnx_import::element_type_of(in.type().tensor_type().elem_type(), where);
            if (auto bound = options_.input_values.find(in.name()); bound != options_.input_values.end()) {
                const Tensor& v = bound->second;
                if (v.get_element_type() != type)
                    throw ModelError(where + ": the value given for it is " + to_string(v.get_element_type()) +
                                     ", the input is " + to_string(type));
                Output c = builder_.constant(type, v.get_shape(), Buffer::copy_of(v.data(), v.get_byte_size()), in.name());
                c.node->set_output_names(0, {in.name()});
                values_[in.name()] = c;
                continue;
            }
            auto given = options_.input_shapes.find(in.name());
            Shape shape = given != options_.input_shapes.end() ? given->second : declared_shape(in);
            if (std::find(shape.begin(), shape.end(), kDynamicDim) != shape.end()) {
                const std::string entry = in.name() + " " + to_string(shape);
                if (options_.dynamic_dims_to_one) {
                    std::replace(shape.begin(), shape.end(), kDynamicDim, int64_t{1});
                    Any& note = model_->get_rt_info()["onnx.dynamic_inputs_set_to_one"];
                    const std::string before = note.as<std::string>();
                    note = before + (before.empty() ? "" : ", ") + entry;
                } else {
                    dynamic_inputs_ += (dynamic_inputs_.empty() ? "" : ", ") + entry;
                }
            }
            // A declared size past 2^63 bytes would overflow sizes computed from it (a Softmax's rows
            // times columns was the first found, by fuzzing). Dynamic and zero dimensions count as 1:
            // an empty input's other dimensions overflow partial products just the same.
            Shape at_least = shape;
            std::replace_if(at_least.begin(), at_least.end(), [](int64_t d) { return d == kDynamicDim || d == 0; }, int64_t{1});
            if (int64_t bytes = 0; !checked_byte_size(at_least, type, bytes))
                throw ModelError(where + ": its shape " + to_string(shape) + " of " + to_string(type) +
                                 " holds more than 2^63 bytes (zero and dynamic dimensions counted as 1); check the "
                                 "model's declared input shapes");
            Output p = builder_.parameter(in.name(), type, shape);
            p.node->set_output_names(0, {in.name()});
            values_[in.name()] = p;
        }
    }

    // ONNX requires nodes in topological order, but exporters do not always keep it; sort them,
    // telling an undefined input from a cycle.
    std::vector<const ::onnx::NodeProto*> topological_nodes(const ::onnx::GraphProto& graph) {
        const int n = graph.node_size();
        std::unordered_map<std::string, int> producer;
        for (int i = 0; i < n; ++i)
            for (const auto& out : graph.node(i).output())
                if (!out.empty()) producer[out] = i;
        std::vector<std::vector<int>> consumers(static_cast<size_t>(n));
        std::vector<int> pending(static_cast<size_t>(n), 0);
        for (int i = 0; i < n; ++i) {
            for (const auto& in : reads_of(graph.node(i))) {
                if (in.empty() || values_.count(in)) continue;
                auto p = producer.find(in);
                if (p == producer.end())
                    throw ModelError("ONNX model '" + path_ + "': node '" + display_name(graph.node(i)) + "' (" +
                                     graph.node(i).op_type() + ") reads '" + in +
                                     "', which no graph input, initializer or node output defines");
                consumers[static_cast<size_t>(p->second)].push_back(i);
                ++pending[static_cast<size_t>(i)];
            }
        }
        std::vector<const ::onnx::NodeProto*> order;
        std::vector<int> ready;
        for (int i = n - 1; i >= 0; --i)
            if (pending[static_cast<size_t>(i)] == 0) ready.push_back(i);
        while (!ready.empty()) {
            const int i = ready.back();
            ready.pop_back();
            order.push_back(&graph.node(i));
            std::vector<int> next;
            for (int c : consumers[static_cast<size_t>(i)])
                if (--pending[static_cast<size_t>(c)] == 0) next.push_back(c);
            // Keep file order among nodes that become ready together.
            ready.insert(ready.end(), next.rbegin(), next.rend());
        }
        if (static_cast<int>(order.size()) != n) {
            std::string cycle;
            for (int i = 0; i < n; ++i)
                if (pending[static_cast<size_t>(i)] > 0) cycle += (cycle.empty() ? "" : ", ") + display_name(graph.node(i));
            throw ModelError("ONNX model '" + path_ + "': the graph has a cycle through nodes " + cycle +
                             "; ONNX graphs must be acyclic");
        }
        return order;
    }

    static std::string display_name(const ::onnx::NodeProto& node) {
        if (!node.name().empty()) return node.name();
        return node.output_size() > 0 ? node.output(0) : node.op_type();
    }

    void translate(const ::onnx::NodeProto& node) {
        const std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
        const std::string name = builder_.unique_name(display_name(node));
        auto opset_it = opsets_.find(domain);
        const int64_t opset = opset_it == opsets_.end() ? 0 : opset_it->second;
        std::vector<Output> inputs;
        for (const auto& in : node.input()) inputs.push_back(in.empty() ? Output{} : values_.at(in));
        NodeContext ctx(builder_, node, name, opset, std::move(inputs), path_, base_dir_);

        const onnx_import::Translator* translator = onnx_import::find_translator(domain, node.op_type());
        if (!translator) ctx.unsupported(onnx_import::untranslated_reason(domain, node.op_type()));

        const size_t first_new = model_->get_ops().size();
        onnx_import::Outputs outs;
        try {
            outs = (*translator)(ctx);
        } catch (const ModelError& e) {
            throw_with_shape_hint(e);
        } catch (const std::exception& e) {
            ctx.fail(e.what());
        }
        for (size_t i = 0; i < ctx.output_count(); ++i) {
            const std::string& out_name = node.output(static_cast<int>(i));
            if (out_name.empty()) continue;
            if (i >= outs.size() || !outs[i].node) {
                if (used_later(out_name)) ctx.unsupported("output " + std::to_string(i) + " ('" + out_name + "') is not supported");
                continue;
            }
            std::vector<std::string> names = outs[i].node->output_names(outs[i].index);
            names.push_back(out_name);
            outs[i].node->set_output_names(outs[i].index, names);
            values_[out_name] = outs[i];
        }
        // Name the node that produces the first output after the ONNX node, so profiling and
        // affinity maps speak the model's language.
        if (!outs.empty() && outs[0].node) {
            const std::vector<Node*> ops = model_->get_ops();
            for (size_t k = first_new; k < ops.size(); ++k)
                if (ops[k] == outs[0].node) outs[0].node->set_friendly_name(name);
        }
    }

    [[noreturn]] void throw_with_shape_hint(const ModelError& e) {
        if (dynamic_inputs_.empty() || dynamic_cast<const UnsupportedError*>(&e)) throw;
        throw ModelError(std::string(e.what()) + " (the model has dynamic dimensions: " + dynamic_inputs_ +
                         "; give shapes with --shape or ReadOptions::input_shapes)");
    }

    // A node's inputs and the outer names its subgraphs (If branches, Loop bodies) read.
    static std::vector<std::string> reads_of(const ::onnx::NodeProto& node) {
        std::vector<std::string> reads(node.input().begin(), node.input().end());
        for (std::string& name : onnx_import::outer_scope_names(node)) reads.push_back(std::move(name));
        return reads;
    }

    bool used_later(const std::string& name) {
        for (const auto& node : proto_.graph().node())
            for (const auto& in : reads_of(node))
                if (in == name) return true;
        for (const auto& out : proto_.graph().output())
            if (out.name() == name) return true;
        return false;
    }

    void add_outputs(const ::onnx::GraphProto& graph) {
        if (graph.output_size() == 0) throw ModelError("ONNX model '" + path_ + "' has no graph outputs");
        for (const auto& out : graph.output()) {
            if (out.has_type() && !out.type().has_tensor_type())
                throw UnsupportedError("ONNX model '" + path_ + "', output '" + out.name() +
                                       "': only tensor outputs are supported (not sequences, maps or optionals)");
            auto it = values_.find(out.name());
            if (it == values_.end())
                throw ModelError("ONNX model '" + path_ + "': graph output '" + out.name() + "' is not produced by any node");
            Output source = it->second;
            // An output that is also a graph input or another output's tensor gets its own name first.
            std::vector<std::string> names = source.node->output_names(source.index);
            if (std::find(names.begin(), names.end(), out.name()) == names.end()) names.push_back(out.name());
            std::stable_partition(names.begin(), names.end(), [&](const std::string& n) { return n == out.name(); });
            source.node->set_output_names(source.index, names);
            builder_.result(source, out.name());
        }
    }

    std::string path_;
    std::string base_dir_;
    const ReadOptions& options_;
    const ::onnx::ModelProto& proto_;
    std::shared_ptr<Model> model_;
    ShapeInference inference_;
    GraphBuilder builder_;
    std::map<std::string, int64_t> opsets_;
    std::unordered_map<std::string, Output> values_;
    std::string dynamic_inputs_;
};

}  // namespace

bool is_onnx_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(16, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    // Blanks alone are no model; XML is not ONNX.
    if (head.find_first_not_of(kLeadingBlanks) == std::string::npos || starts_like_xml(head)) return false;
    // A ModelProto starts with one of its fields' tags: ir_version (0x08), producer_name (0x12),
    // producer_version (0x1a), domain (0x22), model_version (0x28), doc_string (0x32),
    // graph (0x3a) or opset_import (0x42).
    const unsigned char tag = static_cast<unsigned char>(head[0]);
    const bool model_tag = tag == 0x08 || tag == 0x12 || tag == 0x1a || tag == 0x22 || tag == 0x28 || tag == 0x32 ||
                           tag == 0x3a || tag == 0x42;
    const bool suffix = path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
    return model_tag || suffix;
}

std::shared_ptr<Model> read_onnx(const std::string& path, const ReadOptions& options) {
    ::onnx::ModelProto proto;
    {
        // The file's bytes are dropped once parsed: a model's weights are held twice at most.
        const std::string bytes = read_file(path, "ONNX model file");
        if (!proto.ParseFromString(bytes))
            throw ModelError("ONNX model '" + path + "' cannot be parsed: the protobuf is truncated or corrupt (" +
                             std::to_string(bytes.size()) + " bytes); re-export or re-download it");
    }
    if (!proto.has_graph())
        throw ModelError("ONNX model '" + path + "' has no graph; it is not a model (or is corrupt)");
    return Importer(path, options, proto).run();
}

Tensor read_tensor_file(const std::string& path, std::string* name) {
    const std::string bytes = read_file(path, "tensor file");
    ::onnx::TensorProto proto;
    if (!proto.ParseFromString(bytes))
        throw ModelError("tensor file '" + path + "' is not a serialized onnx.TensorProto (truncated or corrupt)");
    onnx_import::TensorData t = onnx_import::tensor_data(proto, folder_of(path), "tensor file '" + path + "'");
    if (name) *name = proto.name();
    Tensor out(t.type, t.shape);
    if (t.data->size()) std::memcpy(out.data(), t.data->data(), t.data->size());
    return out;
}

void write_tensor_file(const std::string& path, const Tensor& tensor, const std::string& name) {
    ::onnx::TensorProto proto;
    const int32_t type = onnx_import::onnx_type_of(tensor.get_element_type());
    if (type == ::onnx::TensorProto::UNDEFINED)
        throw std::runtime_error("tensor file '" + path + "': ONNX has no type for " +
                                 std::string(to_string(tensor.get_element_type())));
    proto.set_data_type(type);
    proto.set_name(name);
    for (int64_t d : tensor.get_shape()) proto.add_dims(d);
    proto.set_raw_data(static_cast<const char*>(tensor.data()), tensor.get_byte_size());
    std::ofstream out(path, std::ios::binary);
    if (!out || !proto.SerializeToOstream(&out))
        throw std::runtime_error("cannot write the tensor file '" + path + "'");
}

}  // namespace mosaic::onnx
