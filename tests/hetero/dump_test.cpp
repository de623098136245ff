// Graphviz dumps of the affinity and of the subgraphs: asked for by HETERO_VISUALIZE or the
// environment (MOSAIC_HETERO_VISUALIZE / OPENVINO_HETERO_VISUALIZE), written into HETERO_DUMP_DIR,
// also readable as compiled-model properties; `dot` must render them.
#include "hetero/hetero_test_util.hpp"

#include <sstream>

namespace mosaic::test::hetero {
namespace {

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path affinity_dot(const fs::path& dir, const Model& model) { return dir / ("hetero_affinity_" + model.get_friendly_name() + ".dot"); }
fs::path subgraphs_dot(const fs::path& dir, const Model& model) { return dir / ("hetero_subgraphs_" + model.get_friendly_name() + ".dot"); }

// Checks that both files exist, look like Graphviz graphs of this split, and equal the properties.
void expect_dumps(const fs::path& dir, const Model& model, const CompiledModel& compiled) {
    const fs::path a = affinity_dot(dir, model), s = subgraphs_dot(dir, model);
    ASSERT_TRUE(fs::exists(a)) << a << " was not written; the folder holds: " << [&] {
        std::string names;
        for (const auto& e : fs::directory_iterator(dir)) names += " " + e.path().filename().string();
        return names;
    }();
    ASSERT_TRUE(fs::exists(s)) << s << " was not written";
    const std::string affinity = read_text(a), subgraphs = read_text(s);
    EXPECT_CONTAINS(affinity, "digraph");
    EXPECT_CONTAINS(subgraphs, "digraph");
    for (const std::string& text : {affinity, subgraphs}) {
        EXPECT_CONTAINS(text, "ACCEL");
        EXPECT_CONTAINS(text, "REFERENCE");
    }
    EXPECT_CONTAINS(affinity, "conv1");
    EXPECT_CONTAINS(affinity, "sigmoid");
    EXPECT_EQ(compiled.get_property("HETERO_AFFINITY_DOT"), affinity);
    EXPECT_EQ(compiled.get_property("HETERO_SUBGRAPHS_DOT"), subgraphs);
}

TEST(HeteroDumps, EnvironmentVariableWritesBothFiles) {
    Core core;
    auto model = scattered_chain_model();
    TempDir dir("dump-env");
    ScopedEnv env("MOSAIC_HETERO_VISUALIZE", "1");
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_DUMP_DIR", dir.path().string()}});
    expect_dumps(dir.path(), *model, compiled);
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

TEST(HeteroDumps, OpenVinoEnvironmentVariableToo) {
    Core core;
    auto model = scattered_chain_model();
    TempDir dir("dump-ov-env");
    ScopedEnv unset_ours("MOSAIC_HETERO_VISUALIZE", "0");
    ScopedEnv env("OPENVINO_HETERO_VISUALIZE", "1");
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_DUMP_DIR", dir.path().string()}});
    expect_dumps(dir.path(), *model, compiled);
}

TEST(HeteroDumps, PropertyWritesBothFiles) {
    Core core;
    auto model = scattered_chain_model();
    TempDir dir("dump-prop");
    CompiledModel compiled = core.compile_model(
        model, "HETERO:ACCEL,REFERENCE", {{"HETERO_VISUALIZE", true}, {"HETERO_DUMP_DIR", dir.path().string()}});
    expect_dumps(dir.path(), *model, compiled);
}

TEST(HeteroDumps, NothingWrittenUnlessAsked) {
    Core core;
    auto model = scattered_chain_model();
    TempDir dir("dump-none");
    ScopedEnv quiet("MOSAIC_HETERO_VISUALIZE", "0"), quiet_ov("OPENVINO_HETERO_VISUALIZE", "0");
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_DUMP_DIR", dir.path().string()}});
    EXPECT_TRUE(fs::is_empty(dir.path()));
    // The texts are available anyway.
    EXPECT_CONTAINS(compiled.get_property("HETERO_AFFINITY_DOT").get<std::string>(), "digraph");
}

TEST(HeteroDumps, DotRendersThem) {
    if (std::system("command -v dot >/dev/null 2>&1") != 0) GTEST_SKIP() << "Graphviz `dot` is not on PATH";
    Core core;
    TempDir dir("dump-dot");
    // Names with characters Graphviz treats specially must be quoted in the dump.
    ModelBuilder b("odd_names");
    Output x = b.parameter("x \"in\"", ElementType::f32, {1, 2, 4, 4});
    Output y = b.op("Relu", {conv(b, x, 2, 2, "block-1/conv:0", 1)}, {}, "block-1/relu {a}");
    b.result(b.op("Sigmoid", {y}, {}, "sig->moid"), "y");
    auto branchy = branchy_model();
    auto odd = b.build();
    for (const auto& model : {scattered_chain_model(), branchy, odd}) {
        SCOPED_TRACE(model->get_friendly_name());
        core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE",
                           {{"HETERO_VISUALIZE", true}, {"HETERO_DUMP_DIR", dir.path().string()}});
        for (const fs::path& dot : {affinity_dot(dir.path(), *model), subgraphs_dot(dir.path(), *model)}) {
            ASSERT_TRUE(fs::exists(dot)) << dot;
            const fs::path svg = dot.string() + ".svg";
            const std::string cmd = "dot -Tsvg '" + dot.string() + "' -o '" + svg.string() + "' 2>'" + svg.string() + ".err'";
            EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << read_text(svg.string() + ".err") << "\n" << read_text(dot);
            EXPECT_CONTAINS(read_text(svg), "<svg");
        }
    }
}

}  // namespace
}  // namespace mosaic::test::hetero
