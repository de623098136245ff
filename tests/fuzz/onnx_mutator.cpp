// A structure-aware mutator for the targets that take ONNX models (onnx_reader, reference_plugin).
// Byte mutations of a protobuf mostly break its encoding, so the reader's parser refuses them and
// the translators behind it are rarely reached. Half of the mutations here parse the model and
// change one thing in it that a translator looks at (an op type, an attribute, a dimension, an
// opset, which tensor a node reads), then serialize it again; the other half are libFuzzer's own.
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

const int64_t kInteresting[] = {-1, 0, 1, 2, 3, 7, 64, -2, 1 << 20, INT32_MAX, INT64_MAX, INT64_MIN};

// Op types whose translators take attributes and shapes apart (and the bugs were found in).
const char* const kOpTypes[] = {"Scan", "Loop", "If", "EyeLike", "Shape", "Reshape", "Expand", "ConstantOfShape", "Range",
                                "Slice", "Gather", "Concat", "Split", "Squeeze", "Unsqueeze", "Transpose", "Tile", "Pad",
                                "Resize", "TopK", "CumSum", "OneHot", "Trilu", "Einsum", "Conv", "ConvTranspose",
                                "MaxPool", "LSTM", "GRU", "RNN", "Cast", "CastLike", "Where", "NonZero", "Compress",
                                "ReduceSum", "Softmax", "MatMul", "Gemm", "Flatten", "DepthToSpace", "GridSample"};

using Rng = std::mt19937_64;

template <typename T>
size_t pick(Rng& rng, const T& container) {
    return static_cast<size_t>(rng() % container.size());
}
int64_t interesting(Rng& rng) { return kInteresting[rng() % std::size(kInteresting)]; }

void mutate_node(::onnx::GraphProto& g, Rng& rng) {
    auto& node = *g.mutable_node(static_cast<int>(pick(rng, g.node())));
    switch (rng() % 4) {
        case 0: node.set_op_type(kOpTypes[rng() % std::size(kOpTypes)]); break;
        case 1:  // read another tensor of the graph, or nothing
            if (node.input_size() > 0) {
                const auto& other = g.node(static_cast<int>(pick(rng, g.node())));
                const std::string name = other.output_size() ? other.output(0) : "";
                node.set_input(static_cast<int>(pick(rng, node.input())), rng() % 4 ? name : "");
            }
            break;
        case 2:  // an attribute's value
            if (node.attribute_size() > 0) {
                auto& a = *node.mutable_attribute(static_cast<int>(pick(rng, node.attribute())));
                if (a.ints_size() > 0) a.set_ints(static_cast<int>(pick(rng, a.ints())), interesting(rng));
                else if (a.has_g() && a.g().node_size() > 0) mutate_node(*a.mutable_g(), rng);
                else a.set_i(interesting(rng));
            }
            break;
        default: *g.add_node() = node; break;  // the node twice
    }
}

void mutate_dims(::onnx::GraphProto& g, Rng& rng) {
    auto* values = rng() % 2 || g.output_size() == 0 ? g.mutable_input() : g.mutable_output();
    if (values->empty()) return;
    auto* type = (*values)[static_cast<int>(pick(rng, *values))].mutable_type()->mutable_tensor_type();
    if (rng() % 4 == 0) type->set_elem_type(static_cast<int32_t>(rng() % 17));
    auto* shape = type->mutable_shape();
    if (shape->dim_size() == 0 || rng() % 4 == 0) shape->add_dim()->set_dim_value(interesting(rng));
    else shape->mutable_dim(static_cast<int>(pick(rng, shape->dim())))->set_dim_value(interesting(rng));
}

bool mutate_model(::onnx::ModelProto& m, Rng& rng) {
    auto& g = *m.mutable_graph();
    switch (rng() % 4) {
        case 0: if (g.node_size() == 0) return false; mutate_node(g, rng); return true;
        case 1: mutate_dims(g, rng); return true;
        case 2:
            if (m.opset_import_size() == 0) return false;
            m.mutable_opset_import(0)->set_version(static_cast<int64_t>(1 + rng() % 21));
            return true;
        default:  // an initializer's shape, its data left as it is
            if (g.initializer_size() == 0) return false;
            auto& t = *g.mutable_initializer(static_cast<int>(pick(rng, g.initializer())));
            if (t.dims_size() > 0 && rng() % 2) t.set_dims(static_cast<int>(pick(rng, t.dims())), interesting(rng));
            else t.add_dims(interesting(rng));
            return true;
    }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
    Rng rng(seed);
    ::onnx::ModelProto m;
    if (rng() % 2 == 0 || !m.ParseFromArray(data, static_cast<int>(size)) || !mutate_model(m, rng))
        return LLVMFuzzerMutate(data, size, max_size);
    const std::string bytes = m.SerializeAsString();
    if (bytes.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memcpy(data, bytes.data(), bytes.size());
    return bytes.size();
}
