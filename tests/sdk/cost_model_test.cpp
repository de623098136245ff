// The SDK's cost model (mosaic/sdk/cost_model.hpp): the default estimate's formula, the same with a
// device's rates (overlapped or added up, a fixed cost per op), and the host cores' rates the CPU
// device and OpenCL CPU devices report, which HETERO's plans turn into predicted stage times.
#include <mosaic/sdk/cost_model.hpp>
#include <mosaic/sdk/owned_graph.hpp>

#include <gtest/gtest.h>

namespace mosaic::sdk {
namespace {

// x [64, 128] f32 MatMul w [128, 32] -> y: 262,144 multiply-adds; 32 KiB + 16 KiB read, 8 KiB written.
struct MatMulGraph {
    OwnedGraph graph;
    MatMulGraph() {
        const ElementType f32 = ElementType::f32;
        graph.nodes.push_back({"Parameter", "opset1", "x", {}, {f32}, {{64, 128}}, {}, {}, nullptr, 0});
        graph.nodes.push_back({"Parameter", "opset1", "w", {}, {f32}, {{128, 32}}, {}, {}, nullptr, 0});
        graph.nodes.push_back({"MatMul", "opset1", "y", {{0, 0}, {1, 0}}, {f32}, {{64, 32}}, {}, {}, nullptr, 0});
        graph.nodes.push_back({"Result", "opset1", "out", {{2, 0}}, {}, {}, {}, {}, nullptr, 0});
    }
    GraphView view() const { return GraphView(graph.view()); }
};

constexpr double kMacs = 64.0 * 128 * 32, kBytes = (64.0 * 128 + 128 * 32 + 64 * 32) * 4;

TEST(CostModel, TheDefaultAddsTrafficAndArithmeticAtOneCoresRates) {
    const MatMulGraph g;
    const OpCost cost = default_op_cost(g.view(), 2);
    EXPECT_DOUBLE_EQ(cost.compute_us, kBytes / kStreamBytesPerUs + kMacs / kMacsPerUs);
    EXPECT_DOUBLE_EQ(cost.bytes_per_us, kHostBytesPerUs);
}

TEST(CostModel, ADevicesRatesOverlapTrafficAndArithmeticAndAddAFixedCost) {
    const MatMulGraph g;
    DeviceRates rates;
    rates.macs_per_us = 1e5, rates.stream_bytes_per_us = 1e3, rates.transfer_bytes_per_us = 5e3, rates.per_op_us = 7;
    EXPECT_DOUBLE_EQ(op_cost(g.view(), 2, rates).compute_us, 7 + kBytes / 1e3 + kMacs / 1e5);
    rates.overlapped = true;
    EXPECT_DOUBLE_EQ(op_cost(g.view(), 2, rates).compute_us, 7 + std::max(kBytes / 1e3, kMacs / 1e5));
    EXPECT_DOUBLE_EQ(op_cost(g.view(), 2, rates).bytes_per_us, 5e3);
}

TEST(CostModel, HostCoresScaleWithTheirCountAndOutrunTheDefault) {
    const DeviceRates one = host_core_rates(1), two = host_core_rates(2);
    EXPECT_DOUBLE_EQ(two.macs_per_us, 2 * one.macs_per_us);
    EXPECT_DOUBLE_EQ(two.stream_bytes_per_us, 2 * one.stream_bytes_per_us);
    EXPECT_GT(one.macs_per_us, 10 * kMacsPerUs) << "vector units at a real clock, not one scalar loop";
    EXPECT_TRUE(one.overlapped);
    EXPECT_DOUBLE_EQ(host_core_rates(0).macs_per_us, one.macs_per_us) << "at least one core";
}

}  // namespace
}  // namespace mosaic::sdk
