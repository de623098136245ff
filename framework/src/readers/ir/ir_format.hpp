// Conventions of the IR format shared by the reader and the writer: op type spellings, port
// precisions, dims, tensor-name lists and the encoding of rt_info.
#pragma once

#include <mosaic/element_type.hpp>
#include <mosaic/model.hpp>

#include <pugixml.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mosaic::ir {

// OpenVINO writes a few op types under legacy IR spellings (Const, ReLU, SoftMax, PReLU) and reads
// both; the model uses the opset spelling.
std::string op_type_from_ir(const std::string& ir_type);
std::string op_type_to_ir(const std::string& op_type);

// Port precisions as OpenVINO writes them ("FP32", "I64", "BOOL").
const char* precision_name(ElementType type);
// Whether a port precision says "not known" ("UNSPECIFIED", "dynamic", "undefined").
bool is_unspecified_precision(std::string_view precision);

// One dim of a port or of a shape attribute: a number >= 0, or a dynamic dim ("?", "-1", or a
// range such as "1..10", "..10", "2.."), which becomes kDynamicDim. nullopt when it is neither.
std::optional<int64_t> parse_dim(std::string_view text);
// A comma-separated shape attribute ("1,3,?,224", "" for a scalar). On failure returns nullopt and
// sets `bad_item` to the offending dim.
std::optional<Shape> parse_shape_attr(const std::string& text, std::string* bad_item);

// Tensor names of a port: comma separated, a comma inside a name escaped as "\,".
std::vector<std::string> split_tensor_names(const std::string& text);
std::string join_tensor_names(const std::vector<std::string>& names);

// Per-layer <rt_info>: <attribute name version value/> (OpenVINO runtime attributes) and
// <custom name value/> (free-form entries, possibly nested), flattened to "a/b" -> value.
void read_layer_rt_info(const pugi::xml_node& rt_info, RTMap& out);
void write_layer_rt_info(pugi::xml_node layer, const RTMap& info);

// Model-level <rt_info>: nested elements flattened to "a/b/c" -> value; names that are not valid
// XML tags are written as <info name="..."> as OpenVINO does.
void read_model_rt_info(const pugi::xml_node& rt_info, RTMap& out);
void write_model_rt_info(pugi::xml_node net, const RTMap& info);

}  // namespace mosaic::ir
