// What the exporter suites' tests (paddle2onnx, tf2onnx, torch dynamo, ovc) do with a generated
// model's data sets: run them through one compiled model, every output against the exporting
// framework's, and a device that must refuse the model say which op it lacks.
#pragma once

#include "exporter_models.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

namespace mosaic::test {

// Tensor `index` of data set `set`: an input (`output` false) or an output of the exporting framework.
using DataSetReader = std::function<Tensor(int set, bool output, size_t index)>;

// ONNX's backend-test layout: folder/test_data_set_<set>/input_<i>.pb and output_<i>.pb.
inline DataSetReader backend_test_reader(const std::filesystem::path& folder) {
    return [folder](int set, bool output, size_t i) {
        const std::string file = (output ? "output_" : "input_") + std::to_string(i) + ".pb";
        return onnx::read_tensor_file((folder / ("test_data_set_" + std::to_string(set)) / file).string());
    };
}

// Runs data sets 0..sets-1 on one request of `compiled`, each output within `of_range` of the
// framework's range (expect_within_range), printing each largest difference; `what` names the model
// and device in the messages.
inline void expect_data_sets(CompiledModel& compiled, const std::string& what, int sets, const DataSetReader& read,
                             double of_range) {
    InferRequest request = compiled.create_infer_request();
    for (int k = 0; k < sets; ++k) {
        for (size_t i = 0; i < compiled.inputs().size(); ++i) request.set_input_tensor(i, read(k, false, i));
        request.infer();
        for (size_t i = 0; i < compiled.outputs().size(); ++i) {
            const Tensor want = read(k, true, i);
            const std::string where = what + ", data set " + std::to_string(k) + ", output " + std::to_string(i) +
                                      " " + to_string(want.get_shape());
            const double error = expect_within_range(request.get_output_tensor(i), want, where, of_range);
            std::printf("%s: largest difference %.3g of the range\n", where.c_str(), error);
        }
    }
}

// `device` alone refuses `model` naming `op` (HETERO places it elsewhere), when the first inference
// brings the shapes to compile for (data set 0's inputs).
inline void expect_refused(Core& core, const std::shared_ptr<Model>& model, const std::string& device,
                           const DataSetReader& read, const std::string& op) {
    try {
        CompiledModel compiled = core.compile_model(model, device);
        InferRequest request = compiled.create_infer_request();
        for (size_t i = 0; i < compiled.inputs().size(); ++i) request.set_input_tensor(i, read(0, false, i));
        request.infer();
        ADD_FAILURE() << "ran on " << device << " alone";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
    }
}

}  // namespace mosaic::test
