// `mosaic compare`: where a device goes wrong on a model. The model runs on the device and on the
// device taken as right (REFERENCE by default) with every value it computes observed (each op's
// outputs made outputs of the model), and each value is compared; the first op whose error exceeds
// the tolerance while its inputs were within it is named. Observing a value keeps a device from
// fusing across it, so the model also runs as it is: when its outputs disagree though no observed
// value does, the error lives in a fusion, and the value it first reaches is found by observing one
// value at a time (a bisection over the ops in order). The op found can be written as an op case
// (tests/ops/README.md's format), which `verify-plugin --op-cases DIR` and the op tests run.
#pragma once

#include <mosaic/mosaic.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mosaic::cli {

struct CompareSettings {
    std::string device, against = "REFERENCE";
    AnyMap device_properties, against_properties;
    double rtol = 1e-4, atol = 1e-5;  // a value exceeds when max |a - b| > atol + rtol * max |b|
};

// One observed value: output `port` of op `node`.
struct ValueComparison {
    std::string node, type, version;
    size_t port = 0;
    ElementType element_type = ElementType::undefined;
    Shape shape;
    double max_abs = 0;   // largest |device - against|
    double of_range = 0;  // max_abs over the against value's range (max - min; max |b| when flat)
    bool exceeds = false;
    std::string mismatch;  // a shape or type that differs, a NaN on one side only
};

struct ComparisonReport {
    std::vector<ValueComparison> values;   // every observed value, in topological order
    std::vector<ValueComparison> outputs;  // the model's outputs, run as the model is (fusions intact)
    long first_divergence = -1;            // index into `values`; -1: none
    bool found_by_bisection = false;       // the value is wrong only where fusions are intact
    std::string verdict;                   // one sentence for people
};

// Runs `model` (static, or reshaped by the caller) with `inputs` on both devices.
ComparisonReport compare_devices(Core& core, const std::shared_ptr<const Model>& model,
                                 const std::vector<std::pair<std::string, Tensor>>& inputs,
                                 const CompareSettings& settings);

nlohmann::json to_json(const ComparisonReport& report);
void print_report(std::ostream& out, const ComparisonReport& report, const CompareSettings& settings);

// The op of report.values[index] as an op case: its attributes, its inputs' values as the against
// device computed them (Constants marked const), its outputs as the against device computed them.
// Written to DIR/<op name>.json; returns the path.
std::string save_op_case(Core& core, const std::shared_ptr<const Model>& model,
                         const std::vector<std::pair<std::string, Tensor>>& inputs, const CompareSettings& settings,
                         const ComparisonReport& report, size_t index, const std::string& dir);

// For a divergence found by bisection (the op alone agrees: the error is in what the device fuses
// into it), the op with the ops it reads from, one producer deeper at a time up to `max_depth`, until
// the chain alone goes wrong on the device as the model did. Written as an IR test folder
// DIR/<op name>_chain/ (model.xml, test_data_set_0/input_<i>.pb with the values the chain reads as
// the against device computes them, output_<i>.pb its outputs there), which `mosaic conformance -d
// DEVICE` and `verify-plugin DEVICE --model DIR/<op>_chain/model.xml` run. Returns the folder, or ""
// when no chain up to that depth reproduces the error alone.
std::string save_chain_case(Core& core, const std::shared_ptr<const Model>& model,
                            const std::vector<std::pair<std::string, Tensor>>& inputs, const CompareSettings& settings,
                            const ComparisonReport& report, size_t index, const std::string& dir, size_t max_depth = 4);

}  // namespace mosaic::cli
