// HETERO_AFFINITY_PATTERNS {"regex": "DEVICE"} (llama.cpp's -ot by op name): ops whose name a
// pattern finds go to its device as if their affinity were set by hand, before the automatic
// placement places the rest; the split and its outputs are REFERENCE's. A pattern that names a
// device outside the list, is not a regular expression, sends an op to a device that cannot run
// it, or shares an op with a pattern for another device is an error naming it.
#include "hetero/hetero_test_util.hpp"
#include "common/test_checks.hpp"

namespace mosaic::test::hetero {
namespace {

const std::string kDevice = "HETERO:ACCEL,REFERENCE";

AnyMap patterns(const AnyMap& map) { return {{"HETERO_AFFINITY_PATTERNS", map}}; }

TEST(HeteroAffinityPatterns, OpsANamePatternFindsGoToItsDeviceAndTheRestAsBefore) {
    Core core;
    const auto model = scattered_chain_model();
    const AnyMap props = patterns({{"^(conv|relu)[23]$", "REFERENCE"}});
    const QueryResult q = core.query_model_details(model, kDevice, props);
    EXPECT_EQ(q.affinity.at("conv1"), "ACCEL") << "not found by the pattern: placed automatically";
    EXPECT_EQ(q.affinity.at("relu1"), "ACCEL");
    for (const char* op : {"conv2", "relu2", "conv3", "relu3"}) {
        EXPECT_EQ(q.affinity.at(op), "REFERENCE") << op;
        EXPECT_NE(q.explanation.at(op).find("by HETERO_AFFINITY_PATTERNS"), std::string::npos) << q.explanation.at(op);
    }
    CompiledModel compiled = core.compile_model(model, kDevice, props);
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    for (const std::string& op : compute_ops(*model)) EXPECT_EQ(split["affinity"][op], q.affinity.at(op)) << op;
    // Before: conv1, relu1 | sigmoid | conv2, relu2 | tanh | conv3, relu3; now two subgraphs.
    EXPECT_EQ(split["subgraphs"].size(), 2u) << split.dump();
    EXPECT_TRUE(matches_reference(core, model, kDevice, props));
}

TEST(HeteroAffinityPatterns, APatternThatCannotBeHonouredIsAnErrorNamingIt) {
    Core core;
    const auto model = scattered_chain_model();
    const std::string unknown = error_of([&] { core.compile_model(model, kDevice, patterns({{"conv", "GPU"}})); });
    EXPECT_NE(unknown.find("HETERO_AFFINITY_PATTERNS maps 'conv' to \"GPU\", which is not a device of the HETERO list "
                           "ACCEL,REFERENCE"),
              std::string::npos)
        << unknown;
    const std::string regex = error_of([&] { core.compile_model(model, kDevice, patterns({{"conv[", "REFERENCE"}})); });
    EXPECT_NE(regex.find("'conv[' is not a valid regular expression"), std::string::npos) << regex;
    const std::string cannot = error_of([&] { core.compile_model(model, kDevice, patterns({{"sigmoid", "ACCEL"}})); });
    EXPECT_NE(cannot.find("op 'sigmoid' (Sigmoid) matches a HETERO_AFFINITY_PATTERNS pattern for ACCEL, but ACCEL "
                          "cannot run it"),
              std::string::npos)
        << cannot;
    const std::string both = error_of([&] {
        core.compile_model(model, kDevice, patterns({{"conv", "ACCEL"}, {"[23]$", "REFERENCE"}}));
    });
    EXPECT_NE(both.find("op 'conv2' matches HETERO_AFFINITY_PATTERNS"), std::string::npos) << both;
    EXPECT_NE(both.find("make the patterns exclusive"), std::string::npos) << both;
    // The query answers the same errors as compile: nothing is placed quietly elsewhere.
    EXPECT_NE(error_of([&] { core.query_model_details(model, kDevice, patterns({{"sigmoid", "ACCEL"}})); }).find("cannot run it"),
              std::string::npos);
}

}  // namespace
}  // namespace mosaic::test::hetero
