// The C++ code of OpenVINO's HETERO guide (the seed documents), run on Mosaic: each snippet is
// copied as written with ov:: spelled mosaic::, and "operation_name" is a real op of the model.
// Each mode's result is checked against the REFERENCE device and its split against what the
// snippet asked for. Prints "PASS <mode>" per mode; any failure exits non-zero naming it.
//
//   hetero_seeds MODEL.xml
#include <mosaic/mosaic.hpp>

#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void check(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error(what);
}

// Runs one inference on fixed inputs and returns every output's values.
std::vector<std::vector<float>> run(mosaic::CompiledModel& compiled) {
    mosaic::InferRequest request = compiled.create_infer_request();
    for (const auto& input : compiled.inputs()) {
        mosaic::Tensor t(input.get_element_type(), input.get_shape());
        float* data = t.data<float>();
        for (size_t i = 0; i < t.get_size(); ++i) data[i] = static_cast<float>((i * 37) % 101) / 101.0f - 0.5f;
        request.set_tensor(input, t);
    }
    request.infer();
    std::vector<std::vector<float>> out;
    for (const auto& output : compiled.outputs()) {
        mosaic::Tensor t = request.get_tensor(output);
        if (t.get_element_type() == mosaic::element::f32) out.push_back(t.to_vector<float>());
        else if (t.get_element_type() == mosaic::element::i64)
            for (int64_t v : t.to_vector<int64_t>()) out.push_back({static_cast<float>(v)});
        else if (t.get_element_type() == mosaic::element::i32)
            for (int32_t v : t.to_vector<int32_t>()) out.push_back({static_cast<float>(v)});
    }
    return out;
}

void check_outputs(mosaic::CompiledModel& compiled, const std::vector<std::vector<float>>& expected,
                   const std::string& mode) {
    const auto got = run(compiled);
    check(got.size() == expected.size(), mode + ": output count differs from REFERENCE");
    for (size_t o = 0; o < got.size(); ++o) {
        check(got[o].size() == expected[o].size(), mode + ": output size differs from REFERENCE");
        for (size_t i = 0; i < got[o].size(); ++i)
            check(std::fabs(got[o][i] - expected[o][i]) <= 1e-3f + 1e-3f * std::fabs(expected[o][i]),
                  mode + ": output " + std::to_string(o) + "[" + std::to_string(i) + "] = " +
                      std::to_string(got[o][i]) + ", REFERENCE gives " + std::to_string(expected[o][i]));
    }
}

// HETERO's split (Mosaic's own property): op -> device.
nlohmann::json split_of(const mosaic::CompiledModel& compiled) {
    nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    if (split.is_string()) split = nlohmann::json::parse(split.get<std::string>());
    return split.at("affinity");
}

std::string first_op_of_type(const std::shared_ptr<mosaic::Model>& model, const std::string& type) {
    for (auto&& op : model->get_ordered_ops())
        if (op->get_type_name() == type) return op->get_friendly_name();
    throw std::runtime_error("the model has no " + type);
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc != 2) {
        std::cerr << "usage: hetero_seeds MODEL.xml\n";
        return 2;
    }
    const std::string path = argv[1];
    mosaic::Core core;
    std::vector<std::vector<float>> expected;
    {
        auto compiled = core.compile_model(core.read_model(path), "REFERENCE");
        expected = run(compiled);
    }

    {  // The Manual Mode
        auto model = core.read_model(path);
        for (auto && op : model->get_ops()) {
            op->get_rt_info()["affinity"] = "CPU";
        }
        auto compiled_model = core.compile_model(model, "HETERO:GPU,CPU");
        check_outputs(compiled_model, expected, "manual");
        const nlohmann::json split = split_of(compiled_model);
        for (auto it = split.begin(); it != split.end(); ++it)
            check(*it == "CPU", "manual: op '" + it.key() + "' ran on " + it->dump() + ", not CPU");
        std::cout << "PASS manual\n";
    }

    {  // The Automatic Mode
        auto model = core.read_model(path);
        auto compiled_model = core.compile_model(model, "HETERO:GPU,CPU");
        check_outputs(compiled_model, expected, "automatic HETERO:GPU,CPU");
        const nlohmann::json automatic = split_of(compiled_model);
        // or with ov::device::priorities with multiple args
        compiled_model = core.compile_model(model, "HETERO", mosaic::device::priorities("GPU", "CPU"));
        check_outputs(compiled_model, expected, "automatic priorities(\"GPU\", \"CPU\")");
        check(split_of(compiled_model) == automatic, "priorities(\"GPU\", \"CPU\") split differently");
        // or with ov::device::priorities with a single argument
        compiled_model = core.compile_model(model, "HETERO", mosaic::device::priorities("GPU,CPU"));
        check_outputs(compiled_model, expected, "automatic priorities(\"GPU,CPU\")");
        check(split_of(compiled_model) == automatic, "priorities(\"GPU,CPU\") split differently");
        bool gpu = false;
        for (const auto& device : automatic) gpu = gpu || device == "GPU";
        check(gpu, "automatic: no op went to the GPU");
        std::cout << "PASS automatic\n";
    }

    {  // Using Manual and Automatic Modes in Combination
        auto model = core.read_model(path);
        const std::string operation_name = first_op_of_type(model, "Convolution");

        // This example demonstrates how to perform default affinity initialization and then
        // correct affinity manually for some layers
        const std::string device = "HETERO:GPU,CPU";

        // query_model result contains mapping of supported operations to devices
        auto supported_ops = core.query_model(model, device);

        // update default affinities manually for specific operations
        supported_ops[operation_name] = "CPU";

        // set affinities to a model
        for (auto&& node : model->get_ops()) {
            auto& affinity = supported_ops[node->get_friendly_name()];
            // Store affinity mapping using op runtime information
            node->get_rt_info()["affinity"] = affinity;
        }

        // load model with manually set affinities
        auto compiled_model = core.compile_model(model, device);

        check_outputs(compiled_model, expected, "combined");
        check(split_of(compiled_model).at(operation_name) == "CPU", "combined: '" + operation_name + "' is not on CPU");
        check(model->get_op(operation_name)->get_rt_info().at("affinity").as<std::string>() == "CPU",
              "combined: the affinity does not read back");
        // query_model does not depend on affinities set by a user.
        check(core.query_model(model, device).at(operation_name) == "GPU",
              "combined: query_model followed the user's affinity");
        std::cout << "PASS combined\n";
    }

    {  // Configure fallback devices
        auto model = core.read_model(path);
        auto compiled_model = core.compile_model(model, "HETERO",
            // GPU with fallback to CPU
            mosaic::device::priorities("GPU", "CPU"),
            // profiling is enabled only for GPU
            mosaic::device::properties("GPU", mosaic::enable_profiling(true)),
            // FP32 inference precision only for CPU
            mosaic::device::properties("CPU", mosaic::hint::inference_precision(mosaic::element::f32))
        );
        check_outputs(compiled_model, expected, "fallback devices");
        auto request = compiled_model.create_infer_request();
        for (const auto& input : compiled_model.inputs())
            request.set_tensor(input, mosaic::Tensor(input.get_element_type(), input.get_shape()));
        request.infer();
        check(!request.get_profiling_info().empty(), "fallback devices: the GPU subgraph has no profiling records");
        std::cout << "PASS fallback devices (" << request.get_profiling_info().size() << " profiling records)\n";
    }

    {  // What a mistake gets: a clear error, not a crash.
        auto model = core.read_model(path);
        try {
            model->get_op("operation_name")->get_rt_info()["affinity"] = "CPU";
            check(false, "get_op of a missing name did not throw");
        } catch (const mosaic::ModelError& e) {
            std::cout << "error as expected: " << e.what() << "\n";
        }
        for (auto&& op : model->get_ops()) op->get_rt_info()["affinity"] = "NPU";
        try {
            core.compile_model(model, "HETERO:GPU,CPU");
            check(false, "an affinity outside the device list compiled");
        } catch (const std::exception& e) {
            check(std::string(e.what()).find("not in the HETERO device list GPU,CPU") != std::string::npos,
                  std::string("unexpected error: ") + e.what());
            std::cout << "error as expected: " << e.what() << "\n";
        }
        std::cout << "PASS errors\n";
    }
    return 0;
} catch (const std::exception& e) {
    std::cerr << "FAIL: " << e.what() << "\n";
    return 1;
}
