// IR v10 / v11 reader. The file is parsed into plain layer records first and checked as a graph
// (edges, ports, cycles), so structural mistakes are reported with the layer and line that have them;
// only then is the Model built, validated, and its inferred outputs checked against the declared ports.
#include "readers/ir/ir.hpp"
#include "readers/ir/ir_control_flow.hpp"
#include "readers/ir/ir_format.hpp"
#include "readers/ir/weights_file.hpp"
#include "readers/packed_integers.hpp"
#include "ops/op_schema.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

namespace mosaic::ir {

using readers::PackedType;
using readers::packed_bytes;
using readers::packed_type_from_string;
using readers::unpack;

namespace {

struct PortRecord {
    uint64_t id = 0;
    std::string precision;  // as written; may be empty
    Shape dims;
    std::vector<std::string> names;
};

struct Source {
    size_t layer = 0;   // index into the layer list
    size_t output = 0;  // output index of that layer
    size_t line = 0;    // of the <edge>
    bool connected = false;
};

struct LayerRecord {
    uint64_t id = 0;
    std::string name, ir_type, type, version;
    Attributes attrs;
    RTMap rt_info;
    std::vector<PortRecord> inputs, outputs;
    std::vector<std::string> result_names;  // Result's `output_names` (IR v11)
    std::vector<Source> sources;            // one per input port
    size_t line = 0;
    pugi::xml_node xml;                     // control-flow layers read their bodies and port maps from it
};

std::optional<uint64_t> parse_u64(std::string_view s) {
    uint64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string list_ids(const std::vector<PortRecord>& ports) {
    if (ports.empty()) return "none";
    std::string out;
    for (const auto& p : ports) out += (out.empty() ? "" : ", ") + std::to_string(p.id);
    return out;
}

class Reader {
public:
    Reader(std::string xml_path, std::string bin_path)
        : xml_path_(std::move(xml_path)), bin_path_(bin_path.empty() ? default_bin_path(xml_path_) : std::move(bin_path)) {}

    // The body of a control-flow layer: the same file and weights, messages naming the body.
    Reader(Reader& parent, std::string scope)
        : xml_path_(parent.xml_path_), bin_path_(parent.bin_path_), root_(parent.root_), scope_(std::move(scope)),
          depth_(parent.depth_ + 1) {}

    std::shared_ptr<Model> read() {
        load_xml();
        const pugi::xml_node net = doc_.child("net");
        if (!net)
            fail("no <net> root element (the root is <" + std::string(doc_.document_element().name()) +
                 ">); this is not an OpenVINO IR .xml");
        check_version(net);
        const pugi::xml_attribute name = net.attribute("name");
        return read_net(net, name ? name.value() : std::filesystem::path(xml_path_).stem().string());
    }

    // A <net>, or a body: its <layers> and <edges>.
    std::shared_ptr<Model> read_net(const pugi::xml_node& net, const std::string& name) {
        const pugi::xml_node layers = net.child("layers");
        if (!layers) fail("<" + std::string(net.name()) + "> has no <layers> element; the IR is incomplete, re-export the model");

        for (const auto& node : layers.children("layer")) parse_layer(node);
        for (const auto& node : net.child("edges").children("edge")) parse_edge(node);
        check_inputs_connected();
        check_acyclic();

        auto model = build(net, name);
        validate(*model);
        check_declared_outputs();
        return model;
    }

private:
    // ---- messages ----------------------------------------------------------------------------

    [[noreturn]] void fail(const std::string& message) const { throw ModelError(xml_path_ + ": " + message); }

    std::string where(const LayerRecord& l) const {
        return "layer '" + l.name + "' (id " + std::to_string(l.id) + ", type " + l.ir_type + ", line " +
               std::to_string(l.line) + ")" + (scope_.empty() ? "" : " in " + scope_);
    }

    [[noreturn]] void fail(const LayerRecord& l, const std::string& message) const {
        fail(where(l) + ": " + message);
    }

    size_t line_of(const pugi::xml_node& node) const { return line_at(static_cast<size_t>(node.offset_debug())); }

    size_t line_at(size_t offset) const {
        const std::vector<size_t>& starts = root_->line_starts_;
        return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), offset) - starts.begin());
    }

    // ---- XML ---------------------------------------------------------------------------------

    void load_xml() {
        std::ifstream in(xml_path_, std::ios::binary);
        if (!in) fail(std::string("cannot open the model file (") + std::strerror(errno) + "); check the path");
        text_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        line_starts_.push_back(0);
        for (size_t i = 0; i < text_.size(); ++i)
            if (text_[i] == '\n') line_starts_.push_back(i + 1);
        const pugi::xml_parse_result r = doc_.load_buffer(text_.data(), text_.size());
        if (!r) {
            const size_t offset = static_cast<size_t>(r.offset);
            const size_t column = offset - line_starts_[line_at(offset) - 1] + 1;
            fail(std::string("not well-formed XML: ") + r.description() + " at offset " + std::to_string(offset) +
                 " (line " + std::to_string(line_at(offset)) + ", column " + std::to_string(column) +
                 "); the file is damaged or not an IR .xml");
        }
    }

    void check_version(const pugi::xml_node& net) {
        const std::string version = net.attribute("version").value();
        if (version != "10" && version != "11")
            fail("IR version '" + version +
                 "' is not supported; Mosaic reads IR v10 and v11 (<net version=\"10\"> or \"11\"), re-export the "
                 "model with OpenVINO 2021.1 or later");
    }

    // ---- layers ------------------------------------------------------------------------------

    void parse_layer(const pugi::xml_node& node) {
        LayerRecord l;
        l.line = line_of(node);
        l.name = node.attribute("name").value();
        l.ir_type = node.attribute("type").value();
        l.type = op_type_from_ir(l.ir_type);
        l.version = node.attribute("version").value();
        const std::string id_text = node.attribute("id").value();
        const auto id = parse_u64(id_text);
        const std::string at = "<layer name='" + l.name + "'> at line " + std::to_string(l.line);
        if (!id) fail(at + " has id '" + id_text + "'; every layer needs a numeric id, unique in the file");
        l.id = *id;
        if (layer_index_.count(l.id))
            fail(where(l) + ": layer id " + id_text + " is also used by " + where(layers_[layer_index_[l.id]]) +
                 "; layer ids must be unique");
        if (l.ir_type.empty()) fail(at + " has no type; give it an op type such as type=\"Convolution\"");
        if (l.version.empty())
            fail(where(l) + ": no version attribute; IR v10/v11 layers name their opset, e.g. version=\"opset1\"");
        check_op_known(l);
        l.xml = node;

        for (const auto& a : node.child("data").attributes()) l.attrs.set(a.name(), std::string(a.value()));
        read_layer_rt_info(node.child("rt_info"), l.rt_info);
        for (const auto& p : node.child("input").children("port")) l.inputs.push_back(parse_port(l, p));
        for (const auto& p : node.child("output").children("port")) l.outputs.push_back(parse_port(l, p));
        if (const auto names = node.attribute("output_names")) l.result_names = split_tensor_names(names.value());
        l.sources.resize(l.inputs.size());
        check_port_ids_unique(l);
        check_boundary_op(l);

        layer_index_[l.id] = layers_.size();
        layers_.push_back(std::move(l));
    }

    void check_op_known(const LayerRecord& l) const {
        if (is_control_flow_layer(l.type)) {
            const std::string expected = l.type == "If" ? "opset8" : l.type == "Loop" ? "opset5" : "opset1";
            if (l.version != expected)
                fail(l, "op '" + l.type + "' has no version '" + l.version + "' (known version: " + expected + ")");
            return;
        }
        const auto& registry = ops::OpRegistry::instance();
        if (registry.find(l.type, l.version)) return;
        if (!registry.has_type(l.type))
            fail(l, "unknown op type '" + l.ir_type +
                        "'; Mosaic's op set does not have it. Convert the model with ops of the standard opsets, or "
                        "add a schema for the op");
        std::string known;
        for (const auto& v : registry.versions_of(l.type)) known += (known.empty() ? "" : ", ") + v;
        fail(l, "op '" + l.type + "' has no version '" + l.version + "' (known versions: " + known +
                    "); re-export the model with a supported opset or use one of the known versions");
    }

    PortRecord parse_port(const LayerRecord& l, const pugi::xml_node& node) const {
        PortRecord p;
        const std::string id_text = node.attribute("id").value();
        const auto id = parse_u64(id_text);
        if (!id)
            fail(l, "a <port> at line " + std::to_string(line_of(node)) + " has id '" + id_text +
                        "'; port ids must be numbers");
        p.id = *id;
        p.precision = node.attribute("precision").value();
        if (!p.precision.empty() && !is_unspecified_precision(p.precision) && port_type(p.precision) == ElementType::undefined)
            fail(l, "port " + id_text + " has an unknown precision '" + p.precision +
                        "'; expected one of FP32, FP16, BF16, FP64, I8, U8, I16, U16, I32, U32, I64, U64, BOOL, U4, I4, NF4");
        for (const auto& d : node.children("dim")) {
            const auto dim = parse_dim(d.child_value());
            if (!dim)
                fail(l, "port " + id_text + " has a non-numeric dim '" + d.child_value() +
                            "' at line " + std::to_string(line_of(d)) +
                            "; a dim is a number >= 0, or -1 / ? / a range like 1..10 for a dynamic dim");
            p.dims.push_back(*dim);
        }
        if (const auto names = node.attribute("names")) p.names = split_tensor_names(names.value());
        return p;
    }

    void check_port_ids_unique(const LayerRecord& l) const {
        std::map<uint64_t, int> seen;
        for (const auto* ports : {&l.inputs, &l.outputs})
            for (const auto& p : *ports)
                if (++seen[p.id] > 1)
                    fail(l, "port id " + std::to_string(p.id) +
                                " is used twice; the input and output ports of a layer need distinct ids");
    }

    // Parameter and Constant take their type and shape from <data>; check them here so the message
    // can point at the file and the attribute.
    void check_boundary_op(LayerRecord& l) const {
        if (l.type != "Parameter" && l.type != "Constant") return;
        const std::string* et = l.attrs.find("element_type");
        if (!et) fail(l, "<data> has no element_type; add one, e.g. element_type=\"f32\"");
        if (element_type_from_string(*et) == ElementType::undefined && !packed_type_from_string(*et))
            fail(l, "bad element_type '" + *et + "'; expected one of f32, f16, bf16, f64, i8, u8, i16, u16, i32, "
                    "u32, i64, u64, boolean (u4, i4, nf4 for a Constant)");
        if (l.type == "Parameter" && packed_type_from_string(*et))
            fail(l, "element_type '" + *et + "' packs elements below a byte, which only a Constant (compressed "
                    "weights) may; give the Parameter a type of whole bytes (u8, i8, f32, ...)");
        const std::string* shape = l.attrs.find("shape");
        if (!shape) fail(l, "<data> has no shape; add one, e.g. shape=\"1,3,224,224\" (\"\" for a scalar)");
        std::string bad;
        const auto parsed = parse_shape_attr(*shape, &bad);
        if (!parsed)
            fail(l, "shape '" + *shape + "' has a non-numeric dim '" + bad +
                        "'; dims are numbers >= 0, or ? / -1 / a range like 1..10 for a dynamic dim "
                        "(a dynamic rank is not supported)");
        // A Parameter keeps its ranges ("1..8"): the compiled model checks inputs against them.
        if (l.type != "Parameter" && !is_static(*parsed)) {
            fail(l, "a Constant must have a static shape, got '" + *shape + "'");
        }
    }

    // ---- edges -------------------------------------------------------------------------------

    uint64_t edge_attr(const pugi::xml_node& edge, const char* name, size_t line) const {
        const std::string text = edge.attribute(name).value();
        const auto v = parse_u64(text);
        if (!v)
            fail("the <edge> at line " + std::to_string(line) + " has " + name + "='" + text +
                 "'; an edge needs numeric from-layer, from-port, to-layer and to-port");
        return *v;
    }

    void parse_edge(const pugi::xml_node& edge) {
        const size_t line = line_of(edge);
        const uint64_t from_layer = edge_attr(edge, "from-layer", line), from_port = edge_attr(edge, "from-port", line);
        const uint64_t to_layer = edge_attr(edge, "to-layer", line), to_port = edge_attr(edge, "to-port", line);
        const std::string edge_text = "the <edge> at line " + std::to_string(line) + " (from-layer " +
                                      std::to_string(from_layer) + " from-port " + std::to_string(from_port) +
                                      " to-layer " + std::to_string(to_layer) + " to-port " + std::to_string(to_port) +
                                      ")";
        const auto from = layer_index_.find(from_layer), to = layer_index_.find(to_layer);
        if (from == layer_index_.end())
            fail(edge_text + " starts at layer " + std::to_string(from_layer) +
                 ", which does not exist; fix the edge or add the layer");
        if (to == layer_index_.end())
            fail(edge_text + " ends at layer " + std::to_string(to_layer) +
                 ", which does not exist; fix the edge or add the layer");
        const LayerRecord& src = layers_[from->second];
        LayerRecord& dst = layers_[to->second];

        const auto out = find_port(src.outputs, from_port);
        if (!out)
            fail(edge_text + " starts at port " + std::to_string(from_port) + " of " + where(src) +
                 ", which has no such output port (output ports: " + list_ids(src.outputs) + ")");
        const auto in = find_port(dst.inputs, to_port);
        if (!in)
            fail(edge_text + " ends at port " + std::to_string(to_port) + " of " + where(dst) +
                 ", which has no such input port (input ports: " + list_ids(dst.inputs) + ")");
        Source& s = dst.sources[*in];
        if (s.connected)
            fail(edge_text + " feeds input port " + std::to_string(to_port) + " of " + where(dst) +
                 ", which the <edge> at line " + std::to_string(s.line) +
                 " already feeds; an input port takes exactly one edge, remove one of them");
        s = {from->second, *out, line, true};
    }

    static std::optional<size_t> find_port(const std::vector<PortRecord>& ports, uint64_t id) {
        for (size_t i = 0; i < ports.size(); ++i)
            if (ports[i].id == id) return i;
        return std::nullopt;
    }

    void check_inputs_connected() const {
        for (const auto& l : layers_)
            for (size_t i = 0; i < l.inputs.size(); ++i)
                if (!l.sources[i].connected)
                    fail(l, "input port " + std::to_string(l.inputs[i].id) +
                                " has no edge; add an <edge> with to-layer=\"" + std::to_string(l.id) +
                                "\" to-port=\"" + std::to_string(l.inputs[i].id) + "\" or remove the port");
    }

    void check_acyclic() const {
        const size_t n = layers_.size();
        std::vector<size_t> pending(n);
        std::vector<std::vector<size_t>> consumers(n);
        for (size_t i = 0; i < n; ++i) {
            pending[i] = layers_[i].sources.size();
            for (const auto& s : layers_[i].sources) consumers[s.layer].push_back(i);
        }
        std::vector<size_t> ready;
        for (size_t i = 0; i < n; ++i)
            if (pending[i] == 0) ready.push_back(i);
        size_t done = 0;
        while (!ready.empty()) {
            const size_t i = ready.back();
            ready.pop_back();
            ++done;
            for (size_t c : consumers[i])
                if (--pending[c] == 0) ready.push_back(c);
        }
        if (done == n) return;

        // Every layer left over has an unfinished producer, so walking producers from any of them
        // must come back to a layer already seen: that loop is the cycle to report.
        size_t at = 0;
        while (pending[at] == 0) ++at;
        std::vector<size_t> path;
        std::vector<int> position(n, -1);
        while (position[at] < 0) {
            position[at] = static_cast<int>(path.size());
            path.push_back(at);
            for (const auto& s : layers_[at].sources)
                if (pending[s.layer] != 0) {
                    at = s.layer;
                    break;
                }
        }
        // The walk went against the edges; print the loop in data-flow order.
        auto label = [&](size_t i) {
            return "'" + layers_[i].name + "' (id " + std::to_string(layers_[i].id) + ", " + layers_[i].ir_type + ")";
        };
        std::string cycle = label(at);
        for (size_t k = path.size(); k-- > static_cast<size_t>(position[at]);) cycle += " -> " + label(path[k]);
        fail("the layers form a cycle: " + cycle + "; an IR must be a directed acyclic graph, check the edges "
             "between these layers");
    }

    // ---- the model ---------------------------------------------------------------------------

    std::shared_ptr<Model> build(const pugi::xml_node& net, const std::string& name) {
        auto model = std::make_shared<Model>(name);
        // Model Optimizer's <meta_data> and <framework_meta> (IR v10 and early v11) hold what later
        // versions write in <rt_info>; keep them the same way, <rt_info> winning on a clash.
        RTMap& info = model->get_rt_info();
        read_model_rt_info(net.child("rt_info"), info);
        for (const char* legacy : {"meta_data", "framework_meta"}) {
            RTMap extra;
            read_model_rt_info(net.child(legacy), extra);
            info.insert(extra.begin(), extra.end());
        }

        nodes_.resize(layers_.size());
        outputs_.resize(layers_.size());
        for (size_t i = 0; i < layers_.size(); ++i) {
            const LayerRecord& l = layers_[i];
            if (is_control_flow_layer(l.type)) continue;
            // Inputs are connected below, once every layer has its node.
            Node* node = l.type == "Constant" ? add_constant(*model, l)
                                              : model->add_node(l.type, l.version, std::vector<Output>(l.inputs.size()),
                                                                l.attrs, l.name, node_id_of_layer(l.id));
            nodes_[i] = node;
            for (size_t o = 0; o < l.outputs.size(); ++o) outputs_[i].push_back(node->output(o));
        }
        // Control-flow layers take Outputs that exist: each after the control-flow layers it reads.
        for (bool progress = true; progress;) {
            progress = false;
            for (size_t i = 0; i < layers_.size(); ++i) {
                const LayerRecord& l = layers_[i];
                if (!is_control_flow_layer(l.type) || nodes_[i]) continue;
                bool ready = true;
                for (const Source& src : l.sources) ready = ready && nodes_[src.layer];
                if (!ready) continue;
                add_control_flow(*model, i);
                progress = true;
            }
        }
        for (size_t i = 0; i < layers_.size(); ++i) {
            const LayerRecord& l = layers_[i];
            nodes_[i]->get_rt_info() = l.rt_info;
            for (size_t o = 0; o < l.outputs.size(); ++o)
                if (!l.outputs[o].names.empty())
                    outputs_[i][o].node->set_output_names(outputs_[i][o].index, l.outputs[o].names);
            if (!l.result_names.empty()) nodes_[i]->set_output_names(0, l.result_names);
            if (is_control_flow_layer(l.type)) continue;
            for (size_t k = 0; k < l.sources.size(); ++k)
                nodes_[i]->set_input(k, outputs_[l.sources[k].layer][l.sources[k].output]);
        }
        return model;
    }

    void add_control_flow(Model& model, size_t index) {
        const LayerRecord& l = layers_[index];
        ControlFlowLayer layer;
        layer.type = l.type;
        layer.name = l.name;
        layer.xml = l.xml;
        for (const PortRecord& p : l.inputs) {
            layer.input_port_ids.push_back(p.id);
            layer.input_ports.push_back({port_type(p.precision), p.dims});
        }
        for (const PortRecord& p : l.outputs) layer.output_port_ids.push_back(p.id);
        for (const Source& src : l.sources) layer.inputs.push_back(outputs_[src.layer][src.output]);
        for (const std::string& element : body_elements(l.type)) {
            const pugi::xml_node body = l.xml.child(element.c_str());
            if (!body) fail(l, "has no <" + element + ">; a " + l.type + " holds its body there");
            // Bodies nest as deep as the file says; past this a file is taken to be malformed.
            if (depth_ >= kMaxBodyDepth)
                fail(l, "its body is nested " + std::to_string(depth_ + 1) + " control-flow layers deep; Mosaic reads up to " +
                            std::to_string(kMaxBodyDepth));
            Reader reader(*this, "the " + element + " of " + where(l));
            layer.bodies.push_back(reader.read_net(body, l.name + "/" + element));
        }
        layer.fail = [this, &l](const std::string& message) { fail(l, message); };
        outputs_[index] = add_control_flow_layer(model, layer);
        nodes_[index] = layer.node;
    }

    // The type of a port's tensor in Mosaic's graph: packed types (U4) are read unpacked (u8).
    static ElementType port_type(const std::string& precision) {
        const auto packed = packed_type_from_string(precision);
        return packed ? packed->unpacked : element_type_from_string(precision);
    }

    Node* add_constant(Model& model, const LayerRecord& l) {
        const std::string& type_name = *l.attrs.find("element_type");
        const std::optional<PackedType> packed = packed_type_from_string(type_name);
        const ElementType type = packed ? packed->unpacked : element_type_from_string(type_name);
        const Shape shape = *parse_shape_attr(*l.attrs.find("shape"), nullptr);
        auto number = [&](const char* attr) {
            const std::string* text = l.attrs.find(attr);
            if (!text) fail(l, std::string("<data> has no ") + attr + "; a Constant needs offset and size into the .bin");
            const auto v = parse_u64(*text);
            if (!v) fail(l, std::string(attr) + "='" + *text + "' is not a byte count");
            return *v;
        };
        const uint64_t offset = number("offset"), size = number("size");
        uint64_t count = 1;
        for (int64_t d : shape)
            if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count) || count > (UINT64_MAX >> 4))
                fail(l, "shape " + to_string(shape) + " is too large to hold in memory");
        const uint64_t needed = packed ? packed_bytes(count, packed->bits) : count * element_size(type);
        if (size != needed)
            fail(l, "size=" + std::to_string(size) + " bytes disagrees with element_type " + type_name +
                        " x shape " + to_string(shape) + ", which needs " + std::to_string(needed) +
                        " bytes; fix the size or the shape");

        std::shared_ptr<const Buffer> data;
        if (size == 0) {
            data = Buffer::copy_of(nullptr, 0);
        } else {
            const WeightsFile& w = weights(l);
            if (offset >= w.size())
                fail(l, "offset " + std::to_string(offset) + " lies past the end of " + w.path() + " (" +
                            std::to_string(w.size()) + " bytes); the .bin does not belong to this .xml");
            if (size > w.size() - offset)
                fail(l, "the constant needs bytes " + std::to_string(offset) + ".." + std::to_string(offset + size) +
                            " but " + w.path() + " is only " + std::to_string(w.size()) +
                            " bytes long; the .bin is truncated or belongs to another .xml");
            data = packed ? unpack(*packed, w.data() + offset, count)
                          : aligned_weights(w, offset, size, element_size(type), root_->weights_);
        }

        Attributes attrs;  // offset and size only locate the bytes; the writer lays them out anew
        for (const auto& [k, v] : l.attrs.entries())
            if (k != "offset" && k != "size") attrs.set(k, v);
        if (packed) attrs.set("element_type", to_string(type));  // the bytes are unpacked now
        Node* node = model.add_constant(type, shape, std::move(data), l.name, node_id_of_layer(l.id));
        node->attrs() = std::move(attrs);
        return node;
    }

    // A view into the mapped .bin where the bytes are aligned for their element type; else a copy.
    // Kernels and shape inference read constants through typed pointers, and a misaligned one (an
    // f32 at offset 2, which the IR format allows) is undefined behaviour. The copy is read from the
    // file, not the mapping: optimum-intel's LLM IRs hold a one-byte boolean constant before most
    // of their weights, which puts 1.4 GB of a 2 GB model off alignment, and copying them out of
    // the mapping kept their pages resident beside the copies (peak 5.2 GB for 2 GB of weights).
    static std::shared_ptr<const Buffer> aligned_weights(const WeightsFile& w, uint64_t offset, uint64_t size,
                                                         size_t alignment, const std::shared_ptr<const WeightsFile>& owner) {
        const uint8_t* bytes = w.data() + offset;
        if (alignment <= 1 || reinterpret_cast<uintptr_t>(bytes) % alignment == 0) return Buffer::view(bytes, size, owner);
        std::shared_ptr<void> copy = weights_memory(size);
        w.read(offset, size, copy.get());
        return Buffer::view(copy.get(), size, copy);
    }

    const WeightsFile& weights(const LayerRecord& l) {
        std::shared_ptr<const WeightsFile>& weights = root_->weights_;
        if (!weights) {
            try {
                weights = WeightsFile::open(bin_path_);
            } catch (const ModelError& e) {
                fail(l, std::string("needs the weights file: ") + e.what());
            }
        }
        return *weights;
    }

    void validate(Model& model) const {
        try {
            model.validate();
        } catch (const ModelError& e) {
            // The model names the node by friendly name; add the IR id and line of that layer.
            const std::string message = e.what();
            const LayerRecord* culprit = nullptr;
            for (const auto& l : layers_)
                if (message.find("'" + l.name + "'") != std::string::npos &&
                    (!culprit || l.name.size() > culprit->name.size()))
                    culprit = &l;
            fail(message + (culprit ? " [" + where(*culprit) + "]" : std::string()) +
                 "; the IR's attributes or shapes are inconsistent, fix the layer or re-export the model");
        }
    }

    void check_declared_outputs() const {
        for (size_t i = 0; i < layers_.size(); ++i) {
            const LayerRecord& l = layers_[i];
            const Node& node = *nodes_[i];
            if (node.is_result()) continue;  // a Result's output is not written in IR
            // A control-flow layer's outputs may come from the ops that reshape the node's.
            const bool control_flow = is_control_flow_layer(l.type);
            if (!control_flow && l.outputs.size() != node.output_count())
                fail(l, "declares " + std::to_string(l.outputs.size()) + " output ports but " + node.type_and_version() +
                            " produces " + std::to_string(node.output_count()) + "; fix the <output> section");
            for (size_t o = 0; o < l.outputs.size(); ++o) {
                const PortRecord& p = l.outputs[o];
                const Output& out = outputs_[i][o];
                const ElementType declared = port_type(p.precision);
                if (declared != ElementType::undefined && declared != out.get_element_type())
                    fail(l, "output port " + std::to_string(p.id) + " is declared " + p.precision +
                                " but the op produces " + to_string(out.get_element_type()) +
                                "; the IR contradicts its own ops, re-export the model");
                const Shape& inferred = out.get_partial_shape();
                bool match = p.dims.size() == inferred.size();
                for (size_t d = 0; match && d < inferred.size(); ++d)
                    match = p.dims[d] < 0 || inferred[d] < 0 || p.dims[d] == inferred[d];
                if (!match)
                    fail(l, "output port " + std::to_string(p.id) + " is declared with shape " + to_string(p.dims) +
                                " but shape inference gives " + to_string(inferred) +
                                "; the IR contradicts its own ops (check the input shapes and attributes), "
                                "re-export the model");
            }
        }
    }

    std::string xml_path_, bin_path_;
    std::string text_;
    std::vector<size_t> line_starts_;  // offset of each line's first character, for messages
    pugi::xml_document doc_;
    std::vector<LayerRecord> layers_;
    std::map<uint64_t, size_t> layer_index_;
    std::vector<Node*> nodes_;
    std::vector<std::vector<Output>> outputs_;  // per layer, per output port
    std::shared_ptr<const WeightsFile> weights_;  // the root reader's, shared with the bodies' readers
    Reader* root_ = this;                         // holds the file's text and weights
    std::string scope_;                           // "the body of layer ..." for a body's reader
    int depth_ = 0;                               // of the bodies being read
    static constexpr int kMaxBodyDepth = 32;
};

}  // namespace

std::string default_bin_path(const std::string& xml_path) {
    return std::filesystem::path(xml_path).replace_extension(".bin").string();
}

std::shared_ptr<Model> read_ir(const std::string& xml_path, const std::string& bin_path) {
    return Reader(xml_path, bin_path).read();
}

}  // namespace mosaic::ir
