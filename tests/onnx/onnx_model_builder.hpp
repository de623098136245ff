// Builds small ONNX models in code for the reader tests, so each test states exactly the protobuf
// it feeds the reader (and can damage it on purpose).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace mosaic::test {

inline ::onnx::ModelProto onnx_model(int64_t opset = 13) {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("mosaic-tests");
    auto* op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m.mutable_graph()->set_name("g");
    return m;
}

// dims: -1 makes a dynamic dimension named "batch".
inline void add_value(google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>* list, const std::string& name,
                      int32_t type, const std::vector<int64_t>& dims) {
    auto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (int64_t d : dims) {
        auto* dim = shape->add_dim();
        if (d < 0) dim->set_dim_param("batch");
        else dim->set_dim_value(d);
    }
}

inline void add_input(::onnx::ModelProto& m, const std::string& name, const std::vector<int64_t>& dims,
                      int32_t type = ::onnx::TensorProto::FLOAT) {
    add_value(m.mutable_graph()->mutable_input(), name, type, dims);
}

inline void add_output(::onnx::ModelProto& m, const std::string& name, const std::vector<int64_t>& dims,
                       int32_t type = ::onnx::TensorProto::FLOAT) {
    add_value(m.mutable_graph()->mutable_output(), name, type, dims);
}

inline ::onnx::NodeProto* add_node(::onnx::ModelProto& m, const std::string& op, const std::vector<std::string>& in,
                                   const std::vector<std::string>& out, const std::string& name = "") {
    auto* n = m.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
}

// A float initializer with raw data (or typed float_data when `typed`).
inline ::onnx::TensorProto* add_initializer(::onnx::ModelProto& m, const std::string& name,
                                            const std::vector<int64_t>& dims, const std::vector<float>& values,
                                            bool typed = false) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    if (typed) {
        for (float v : values) t->add_float_data(v);
    } else {
        t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    }
    return t;
}

// An i64 initializer (typed int64_data).
inline ::onnx::TensorProto* add_initializer_i64(::onnx::ModelProto& m, const std::string& name,
                                                const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return t;
}

// Attributes of a node, one setter per attribute type.
inline ::onnx::AttributeProto* add_attribute(::onnx::NodeProto* n, const std::string& name,
                                             ::onnx::AttributeProto::AttributeType type) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
}
inline void set_int(::onnx::NodeProto* n, const std::string& name, int64_t v) {
    add_attribute(n, name, ::onnx::AttributeProto::INT)->set_i(v);
}
inline void set_float(::onnx::NodeProto* n, const std::string& name, float v) {
    add_attribute(n, name, ::onnx::AttributeProto::FLOAT)->set_f(v);
}
inline void set_string(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
    add_attribute(n, name, ::onnx::AttributeProto::STRING)->set_s(v);
}
inline void set_ints(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = add_attribute(n, name, ::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
}

inline void save(const ::onnx::ModelProto& m, const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    m.SerializeToOstream(&out);
}

}  // namespace mosaic::test
