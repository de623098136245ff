// Runtime information in IR v11, flattened to "a/b/c" -> value so RTMap stays a string map.
//
// Per layer, OpenVINO writes its typed runtime attributes as
//   <attribute name="fused_names" version="0" value="conv1,relu1"/>
// and free-form string entries (ours: "affinity") as <custom name="affinity" value="GPU"/>, nested
// for maps. Model-level rt_info is a tree of elements named after the keys, each leaf carrying a
// `value`; a key that is not a valid XML name becomes <info name="...">.
#include "readers/ir/ir_format.hpp"

#include <cctype>
#include <cstring>

namespace mosaic::ir {

namespace {

// OpenVINO runtime attributes (all version "0") that its reader recognises in <attribute> form.
// Flags carry no value. Any other key is written as <custom>, which OpenVINO reads as a string.
struct KnownAttribute {
    const char* name;
    bool flag;
};
constexpr KnownAttribute kKnownAttributes[] = {
    {"fused_names", false},     {"old_api_map_order", false}, {"old_api_map_element_type", false},
    {"primitives_priority", false}, {"decompression", true},  {"dequantization", true},
    {"precise", true},          {"keep_const_precision", true},
};

const KnownAttribute* known_attribute(const std::string& key) {
    for (const auto& a : kKnownAttributes)
        if (key == a.name) return &a;
    return nullptr;
}

std::string join_key(const std::string& prefix, const std::string& segment) {
    return prefix.empty() ? segment : prefix + "/" + segment;
}

std::vector<std::string> split_key(const std::string& key) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t slash = key.find('/', start);
        out.push_back(key.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
        if (slash == std::string::npos) return out;
        start = slash + 1;
    }
}

bool has_element_children(const pugi::xml_node& node) {
    for (const auto& c : node.children())
        if (c.type() == pugi::node_element) return true;
    return false;
}

// <custom name="a" value="x"><custom name="b" value="y"/></custom> -> a = x, a/b = y
void read_custom(const pugi::xml_node& node, const std::string& prefix, RTMap& out) {
    const pugi::xml_attribute name = node.attribute("name");
    const std::string key = join_key(prefix, name ? name.value() : node.name());
    if (const pugi::xml_attribute value = node.attribute("value"))
        out[key] = value.value();
    else if (!has_element_children(node))
        out[key] = "";
    for (const auto& child : node.children())
        if (child.type() == pugi::node_element) read_custom(child, key, out);
}

// A name OpenVINO accepts as an element name for a model rt_info key.
bool is_valid_tag(const std::string& name) {
    if (name.empty()) return false;
    for (unsigned char c : name)
        if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
    if (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_') return false;
    if (name.size() >= 3 && (name[0] == 'x' || name[0] == 'X') && (name[1] == 'm' || name[1] == 'M') &&
        (name[2] == 'l' || name[2] == 'L'))
        return false;
    return true;
}

void read_model_tree(const pugi::xml_node& node, const std::string& prefix, RTMap& out) {
    const pugi::xml_attribute info_name = node.attribute("name");
    const bool named = std::strcmp(node.name(), "info") == 0 && info_name;
    const std::string key = join_key(prefix, named ? info_name.value() : node.name());
    if (const pugi::xml_attribute value = node.attribute("value"))
        out[key] = value.value();
    else if (!has_element_children(node))
        out[key] = "";
    for (const auto& child : node.children())
        if (child.type() == pugi::node_element) read_model_tree(child, key, out);
}

// Finds or appends the child of `parent` that stands for key segment `segment`.
pugi::xml_node model_child(pugi::xml_node parent, const std::string& segment) {
    const bool tag = is_valid_tag(segment);
    for (pugi::xml_node c : parent.children()) {
        if (c.type() != pugi::node_element) continue;
        if (tag ? segment == c.name()
                : std::strcmp(c.name(), "info") == 0 && segment == c.attribute("name").value())
            return c;
    }
    if (tag) return parent.append_child(segment.c_str());
    pugi::xml_node c = parent.append_child("info");
    c.append_attribute("name").set_value(segment.c_str());
    return c;
}

pugi::xml_node custom_child(pugi::xml_node parent, const std::string& segment) {
    for (pugi::xml_node c : parent.children("custom"))
        if (segment == c.attribute("name").value()) return c;
    pugi::xml_node c = parent.append_child("custom");
    c.append_attribute("name").set_value(segment.c_str());
    return c;
}

void set_value(pugi::xml_node node, const std::string& value) {
    pugi::xml_attribute a = node.attribute("value");
    if (!a) a = node.append_attribute("value");
    a.set_value(value.c_str());
}

}  // namespace

void read_layer_rt_info(const pugi::xml_node& rt_info, RTMap& out) {
    for (const auto& child : rt_info.children()) {
        if (child.type() != pugi::node_element) continue;
        if (std::strcmp(child.name(), "attribute") != 0) {
            read_custom(child, "", out);
            continue;
        }
        // <attribute name version value/>; an attribute with fields other than `value` keeps
        // each as name/field.
        const std::string name = child.attribute("name").value();
        bool any = false;
        for (const auto& a : child.attributes()) {
            const std::string field = a.name();
            if (field == "name" || field == "version") continue;
            out[field == "value" ? name : name + "/" + field] = a.value();
            any = true;
        }
        if (!any) out[name] = "";
    }
}

void write_layer_rt_info(pugi::xml_node layer, const RTMap& info) {
    if (info.empty()) return;
    pugi::xml_node rt = layer.append_child("rt_info");
    for (const auto& [key, any] : info) {
        const std::string value = any.as<std::string>();
        if (const KnownAttribute* known = known_attribute(key)) {
            pugi::xml_node a = rt.append_child("attribute");
            a.append_attribute("name").set_value(key.c_str());
            a.append_attribute("version").set_value("0");
            if (!(known->flag && value.empty())) a.append_attribute("value").set_value(value.c_str());
            continue;
        }
        pugi::xml_node node = rt;
        for (const auto& segment : split_key(key)) node = custom_child(node, segment);
        set_value(node, value);
    }
}

void read_model_rt_info(const pugi::xml_node& rt_info, RTMap& out) {
    for (const auto& child : rt_info.children())
        if (child.type() == pugi::node_element) read_model_tree(child, "", out);
}

void write_model_rt_info(pugi::xml_node net, const RTMap& info) {
    pugi::xml_node rt = net.append_child("rt_info");
    for (const auto& [key, value] : info) {
        pugi::xml_node node = rt;
        for (const auto& segment : split_key(key)) node = model_child(node, segment);
        set_value(node, value.as<std::string>());
    }
}

}  // namespace mosaic::ir
