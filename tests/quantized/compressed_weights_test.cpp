// Compressed weights as ONNX Runtime writes them: com.microsoft MatMulNBits (its MatMul4BitsQuantizer,
// ONNX Runtime GenAI's builder with -p int4), read as the dequantization it defines and run on the
// CPU by the compressed MatMul (plugins/cpu/compressed_matmul_executor.hpp) and on the GPU by its
// own (plugins/gpu/ops/compressed_matmul_ops.cpp), both keeping the codes in memory. Every result is checked against the operator's definition computed here in double:
// Y = A . ((codes - zero point) * scale)^T + bias, per block of block_size codes along K.
#include "cpu/cpu_test_util.hpp"
#include "quantized/quantized_test_util.hpp"

#include <gtest/gtest.h>

#include <mosaic/sdk/status.hpp>

#include <algorithm>
#include <tuple>

namespace mosaic::test {
namespace {

enum class ZeroPoints { none, packed, floats };

struct NBits {
    int64_t rows = 1, k = 64, n = 40;  // A [1, rows, K], B N x K
    int64_t bits = 4, block = 32;
    ZeroPoints zero_points = ZeroPoints::none;
    bool bias = false;
    bool residual = false;  // Y + r, an input of Y's shape (the CPU fuses it)
    uint32_t seed = 1;
};

// The model and the operator's result on input `a`, computed from the same codes.
struct NBitsCase {
    std::shared_ptr<Model> model;
    Inputs inputs;
    std::vector<float> expected;
};

NBitsCase nbits_case(const NBits& p) {
    const int64_t blocks = (p.k + p.block - 1) / p.block, levels = int64_t{1} << p.bits;
    std::mt19937 rng(p.seed);
    std::uniform_int_distribution<int> code(0, static_cast<int>(levels - 1));
    std::uniform_real_distribution<float> scale_of(0.01f, 0.05f);
    std::vector<uint8_t> codes(static_cast<size_t>(p.n * blocks * p.block));  // one per code; the padding's are 0
    for (int64_t r = 0; r < p.n; ++r)
        for (int64_t c = 0; c < p.k; ++c) codes[static_cast<size_t>(r * blocks * p.block + c)] = static_cast<uint8_t>(code(rng));
    std::vector<float> scale(static_cast<size_t>(p.n * blocks)), zero(scale.size(), static_cast<float>(levels / 2));
    for (float& s : scale) s = scale_of(rng);
    if (p.zero_points != ZeroPoints::none)
        for (float& z : zero) z = static_cast<float>(code(rng));

    // B packed low bits first: blob_size = block * bits / 8 bytes per block.
    const int64_t per_byte = 8 / p.bits;
    std::vector<uint8_t> packed(codes.size() / static_cast<size_t>(per_byte), 0);
    for (size_t i = 0; i < codes.size(); ++i)
        packed[i / per_byte] |= static_cast<uint8_t>(codes[i] << ((i % per_byte) * p.bits));

    QdqModel q(21);
    auto* ms = q.proto().add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
    q.input("a", {1, p.rows, p.k});
    add_raw_initializer<uint8_t>(q.proto(), "b", ::onnx::TensorProto::UINT8, {p.n, blocks, p.block * p.bits / 8}, packed);
    add_initializer(q.proto(), "scales", {p.n * blocks}, scale);
    std::vector<std::string> in{"a", "b", "scales"};
    if (p.zero_points == ZeroPoints::packed) {  // each row of N starts on a byte
        const int64_t row_bytes = (blocks * p.bits + 7) / 8;
        std::vector<uint8_t> zp(static_cast<size_t>(p.n * row_bytes), 0);
        for (int64_t r = 0; r < p.n; ++r)
            for (int64_t b = 0; b < blocks; ++b)
                zp[static_cast<size_t>(r * row_bytes + b / per_byte)] |= static_cast<uint8_t>(
                    static_cast<int>(zero[static_cast<size_t>(r * blocks + b)]) << ((b % per_byte) * p.bits));
        add_raw_initializer<uint8_t>(q.proto(), "zp", ::onnx::TensorProto::UINT8, {p.n * row_bytes}, zp);
        in.push_back("zp");
    } else if (p.zero_points == ZeroPoints::floats) {
        add_initializer(q.proto(), "zp", {p.n, blocks}, zero);
        in.push_back("zp");
    }
    const std::vector<float> bias = random_values(static_cast<size_t>(p.n), p.seed + 7);
    if (p.bias) {
        add_initializer(q.proto(), "bias", {p.n}, bias);
        while (in.size() < 5) in.push_back("");
        in.push_back("bias");
    }
    auto* node = add_node(q.proto(), "MatMulNBits", in, {"y"}, "nbits");
    node->set_domain("com.microsoft");
    set_int(node, "K", p.k);
    set_int(node, "N", p.n);
    set_int(node, "bits", p.bits);
    set_int(node, "block_size", p.block);
    set_int(node, "accuracy_level", 4);
    std::string out = "y";
    if (p.residual) {
        q.input("r", {1, p.rows, p.n});
        add_node(q.proto(), "Add", {"y", "r"}, {"sum"}, "residual");
        out = "sum";
    }
    q.output(out, {1, p.rows, p.n});

    NBitsCase c;
    c.model = q.read("matmul_nbits");
    const std::vector<float> a = random_values(static_cast<size_t>(p.rows * p.k), p.seed + 3);
    const std::vector<float> r = random_values(static_cast<size_t>(p.rows * p.n), p.seed + 5);
    c.inputs["a"] = Tensor::from_vector({1, p.rows, p.k}, ElementType::f32, a);
    if (p.residual) c.inputs["r"] = Tensor::from_vector({1, p.rows, p.n}, ElementType::f32, r);
    for (int64_t i = 0; i < p.rows; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
            double y = p.bias ? bias[static_cast<size_t>(j)] : 0.0;
            for (int64_t c2 = 0; c2 < p.k; ++c2) {
                const size_t g = static_cast<size_t>(j * blocks + c2 / p.block);
                const double w = (codes[static_cast<size_t>(j * blocks * p.block + c2)] - double(zero[g])) * scale[g];
                y += a[static_cast<size_t>(i * p.k + c2)] * w;
            }
            if (p.residual) y += r[static_cast<size_t>(i * p.n + j)];
            c.expected.push_back(static_cast<float>(y));
        }
    return c;
}

std::string exec_type_of(const std::shared_ptr<Model>& model, const std::string& node) {
    for (const auto& e : shared_core().compile_model(model, "CPU").get_property("CPU_EXECUTORS"))
        if (e.at("name") == node) return e.at("exec_type");
    return "(no executor named " + node + ")";
}

// Every device against the definition; the CPU's MatMul runs `exec` (compressed_4bit: two codes
// to a byte; compressed_8bit: a code to a byte, when blocks are not a multiple of 32), the GPU's its
// compressed kernel (the codes a byte each in device memory).
void expect_definition(const NBits& p, std::initializer_list<const char*> exec) {
    const NBitsCase c = nbits_case(p);
    for (const char* device : {"REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU"}) {
        const RunResult got = run_on(c.model, device, c.inputs, {{"PERF_COUNT", true}});
        expect_near_all(c.expected, got.outputs.at(0), 1e-4, 1e-4, device);
        if (std::string(device) == "GPU")
            EXPECT_TRUE(contains(contents(got.profile), "compressed_matmul_") && contains(contents(got.profile), "_u8"))
                << contents(got.profile);
    }
    const std::string ran = exec_type_of(c.model, p.residual ? "residual" : "nbits");
    for (const char* part : exec) EXPECT_TRUE(contains(ran, part)) << ran << " lacks " << part;
}

TEST(MatMulNBits, FourBitsSymmetricOneRow) {
    expect_definition({}, {"compressed_4bit"});
}

TEST(MatMulNBits, PackedZeroPointsBlocksOf16) {
    NBits p;
    p.zero_points = ZeroPoints::packed;
    p.block = 16;
    p.n = 37;  // not a multiple of the 8 rows the kernel streams together
    expect_definition(p, {"compressed_8bit"});
}

TEST(MatMulNBits, EightBitsFloatZeroPointsThreeRows) {
    NBits p;
    p.bits = 8;
    p.zero_points = ZeroPoints::floats;
    p.rows = 3;
    p.k = 96;
    expect_definition(p, {"compressed_8bit"});
}

TEST(MatMulNBits, APromptRunsOnTilesWithBiasAndResidual) {
    NBits p;
    p.rows = 20;
    p.k = 128;
    p.n = 70;
    p.bias = true;
    p.residual = true;
    p.zero_points = ZeroPoints::packed;
    expect_definition(p, {"compressed_4bit", ":sgemm"});
}

TEST(MatMulNBits, TwoBitCodes) {
    NBits p;
    p.bits = 2;
    p.zero_points = ZeroPoints::packed;
    expect_definition(p, {"compressed_4bit"});  // codes 0..3 fit 4 bits
}

// K not a multiple of the block: the last block is padded, the reader slices it off; the CPU runs
// the decompression as ops then (not a compressed MatMul), still right.
TEST(MatMulNBits, PaddedLastBlock) {
    NBits p;
    p.k = 40;
    p.block = 16;
    const NBitsCase c = nbits_case(p);
    for (const char* device : {"REFERENCE", "CPU"})
        expect_near_all(c.expected, run_on(c.model, device, c.inputs).outputs.at(0), 1e-4, 1e-4, device);
}

// Two compilations of one model (an LLM's prompt and decode shapes) share the repacked codes.
TEST(MatMulNBits, CompiledModelsShareTheCompressedWeights) {
    const NBitsCase c = nbits_case({});
    CompiledModel first = shared_core().compile_model(c.model, "CPU");
    CompiledModel second = shared_core().compile_model(c.model, "CPU");
    const nlohmann::json one = first.get_property("CPU_PACKED_WEIGHTS"), two = second.get_property("CPU_PACKED_WEIGHTS");
    // 40 rows of 64 codes of 4 bits, each padded to a block of 64 bytes (128 codes), and 40 x 2
    // scales and zero points
    EXPECT_EQ(one.at("bytes"), 40u * 64u + 40u * 2u * 2u * 4u) << one.dump();
    EXPECT_EQ(two.at("shared_bytes"), two.at("bytes")) << two.dump();
}

// DYNAMIC_QUANTIZATION_GROUP_SIZE (OpenVINO's property): A's rows quantized to int8 in groups of
// 32 for VNNI's integer dot products, where this CPU has them. The result moves by A's rounding to
// 8 bits (at most half a step of 1/127 of each group's largest value): within 1% of the output's
// range of the definition here, on every shape the blocks meet (groups of 32, 64 and 128, 4- and
// 8-bit codes, rows that do not fill a tile).
TEST(MatMulNBits, DynamicQuantizationOfTheActivations) {
    const bool vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
    for (const auto& [bits, block, n] : {std::tuple{4, 32, 40}, {4, 64, 37}, {4, 128, 24}, {8, 32, 21}, {8, 64, 16}}) {
        NBits p;
        p.bits = bits;
        p.block = block;
        p.n = n;
        p.k = 256;
        p.rows = 2;
        p.zero_points = ZeroPoints::packed;
        const NBitsCase c = nbits_case(p);
        AnyMap config;
        add_property(config, hint::dynamic_quantization_group_size(32));  // OpenVINO's spelling: ov::hint::...
        const std::vector<float> got = run_on(c.model, "CPU", c.inputs, config).outputs.at(0);
        const auto [lo, hi] = std::minmax_element(c.expected.begin(), c.expected.end());
        expect_near_all(c.expected, got, 0.01 * (*hi - *lo), 0, "bits " + std::to_string(bits) + ", block " + std::to_string(block));
        double worst = 0;
        for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - c.expected[i]));
        std::string ran;
        for (const auto& e : shared_core().compile_model(c.model, "CPU", config).get_property("CPU_EXECUTORS"))
            if (e.at("name") == "nbits") ran = e.at("exec_type");
        if (!vnni) continue;  // the exact kernel runs instead
        EXPECT_TRUE(contains(ran, "avx512_vnni_I8")) << ran;
        EXPECT_GT(worst, 1e-6) << "the activations were not quantized";
    }
}

TEST(MatMulNBits, ADynamicQuantizationGroupNotAMultipleOf32) {
    const NBitsCase c = nbits_case({});
    const std::string e = error_of([&] { shared_core().compile_model(c.model, "CPU", {{"DYNAMIC_QUANTIZATION_GROUP_SIZE", 20}}); });
    EXPECT_TRUE(contains(e, "DYNAMIC_QUANTIZATION_GROUP_SIZE") && contains(e, "multiple of 32, got 20")) << e;
}

// OpenVINO IR's form (NNCF's int4 with --sym): i4 codes (read into i8) in groups of 32 with f16
// scales, decompressed in f16, reshaped to [N, K], converted to f32. The CPU keeps them 4-bit and
// decompresses in f32 (as OpenVINO's CPU plugin does), so it differs from REFERENCE, which rounds
// each weight to f16 as the graph says, by that rounding (2^-11 of a weight) only.
TEST(CompressedIrWeights, SignedFourBitGroupsDecompressedInF16) {
    const int64_t n = 24, groups = 3, group = 32, k = groups * group;
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> code(-8, 7);
    std::vector<int8_t> codes(static_cast<size_t>(n * k));
    for (int8_t& c : codes) c = static_cast<int8_t>(code(rng));
    std::vector<uint16_t> scale(static_cast<size_t>(n * groups));
    for (size_t i = 0; i < scale.size(); ++i) scale[i] = f32_to_f16(0.01f + 0.001f * static_cast<float>(i % 13));
    ModelBuilder b("ir_int4");
    const Output x = b.parameter("x", ElementType::f32, {1, 2, k});
    Output w = b.op("Convert", {b.constant<int8_t>({n, groups, group}, codes)}, {{"destination_type", "f16"}});
    w = b.op("Multiply", {w, b.constant(ElementType::f16, {n, groups, 1}, Buffer::from_vector(scale))});
    w = b.op("Reshape", {w, b.constant<int64_t>({2}, {n, k})}, {{"special_zero", "false"}});
    w = b.op("Convert", {w}, {{"destination_type", "f32"}});
    b.result(b.op("MatMul", {x, w}, {{"transpose_a", "false"}, {"transpose_b", "true"}}, "matmul"), "y");
    const std::shared_ptr<Model> model = b.build();
    const Inputs inputs{{"x", random_tensor({1, 2, k}, 5)}};
    expect_matches_reference(model, inputs, {}, 2e-3, 2e-3);
    EXPECT_TRUE(contains(exec_type_of(model, "matmul"), "compressed_4bit")) << exec_type_of(model, "matmul");
    const RunResult gpu = run_on(model, "GPU", inputs, {{"PERF_COUNT", true}});  // its signed-code kernel
    expect_near_all(run_on(model, "REFERENCE", inputs).outputs[0], gpu.outputs[0], 2e-3, 2e-3, "GPU");
    EXPECT_TRUE(contains(contents(gpu.profile), "compressed_matmul_") && contains(contents(gpu.profile), "_i8"))
        << contents(gpu.profile);
    // 24 rows of 96 codes of 4 bits in one block of 64 bytes each, and their scales and zero points
    EXPECT_EQ(shared_core().compile_model(model, "CPU").get_property("CPU_PACKED_WEIGHTS").at("bytes"),
              static_cast<size_t>(n * 64 + n * groups * 2 * 4));
}

// NNCF's int8 embedding tied to the head: one decompression (u8 codes, a zero point and an f16 scale
// per row) read by the Gather of the tokens' rows and by the head's MatMul. Both read the codes
// (nothing folds the table to f32); a negative index counts from the end, one out of range gives
// zeros (Gather-8), as on REFERENCE.
TEST(CompressedIrWeights, TiedEmbeddingAndHead) {
    const int64_t vocab = 50, hidden = 32;
    std::mt19937 rng(21);
    std::uniform_int_distribution<int> code(0, 255);
    std::vector<uint8_t> codes(static_cast<size_t>(vocab * hidden)), zero(static_cast<size_t>(vocab));
    for (uint8_t& c : codes) c = static_cast<uint8_t>(code(rng));
    for (uint8_t& z : zero) z = static_cast<uint8_t>(code(rng));
    std::vector<uint16_t> scale(static_cast<size_t>(vocab));
    for (size_t i = 0; i < scale.size(); ++i) scale[i] = f32_to_f16(0.002f + 0.0001f * static_cast<float>(i % 11));
    ModelBuilder b("tied");
    const Output tokens = b.parameter("tokens", ElementType::i64, {1, 4});
    const Output x = b.parameter("x", ElementType::f32, {1, 1, hidden});
    Output w = b.op("Convert", {b.constant<uint8_t>({vocab, hidden}, codes)}, {{"destination_type", "f16"}});
    const Output zp = b.op("Convert", {b.constant<uint8_t>({vocab, 1}, zero)}, {{"destination_type", "f16"}});
    w = b.op("Multiply", {b.op("Subtract", {w, zp}), b.constant(ElementType::f16, {vocab, 1}, Buffer::from_vector(scale))});
    w = b.op("Convert", {w}, {{"destination_type", "f32"}});
    b.result(b.op("Gather", {w, tokens, b.constant<int64_t>({}, {0})}, {{"batch_dims", "0"}}, "embedding"), "rows");
    b.result(b.op("MatMul", {x, w}, {{"transpose_a", "false"}, {"transpose_b", "true"}}, "head"), "logits");
    const std::shared_ptr<Model> model = b.build();
    const Inputs inputs{{"tokens", Tensor::from_vector<int64_t>({1, 4}, ElementType::i64, {3, -1, 60, 0})},
                        {"x", random_tensor({1, 1, hidden}, 6)}};
    const RunResult cpu = expect_matches_reference(model, inputs, {}, 2e-3, 2e-3);
    for (int64_t h = 0; h < hidden; ++h) EXPECT_EQ(cpu.outputs[0][static_cast<size_t>(2 * hidden + h)], 0.0f);
    const RunResult gpu = run_on(model, "GPU", inputs, {{"PERF_COUNT", true}});  // the same on the GPU
    for (size_t o = 0; o < 2; ++o) expect_near_all(cpu.outputs[o], gpu.outputs[o], 1e-4, 1e-4, "GPU");
    EXPECT_TRUE(contains(contents(gpu.profile), "compressed_gather_u8_i64")) << contents(gpu.profile);
    EXPECT_TRUE(contains(exec_type_of(model, "embedding"), "compressed_8bit")) << exec_type_of(model, "embedding");
    EXPECT_TRUE(contains(exec_type_of(model, "head"), "compressed_8bit")) << exec_type_of(model, "head");
    // One repacked copy for both (the second executor finds the first's), counted by each: 52 rows
    // (whole tiles of 4) of one 64-byte block, and a scale and zero point per row.
    const nlohmann::json packed = shared_core().compile_model(model, "CPU").get_property("CPU_PACKED_WEIGHTS");
    EXPECT_EQ(packed.at("bytes"), 2u * static_cast<size_t>(52 * 64 + vocab * 2 * 4)) << packed.dump();
    EXPECT_EQ(packed.at("shared_bytes"), packed.at("bytes").get<size_t>() / 2) << packed.dump();
}

// Group scales that do not divide the weights into groups (an IR's [N, K / G, G] codes with scales
// for one group more): the decompression's Multiply cannot broadcast them, named when the model is
// built, as when an IR is read.
TEST(CompressedIrWeights, ScalesOfAnotherGroupCount) {
    ModelBuilder b("bad_groups");
    const Output codes = b.constant<uint8_t>({4, 2, 16}, std::vector<uint8_t>(128, 7));
    const Output w = b.op("Convert", {codes}, {{"destination_type", "f32"}});
    const std::string e = error_of([&] {
        b.op("Multiply", {w, b.constant<float>({4, 3, 1}, std::vector<float>(12, 0.1f))}, {}, "decompress");
    });
    EXPECT_TRUE(contains(e, "decompress") && contains(e, "[4,2,16]") && contains(e, "[4,3,1]")) << e;
}

// What a broken MatMulNBits gets: an error naming the node and the attribute or input to fix.
class MatMulNBitsErrors : public ::testing::Test {
protected:
    std::string error_reading(const std::function<void(::onnx::NodeProto*, ::onnx::ModelProto&)>& broken) {
        NBits p;
        QdqModel q(21);
        auto* ms = q.proto().add_opset_import();
        ms->set_domain("com.microsoft");
        ms->set_version(1);
        q.input("a", {1, 1, 64});
        add_raw_initializer<uint8_t>(q.proto(), "b", ::onnx::TensorProto::UINT8, {40, 2, 16}, std::vector<uint8_t>(40 * 32, 0x88));
        add_initializer(q.proto(), "scales", {80}, std::vector<float>(80, 0.01f));
        auto* node = add_node(q.proto(), "MatMulNBits", {"a", "b", "scales"}, {"y"}, "nbits");
        node->set_domain("com.microsoft");
        set_int(node, "K", 64);
        set_int(node, "N", 40);
        set_int(node, "bits", 4);
        set_int(node, "block_size", 32);
        broken(node, q.proto());
        q.output("y", {1, 1, 40});
        return error_of([&] { q.read("matmul_nbits_error"); });
    }
    static void set(::onnx::NodeProto* node, const std::string& name, int64_t value) {
        for (auto& a : *node->mutable_attribute())
            if (a.name() == name) a.set_i(value);
    }
};

TEST_F(MatMulNBitsErrors, TheTemplateReads) {
    EXPECT_EQ(error_reading([](auto*, auto&) {}), "(no error)");
}

TEST_F(MatMulNBitsErrors, ABlockSizeNotAPowerOfTwo) {
    const std::string e = error_reading([](auto* n, auto&) { set(n, "block_size", 24); });
    EXPECT_TRUE(contains(e, "nbits") && contains(e, "block_size=24 must be a power of two")) << e;
}

TEST_F(MatMulNBitsErrors, WeightsOfAnotherShape) {
    const std::string e = error_reading([](auto* n, auto&) { set(n, "N", 41); });
    EXPECT_TRUE(contains(e, "nbits") && contains(e, "input B must be uint8 of shape [41,2,16]") &&
                contains(e, "got u8 [40,2,16]"))
        << e;
}

TEST_F(MatMulNBitsErrors, UnsupportedBits) {
    const std::string e = error_reading([](auto* n, auto&) { set(n, "bits", 3); });
    EXPECT_TRUE(contains(e, "nbits") && contains(e, "bits=3 is not supported")) << e;
}

TEST_F(MatMulNBitsErrors, AnActOrderIndex) {
    const std::string e = error_reading([](auto* n, auto& m) {
        add_raw_initializer<int32_t>(m, "g_idx", ::onnx::TensorProto::INT32, {64}, std::vector<int32_t>(64, 0));
        n->add_input("");
        n->add_input("g_idx");
    });
    EXPECT_TRUE(contains(e, "nbits") && contains(e, "g_idx")) << e;
}

TEST_F(MatMulNBitsErrors, AnInputOfAnotherWidth) {
    const std::string e = error_reading([](auto* n, auto&) { set(n, "K", 32); });
    EXPECT_TRUE(contains(e, "nbits") && contains(e, "last dimension is 64 but attribute K is 32")) << e;
}

TEST_F(MatMulNBitsErrors, PackedZeroPointsOfAnotherLength) {
    const std::string e = error_reading([](auto* n, auto& m) {
        add_raw_initializer<uint8_t>(m, "zp", ::onnx::TensorProto::UINT8, {7}, std::vector<uint8_t>(7, 0x88));
        n->add_input("zp");
    });
    EXPECT_TRUE(contains(e, "nbits") && contains(e, "packed uint8 zero_points must hold 40 bytes")) << e;
}

}  // namespace
}  // namespace mosaic::test
