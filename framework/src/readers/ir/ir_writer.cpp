// IR v11 writer. Layers go out in topological order with the Results last (in model output order),
// so reading the files back gives the same inputs, outputs and node ids. Layout and spelling follow
// what OpenVINO writes, so OpenVINO reads our files too.
#include "graph/graph_edit.hpp"
#include "readers/ir/ir.hpp"
#include "readers/ir/ir_format.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string_view>
#include <unordered_map>

namespace mosaic::ir {

namespace {

// Constants of 64 bytes or more start on a 64-byte boundary of the .bin (and, the file being mapped at
// a page boundary, of memory) so vectorised kernels can use them in place; smaller ones on their
// element size.
constexpr uint64_t kLargeAlignment = 64;

// Appends constant bytes to the .bin, storing identical constants once.
class BinWriter {
public:
    // Writes to `tmp_path`; messages name `path`, the file it will become.
    BinWriter(const std::string& tmp_path, const std::string& path)
        : path_(path), out_(tmp_path, std::ios::binary | std::ios::trunc) {
        if (!out_)
            throw ModelError(path + ": cannot create the weights file (" + std::strerror(errno) +
                             "); check that the directory exists and is writable");
    }

    // Returns the offset of the bytes in the file.
    uint64_t add(const Buffer& data, size_t alignment) {
        const std::string_view bytes(static_cast<const char*>(data.data()), data.size());
        const size_t hash = std::hash<std::string_view>{}(bytes);
        auto [first, last] = written_.equal_range(hash);
        for (auto it = first; it != last; ++it)
            if (it->second.bytes == bytes && it->second.offset % alignment == 0) return it->second.offset;

        static const char zeros[kLargeAlignment] = {};
        const uint64_t padding = (alignment - size_ % alignment) % alignment;
        out_.write(zeros, static_cast<std::streamsize>(padding));
        const uint64_t offset = size_ + padding;
        out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        size_ = offset + bytes.size();
        written_.emplace(hash, Written{offset, bytes});
        return offset;
    }

    void close() {
        out_.close();
        if (!out_) throw ModelError(path_ + ": writing the weights file failed (disk full?)");
    }

private:
    struct Written {
        uint64_t offset;
        std::string_view bytes;  // the model's buffer, alive while writing
    };

    std::string path_;
    std::ofstream out_;
    uint64_t size_ = 0;
    std::unordered_multimap<size_t, Written> written_;
};

void append_dims(pugi::xml_node port, const Shape& shape) {
    for (int64_t d : shape)
        port.append_child("dim").text().set(d < 0 ? "-1" : std::to_string(d).c_str());
}

class Writer {
public:
    Writer(const Model& model, std::string xml_path, std::string bin_path)
        : model_(model), xml_path_(std::move(xml_path)), bin_path_(std::move(bin_path)) {}

    void write() {
        const std::vector<const Node*> order = layer_order(model_);
        check_validated(order);

        const std::string bin_tmp = bin_path_ + ".tmp", xml_tmp = xml_path_ + ".tmp";
        try {
            BinWriter bin(bin_tmp, bin_path_);
            pugi::xml_document doc;
            pugi::xml_node decl = doc.append_child(pugi::node_declaration);
            decl.append_attribute("version").set_value("1.0");
            pugi::xml_node net = doc.append_child("net");
            net.append_attribute("name").set_value(model_.get_friendly_name().c_str());
            net.append_attribute("version").set_value("11");

            write_net(net, order, bin);
            write_model_rt_info(net, model_.get_rt_info());

            bin.close();
            if (!doc.save_file(xml_tmp.c_str(), "\t", pugi::format_default, pugi::encoding_utf8))
                throw ModelError(xml_path_ + ": cannot write the model file; check that the directory is writable");
            // Renaming over the old files leaves a model that maps the old .bin intact.
            rename_into_place(bin_tmp, bin_path_);
            rename_into_place(xml_tmp, xml_path_);
        } catch (...) {
            std::remove(bin_tmp.c_str());
            std::remove(xml_tmp.c_str());
            throw;
        }
    }

private:
    [[noreturn]] void fail(const std::string& message) const { throw ModelError(xml_path_ + ": " + message); }

    std::vector<const Node*> layer_order(const Model& model) const {
        std::vector<Node*> topo;
        try {
            topo = model.get_ordered_ops();
        } catch (const ModelError& e) {
            fail(std::string("cannot write the model: ") + e.what());
        }
        std::vector<const Node*> order;
        for (const Node* n : topo)
            if (!n->is_result()) order.push_back(n);
        for (const Node* n : model.get_results()) order.push_back(n);
        return order;
    }

    // The <layers> and <edges> of a <net> or of a body.
    void write_net(pugi::xml_node net, const std::vector<const Node*>& order, BinWriter& bin) const {
        pugi::xml_node layers = net.append_child("layers");
        for (const Node* node : order) write_layer(layers, *node, bin);
        pugi::xml_node edges = net.append_child("edges");
        for (const Node* node : order) write_edges(edges, *node);
    }

    static uint64_t layer_of(const Node* n) { return layer_id_of_node(n->id()); }

    static void map_entry(pugi::xml_node map, const char* kind, int64_t external, const Node* internal,
                          const char* purpose = nullptr) {
        pugi::xml_node e = map.append_child(kind);
        e.append_attribute("external_port_id").set_value(static_cast<long long>(external));
        e.append_attribute("internal_layer_id").set_value(static_cast<unsigned long long>(layer_of(internal)));
        if (purpose) e.append_attribute("purpose").set_value(purpose);
    }

    void write_body(pugi::xml_node layer, const char* element, const Model& body, BinWriter& bin) const {
        const std::vector<const Node*> order = layer_order(body);
        check_validated(order);
        write_net(layer.append_child(element), order, bin);
    }

    // If-8 (control_flow.hpp's port order): body Parameter j takes input port j + 1, body Result o
    // gives output port inputs + o.
    void write_if(pugi::xml_node layer, const Node& node, BinWriter& bin) const {
        for (size_t b = 0; b < 2; ++b) {
            const Model* body = node.bodies()[b].get();
            if (!body)
                fail("node '" + node.get_friendly_name() + "' (If): its " + (b == 0 ? "then" : "else") +
                     "_branch could not be read at the shapes the model was read at, so it cannot be written; read "
                     "the model at the shapes it runs at and write that");
            pugi::xml_node map = layer.append_child(b == 0 ? "then_port_map" : "else_port_map");
            const std::vector<Node*> params = body->get_parameters(), results = body->get_results();
            for (size_t j = 0; j < params.size(); ++j) map_entry(map, "input", static_cast<int64_t>(j + 1), params[j]);
            for (size_t o = 0; o < results.size(); ++o)
                map_entry(map, "output", static_cast<int64_t>(node.input_count() + o), results[o]);
        }
        write_body(layer, "then_body", *node.bodies()[0], bin);
        write_body(layer, "else_body", *node.bodies()[1], bin);
    }

    // Loop-5: the body's condition input, which is true whenever the body runs, becomes a constant;
    // each stacked value gets a leading axis of 1, which concatenating along axis 0 stacks. The
    // trip count keeps OpenVINO's meaning: a negative one does not bound the loop (ONNX's runs none).
    void write_loop(pugi::xml_node layer, const Node& node, BinWriter& bin) const {
        std::shared_ptr<Model> body = node.bodies()[0]->clone();
        const size_t carried = static_cast<size_t>(node.attrs().get_int("carried"));
        const std::vector<Node*> params = body->get_parameters();
        std::vector<Node*> results = body->get_results();
        auto unique = [&](const std::string& name) { return unique_name(*body, name); };
        Node* always = body->add_constant(ElementType::boolean, {}, Buffer::from_vector<uint8_t>({1}),
                                          unique(params[1]->get_friendly_name() + "/true"));
        for (Node* n : body->get_ops())
            for (size_t i = 0; i < n->input_count(); ++i)
                if (n->input(i).node == params[1]) n->set_input(i, always->output(0));
        body->remove_node(params[1]);
        // A condition the loop ignores (ONNX's Loop without a cond input) is written as always true.
        if (node.attrs().get_string("ignore_body_condition", "false") == "true") results[0]->set_input(0, always->output(0));
        for (size_t s = 1 + carried; s < results.size(); ++s) {
            Node* axis = body->add_constant(ElementType::i64, {1}, Buffer::from_vector<int64_t>({0}),
                                            unique(results[s]->get_friendly_name() + "/axis"));
            Node* row = body->add_node("Unsqueeze", "opset1", {results[s]->input(0), axis->output(0)}, {},
                                       unique(results[s]->get_friendly_name() + "/row"));
            results[s]->set_input(0, row->output(0));
        }
        body->validate();

        pugi::xml_node map = layer.append_child("port_map");
        for (size_t i = 2; i < node.input_count(); ++i) map_entry(map, "input", static_cast<int64_t>(i), params[i]);
        map_entry(map, "input", -1, params[0], "current_iteration");
        for (size_t o = 0; o < node.output_count(); ++o) {
            map_entry(map, "output", static_cast<int64_t>(node.input_count() + o), results[1 + o]);
            if (o < carried) continue;
            pugi::xml_node e = map.last_child();  // a stacked value: every iteration's row, in order
            e.append_attribute("axis").set_value(0);
            e.append_attribute("start").set_value(0);
            e.append_attribute("end").set_value(-1);
            e.append_attribute("stride").set_value(1);
            e.append_attribute("part_size").set_value(1);
        }
        map_entry(map, "output", -1, results[0], "execution_condition");
        pugi::xml_node back = layer.append_child("back_edges");
        for (size_t k = 0; k < carried; ++k) {
            pugi::xml_node e = back.append_child("edge");
            e.append_attribute("from-layer").set_value(static_cast<unsigned long long>(layer_of(results[1 + k])));
            e.append_attribute("to-layer").set_value(static_cast<unsigned long long>(layer_of(params[2 + k])));
        }
        write_body(layer, "body", *body, bin);
    }

    void check_validated(const std::vector<const Node*>& order) const {
        for (const Node* n : order) {
            bool typed = n->output_count() > 0;
            for (size_t o = 0; typed && o < n->output_count(); ++o) typed = n->output_type(o) != ElementType::undefined;
            if (!typed)
                fail("node '" + n->get_friendly_name() + "' (" + n->type_and_version() +
                     ") has no inferred output types; call Model::validate() before writing the model");
            if (n->is_constant() && !n->constant_data())
                fail("Constant '" + n->get_friendly_name() + "' has no data; give it a Buffer before writing the model");
        }
    }

    static void rename_into_place(const std::string& from, const std::string& to) {
        if (std::rename(from.c_str(), to.c_str()) != 0)
            throw ModelError(to + ": cannot replace the file (" + std::strerror(errno) +
                             "); check the directory's permissions");
    }

    void write_layer(pugi::xml_node layers, const Node& node, BinWriter& bin) const {
        pugi::xml_node layer = layers.append_child("layer");
        layer.append_attribute("id").set_value(static_cast<unsigned long long>(layer_id_of_node(node.id())));
        layer.append_attribute("name").set_value(node.get_friendly_name().c_str());
        layer.append_attribute("type").set_value(op_type_to_ir(node.get_type_name()).c_str());
        layer.append_attribute("version").set_value(node.version().c_str());
        if (node.is_result() && node.output_count() && !node.output_names(0).empty())
            layer.append_attribute("output_names").set_value(join_tensor_names(node.output_names(0)).c_str());

        // Control flow's own attributes (control_flow.hpp) live in the port maps and bodies.
        Attributes attrs = node.bodies().empty() ? node.attrs() : Attributes{};
        if (node.is_constant()) {
            const Buffer& data = *node.constant_data();
            const size_t alignment =
                data.size() >= kLargeAlignment ? kLargeAlignment : std::max<size_t>(1, element_size(node.output_type(0)));
            attrs.set("offset", static_cast<int64_t>(bin.add(data, alignment)));
            attrs.set("size", static_cast<int64_t>(data.size()));
        }
        if (!attrs.empty()) {
            pugi::xml_node data = layer.append_child("data");
            for (const auto& [name, value] : attrs.entries()) data.append_attribute(name.c_str()).set_value(value.c_str());
        }
        write_layer_rt_info(layer, node.get_rt_info());

        if (node.input_count()) {
            pugi::xml_node input = layer.append_child("input");
            for (size_t i = 0; i < node.input_count(); ++i) {
                const Output& src = node.input(i);
                pugi::xml_node port = input.append_child("port");
                port.append_attribute("id").set_value(static_cast<unsigned long long>(i));
                port.append_attribute("precision").set_value(precision_name(src.get_element_type()));
                append_dims(port, src.get_partial_shape());
            }
        }
        if (node.is_result()) return;  // IR gives a Result no output port
        pugi::xml_node output = layer.append_child("output");
        for (size_t o = 0; o < node.output_count(); ++o) {
            pugi::xml_node port = output.append_child("port");
            port.append_attribute("id").set_value(static_cast<unsigned long long>(node.input_count() + o));
            port.append_attribute("precision").set_value(precision_name(node.output_type(o)));
            if (!node.output_names(o).empty())
                port.append_attribute("names").set_value(join_tensor_names(node.output_names(o)).c_str());
            append_dims(port, node.output_shape(o));
        }
        if (node.get_type_name() == "If" && !node.bodies().empty()) write_if(layer, node, bin);
        if (node.get_type_name() == "Loop" && !node.bodies().empty()) write_loop(layer, node, bin);
    }

    void write_edges(pugi::xml_node edges, const Node& node) const {
        for (size_t i = 0; i < node.input_count(); ++i) {
            const Output& src = node.input(i);
            pugi::xml_node edge = edges.append_child("edge");
            edge.append_attribute("from-layer").set_value(static_cast<unsigned long long>(layer_id_of_node(src.node->id())));
            edge.append_attribute("from-port").set_value(static_cast<unsigned long long>(src.node->input_count() + src.index));
            edge.append_attribute("to-layer").set_value(static_cast<unsigned long long>(layer_id_of_node(node.id())));
            edge.append_attribute("to-port").set_value(static_cast<unsigned long long>(i));
        }
    }

    const Model& model_;
    std::string xml_path_, bin_path_;
};

}  // namespace

void write_ir(const Model& model, const std::string& xml_path, const std::string& bin_path) {
    Writer(model, xml_path, bin_path.empty() ? default_bin_path(xml_path) : bin_path).write();
}

}  // namespace mosaic::ir
