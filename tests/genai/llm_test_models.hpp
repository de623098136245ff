// The LLM folders the genai tests run (tools/models/make_llm_models.py: Llama, GPT-2 and Qwen2
// architectures with random weights, exported by optimum, optimum-intel and ORT GenAI's builder,
// with generate.json: transformers' greedy generations of each prompt), made on first use.
#pragma once

#include "onnx/exporter_models.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace mosaic::genai::test_models {

inline std::filesystem::path llm_folder(const std::string& name) {
    return test::generated_model("llm_models", "llm_" + name, "make_llm_models.py", "--only " + name,
                                 test::torch_exporter_python(), "generate.json");
}

inline nlohmann::json expected_generations(const std::filesystem::path& folder) {
    std::ifstream in(folder / "generate.json");
    return nlohmann::json::parse(in);
}

}  // namespace mosaic::genai::test_models

#define NEED_LLM(folder, name)                                                                                    \
    if (folder.empty())                                                                                           \
    GTEST_SKIP() << "torch, transformers and optimum(-intel) are needed to export llm_" << name                  \
                 << " (bash scripts/install_model_exporters.sh; see build/llm_models/llm_" << name << ".log)"
