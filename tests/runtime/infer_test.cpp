// Compiling and running models on REFERENCE through Core: results, tensors, errors, profiling.
#include "common/test_models.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <sstream>
#include <thread>

namespace mosaic::test {
namespace {

TEST(Infer, ConvReluMatchesHandComputedValues) {
    Core core;
    CompiledModel compiled = core.compile_model(conv_relu_model(), "REFERENCE");
    ASSERT_EQ(compiled.inputs().size(), 1u);
    EXPECT_EQ(compiled.inputs()[0].name, "x");
    EXPECT_EQ(compiled.outputs()[0].name, "y");
    EXPECT_EQ(compiled.outputs()[0].shape, (Shape{1, 2, 4, 4}));
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    request.infer();
    EXPECT_EQ(request.get_tensor("y").to_vector<float>(), conv_relu_expected());
}

TEST(Infer, OutputIsReachableByResultFriendlyNameAndIndex) {
    Core core;
    CompiledModel compiled = core.compile_model(conv_relu_model(), "REFERENCE");
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(iota_tensor({1, 1, 4, 4}));
    request.infer();
    EXPECT_EQ(request.get_output_tensor(0).to_vector<float>(), conv_relu_expected());
}

TEST(Infer, WrongShapeTensorIsRejectedNamingInputAndShapes) {
    Core core;
    InferRequest request = core.compile_model(conv_relu_model(), "REFERENCE").create_infer_request();
    try {
        request.set_tensor("x", Tensor(ElementType::f32, {1, 1, 5, 4}));
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("[1,1,4,4]"), std::string::npos) << msg;
        EXPECT_NE(msg.find("[1,1,5,4]"), std::string::npos) << msg;
    }
    // The request still works after the rejected tensor.
    request.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    request.infer();
    EXPECT_EQ(request.get_tensor("y").to_vector<float>(), conv_relu_expected());
}

TEST(Infer, WrongElementTypeIsRejected) {
    Core core;
    InferRequest request = core.compile_model(conv_relu_model(), "REFERENCE").create_infer_request();
    try {
        request.set_tensor("x", Tensor(ElementType::i32, {1, 1, 4, 4}));
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("expects f32"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("i32"), std::string::npos) << e.what();
    }
}

TEST(Infer, UnknownTensorNameListsTheKnownOnes) {
    Core core;
    InferRequest request = core.compile_model(conv_relu_model(), "REFERENCE").create_infer_request();
    try {
        request.get_tensor("nope");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("x, y"), std::string::npos) << e.what();
    }
}

TEST(Infer, AsyncWithCallbackAndWait) {
    Core core;
    InferRequest request = core.compile_model(conv_relu_model(), "REFERENCE").create_infer_request();
    request.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    std::atomic<int> calls{0};
    std::exception_ptr seen = std::make_exception_ptr(std::runtime_error("not called"));
    request.set_callback([&](std::exception_ptr e) {
        seen = e;
        ++calls;
    });
    request.start_async();
    request.wait();
    EXPECT_EQ(calls.load(), 1);
    EXPECT_EQ(seen, nullptr);
    EXPECT_EQ(request.get_tensor("y").to_vector<float>(), conv_relu_expected());
    // Again, to show the request is reusable.
    request.start_async();
    EXPECT_TRUE(request.wait_for(std::chrono::seconds(30)));
    EXPECT_EQ(calls.load(), 2);
}

TEST(Infer, CallbackCanRestartTheRequest) {
    Core core;
    InferRequest request = core.compile_model(conv_relu_model(), "REFERENCE").create_infer_request();
    request.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    std::atomic<int> runs{0};
    request.set_callback([&](std::exception_ptr) {
        if (++runs < 5) request.start_async();
    });
    request.start_async();
    for (int spins = 0; runs < 5 && spins < 3000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    request.wait();
    EXPECT_EQ(runs.load(), 5);
}

TEST(Infer, ProfilingRecordsEveryExecutedOpWhenPerfCountIsOn) {
    Core core;
    CompiledModel compiled = core.compile_model(conv_relu_model(), "REFERENCE", {properties::enable_profiling(true)});
    InferRequest request = compiled.create_infer_request();
    request.infer();
    std::vector<ProfilingInfo> records = request.get_profiling_info();
    std::vector<std::string> names;
    for (const auto& r : records) {
        names.push_back(r.node_name);
        EXPECT_EQ(r.exec_type, "ref");
        EXPECT_EQ(r.status, ProfilingInfo::Status::executed);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"conv", "add", "relu"}));
    EXPECT_EQ(records[0].node_type, "Convolution");

    InferRequest quiet = core.compile_model(conv_relu_model(), "REFERENCE").create_infer_request();
    quiet.infer();
    EXPECT_TRUE(quiet.get_profiling_info().empty());
}

TEST(Infer, CompiledModelProperties) {
    Core core;
    CompiledModel compiled = core.compile_model(conv_relu_model(), "REFERENCE");
    EXPECT_EQ(compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"), 1);
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), nlohmann::json::array({"REFERENCE"}));
    EXPECT_EQ(compiled.get_property("NETWORK_NAME"), "conv_relu");
    EXPECT_THROW(compiled.get_property("NO_SUCH_THING"), std::runtime_error);
}

TEST(Infer, ModelMayBeEditedAfterCompilation) {
    Core core;
    auto model = conv_relu_model();
    CompiledModel compiled = core.compile_model(model, "REFERENCE");
    model->find_node("relu")->set_friendly_name("renamed");
    model.reset();  // the compiled model keeps its own snapshot and weights
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    request.infer();
    EXPECT_EQ(request.get_tensor("y").to_vector<float>(), conv_relu_expected());
}

}  // namespace
}  // namespace mosaic::test

namespace mosaic::test {
namespace {

TEST(ExportImport, ReferenceModelRoundTripsThroughABlob) {
    Core core;
    CompiledModel compiled = core.compile_model(conv_relu_model(), "REFERENCE");
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = core.import_model(blob, "REFERENCE");
    EXPECT_EQ(imported.inputs()[0].name, "x");
    EXPECT_EQ(imported.outputs()[0].shape, (Shape{1, 2, 4, 4}));
    InferRequest r = imported.create_infer_request();
    r.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    r.infer();
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), conv_relu_expected());
}

TEST(ExportImport, CorruptOrForeignBlobsAreRejected) {
    Core core;
    std::stringstream junk("not a model");
    EXPECT_THROW(core.import_model(junk, "REFERENCE"), std::runtime_error);

    CompiledModel compiled = core.compile_model(conv_relu_model(), "REFERENCE");
    std::stringstream blob;
    compiled.export_model(blob);
    std::string text = blob.str();
    std::stringstream truncated(text.substr(0, text.size() - 10));
    try {
        core.import_model(truncated, "REFERENCE");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
    std::stringstream other(text);
    try {
        core.import_model(other, "ACCEL");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("exported from device 'REFERENCE'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mosaic::test

namespace mosaic::test {
namespace {

TEST(InferCallbacks, ThrowingCallbackNeitherKillsNorHangs) {
    Core core;
    InferRequest r = core.compile_model(conv_relu_model(), "REFERENCE").create_infer_request();
    r.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    r.set_callback([](std::exception_ptr) { throw std::runtime_error("boom from a callback"); });
    r.start_async();
    EXPECT_TRUE(r.wait_for(std::chrono::seconds(30)));
    r.set_callback(nullptr);
    r.infer();
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), conv_relu_expected());
}

TEST(InferCallbacks, CallbackMayDropTheLastHandle) {
    Core core;
    CompiledModel compiled = core.compile_model(conv_relu_model(), "REFERENCE");
    auto request = std::make_unique<InferRequest>(compiled.create_infer_request());
    std::promise<std::vector<float>> result;
    InferRequest* raw = request.get();
    raw->set_tensor("x", iota_tensor({1, 1, 4, 4}));
    raw->set_callback([&, owned = std::shared_ptr<InferRequest>(request.release())](std::exception_ptr) mutable {
        std::vector<float> y = owned->get_tensor("y").to_vector<float>();
        owned->set_callback(nullptr);  // destroys this lambda's copy of `owned`: the last handle
        result.set_value(std::move(y));
    });
    raw->start_async();
    auto future = result.get_future();
    ASSERT_EQ(future.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    EXPECT_EQ(future.get(), conv_relu_expected());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let the request's teardown finish
}

}  // namespace
}  // namespace mosaic::test
