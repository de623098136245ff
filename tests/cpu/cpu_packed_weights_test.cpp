// Constant weights packed once per process (plugins/cpu/packed_weights.hpp): the specializations of
// a dynamic model, and models compiled from the same graph, share one packed copy of each weight
// (CPU_PACKED_WEIGHTS says how much they found packed); a copy outlives the compiled model that
// made it while another still reads it, and weights at an address reused by another model are
// packed anew, never taken from a stale copy.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace mosaic::test {
namespace {

// x[rows, 3, 8, 8] -> Convolution 3->16 -> ReduceMean(H, W) -> MatMul [16, 256] -> MatMul [256, 512]
// -> y[rows, 512]: weights big enough that oneDNN packs them into blocked layouts.
std::shared_ptr<Model> conv_and_fc(const Shape& input, uint32_t seed) {
    ModelBuilder b("conv_and_fc");
    Output x = b.parameter("x", ElementType::f32, input);
    Output conv = b.op("Convolution", {x, random_constant(b, {16, 3, 3, 3}, seed, "conv_w")}, conv_attrs(), "conv");
    Output mean = b.op("ReduceMean", {conv, b.constant<int64_t>({2}, {2, 3}, "axes")}, {{"keep_dims", "false"}}, "mean");
    Output fc1 = b.op("MatMul", {mean, random_constant(b, {16, 256}, seed + 1, "fc1_w")}, {}, "fc1");
    b.result(b.op("MatMul", {fc1, random_constant(b, {256, 512}, seed + 2, "fc2_w")}, {}, "fc2"), "y");
    return b.build();
}

struct Packed {
    int64_t bytes, shared_bytes;
};

Packed packed_of(const CompiledModel& compiled) {
    const nlohmann::json p = compiled.get_property("CPU_PACKED_WEIGHTS");
    return {p.at("bytes").get<int64_t>(), p.at("shared_bytes").get<int64_t>()};
}

std::vector<float> infer(CompiledModel& compiled, const Tensor& x) {
    InferRequest r = compiled.create_infer_request();
    r.set_tensor("x", x);
    r.infer();
    return r.get_tensor("y").to_vector<float>();
}

TEST(CpuPackedWeights, SpecializationsOfADynamicModelShareThem) {
    const std::shared_ptr<Model> model = conv_and_fc({-1, 3, 8, 8}, 11);
    CompiledModel compiled = shared_core().compile_model(model, "CPU");
    CompiledModel reference = shared_core().compile_model(model, "REFERENCE");
    for (int64_t rows : {1, 7, 2}) {
        const Tensor x = random_tensor({rows, 3, 8, 8}, static_cast<uint32_t>(rows));
        expect_near_all(infer(reference, x), infer(compiled, x), 1e-4, 1e-4, "rows " + std::to_string(rows));
        const Packed p = packed_of(compiled);  // the latest specialization's
        ASSERT_GT(p.bytes, 0) << "nothing was packed: the test would show nothing";
        // The first shape packs; every later one finds all of it packed.
        EXPECT_EQ(p.shared_bytes, rows == 1 ? 0 : p.bytes) << "rows " << rows;
    }
    EXPECT_EQ(compiled.get_property("DYNAMIC_SHAPE_COMPILATIONS"), 3);
}

TEST(CpuPackedWeights, ACopyOutlivesTheModelThatPackedIt) {
    const std::shared_ptr<Model> model = conv_and_fc({2, 3, 8, 8}, 21);
    const Tensor x = random_tensor({2, 3, 8, 8}, 5);
    std::optional<CompiledModel> first = shared_core().compile_model(model, "CPU");
    const std::vector<float> want = infer(*first, x);
    EXPECT_EQ(packed_of(*first).shared_bytes, 0);
    CompiledModel second = shared_core().compile_model(model, "CPU");
    EXPECT_EQ(packed_of(second).shared_bytes, packed_of(second).bytes);
    first.reset();  // the copies the second reads stay
    EXPECT_EQ(infer(second, x), want);
}

TEST(CpuPackedWeights, WeightsOfAModelGoneAreNeverReused) {
    const Tensor x = random_tensor({2, 3, 8, 8}, 6);
    // Each model's weights are new buffers, likely at the addresses of the last one's, freed: each
    // is packed anew (nothing alive to share) and computes its own weights.
    for (uint32_t seed : {31u, 41u, 51u}) {
        const std::shared_ptr<Model> model = conv_and_fc({2, 3, 8, 8}, seed);
        CompiledModel compiled = shared_core().compile_model(model, "CPU");
        EXPECT_EQ(packed_of(compiled).shared_bytes, 0) << "seed " << seed;
        CompiledModel reference = shared_core().compile_model(model, "REFERENCE");
        expect_near_all(infer(reference, x), infer(compiled, x), 1e-4, 1e-4, "seed " + std::to_string(seed));
    }
}

// CPU_WEIGHTS_IN_PLACE: the MatMuls read their weights where the model holds them (nothing packed
// for them, one copy of an LLM's weights in memory), the convolution still packs its filters, and
// every row count computes what REFERENCE does.
TEST(CpuPackedWeights, InPlaceMatMulWeightsAreNotCopied) {
    const std::shared_ptr<Model> model = conv_and_fc({-1, 3, 8, 8}, 61);
    CompiledModel packed = shared_core().compile_model(model, "CPU");
    CompiledModel in_place = shared_core().compile_model(model, "CPU", {{"CPU_WEIGHTS_IN_PLACE", "YES"}});
    CompiledModel reference = shared_core().compile_model(model, "REFERENCE");
    for (int64_t rows : {1, 7}) {
        const Tensor x = random_tensor({rows, 3, 8, 8}, static_cast<uint32_t>(rows + 60));
        const std::string what = "rows " + std::to_string(rows);
        expect_near_all(infer(reference, x), infer(in_place, x), 1e-4, 1e-4, what);
        expect_near_all(infer(reference, x), infer(packed, x), 1e-4, 1e-4, what);
        const int64_t matmul_weights = (16 * 256 + 256 * 512) * 4;
        EXPECT_GT(packed_of(in_place).bytes, 0) << what << ": the convolution's filters are still packed";
        EXPECT_EQ(packed_of(packed).bytes - packed_of(in_place).bytes, matmul_weights) << what;
    }
}

TEST(CpuPackedWeights, InPlaceTakesOnlyABoolean) {
    const std::shared_ptr<Model> model = conv_and_fc({1, 3, 8, 8}, 71);
    try {
        shared_core().compile_model(model, "CPU", {{"CPU_WEIGHTS_IN_PLACE", "sometimes"}});
        ADD_FAILURE() << "an invalid CPU_WEIGHTS_IN_PLACE was accepted";
    } catch (const std::exception& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("CPU_WEIGHTS_IN_PLACE"), std::string::npos) << m;
        EXPECT_NE(m.find("YES or NO"), std::string::npos) << m;
    }
}

}  // namespace
}  // namespace mosaic::test
