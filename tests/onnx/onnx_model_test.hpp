// A test fixture that saves models built with onnx_model_builder.hpp into a folder of its own
// (removed after the test) and reads them back, or reads the error a bad one gets.
#pragma once

#include "onnx_model_builder.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

namespace mosaic::test {

class OnnxModelTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = std::filesystem::temp_directory_path() /
               ("mosaic_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::shared_ptr<Model> read(const ::onnx::ModelProto& m) {
        const std::string file = (dir_ / "m.onnx").string();
        save(m, file);
        return onnx::read_onnx(file);
    }

    std::string read_error(const ::onnx::ModelProto& m) {
        try {
            read(m);
        } catch (const ModelError& e) {
            return e.what();
        }
        return "no error";
    }

    std::filesystem::path dir_;
};

}  // namespace mosaic::test
