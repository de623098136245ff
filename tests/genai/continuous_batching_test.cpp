// ContinuousBatchingPipeline (OpenVINO GenAI's shape): several requests decoded together give what
// each gives alone (transformers' greedy tokens, LLMPipeline's texts), requests join from another
// thread while steps run and are read as they grow, a dropped request frees its row for a waiting
// one, and bad requests are refused when added.
#include <mosaic/genai/continuous_batching_pipeline.hpp>
#include <mosaic/genai/llm_pipeline.hpp>

#include <gtest/gtest.h>

#include "llm_test_models.hpp"

#include <atomic>
#include <thread>

namespace mosaic::genai {
namespace {

using test_models::expected_generations;
using test_models::llm_folder;

class ContinuousBatching : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ContinuousBatching, EachRequestGetsWhatItGetsAlone) {
    const auto& [name, device] = GetParam();
    const std::filesystem::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    const nlohmann::json expected = expected_generations(folder);
    ContinuousBatchingPipeline pipe(folder, {3}, device);
    GenerationConfig config = pipe.get_config();
    config.max_new_tokens = expected["max_new_tokens"].get<size_t>();
    config.ignore_eos = true;  // generate.json's generations run to max_new_tokens
    std::vector<std::vector<int64_t>> ids;
    std::vector<std::string> texts;
    for (const auto& prompt : expected["prompts"]) {
        ids.push_back(prompt["ids"].get<std::vector<int64_t>>());
        texts.push_back(prompt["text"].get<std::string>());
    }
    ASSERT_GE(ids.size(), 4u) << "more prompts than rows";
    const std::vector<EncodedGenerationResult> encoded = pipe.generate(ids, {config});
    ASSERT_EQ(encoded.size(), ids.size());
    for (size_t p = 0; p < ids.size(); ++p) {
        EXPECT_EQ(encoded[p].m_status, GenerationStatus::FINISHED);
        EXPECT_EQ(encoded[p].m_generation_ids.at(0), expected["prompts"][p]["generated"].get<std::vector<int64_t>>())
            << name << " on " << device << ", prompt " << p;
    }
    EXPECT_EQ(pipe.last_step_rows(), 1u) << "the last request finished alone";
    // Texts: LLMPipeline's, one prompt at a time (stop ids and strings as it handles them).
    GenerationConfig stopping = pipe.get_config();
    stopping.max_new_tokens = 20;
    const std::vector<GenerationResult> batched = pipe.generate(texts, {stopping});
    LLMPipeline alone(folder, device);
    for (size_t p = 0; p < texts.size(); ++p)
        EXPECT_EQ(batched[p].m_generation_ids.at(0), alone.generate(texts[p], stopping).texts.at(0)) << "prompt " << p;
}

INSTANTIATE_TEST_SUITE_P(Models, ContinuousBatching,
                         ::testing::Combine(::testing::Values("llama", "qwen2_ov", "gpt2_ov"), ::testing::Values("CPU", "GPU")),
                         [](const auto& info) { return test::model_device_name(info); });

// A serving loop: one thread steps while another adds requests and reads them as they grow; a
// request dropped midway ends CANCEL and its row goes to a waiting request. On REFERENCE, whose
// threads are all the test's: scripts/test.sh runs it under TSan.
TEST(ContinuousBatchingRequests, JoinWhileSteppingReadAsTheyGrowAndDropFreesARow) {
    const std::filesystem::path folder = llm_folder("llama");
    NEED_LLM(folder, "llama");
    ContinuousBatchingPipeline pipe(folder, {2}, "REFERENCE");
    GenerationConfig config = pipe.get_config();
    config.max_new_tokens = 40;
    config.ignore_eos = true;
    std::atomic<bool> stop{false};
    std::thread loop([&] {
        while (!stop) {
            if (pipe.has_non_finished_requests()) pipe.step();
            else std::this_thread::yield();
        }
    });
    GenerationHandle first = pipe.add_request(1, "The quick brown fox", config);
    GenerationHandle second = pipe.add_request(2, "Once upon a time", config);
    GenerationHandle third = pipe.add_request(3, "In a galaxy far away", config);  // waits for a row
    // Read the first as it grows, drop the second after a few tokens.
    std::string pieces;
    size_t read_ids = 0;
    while (first->get_status() == GenerationStatus::RUNNING || first->can_read()) {
        const GenerationOutput out = first->read();
        pieces += out.text;
        read_ids += out.generated_ids.size();
        if (second->read_all().generated_ids.size() >= 5) second->drop();
        std::this_thread::yield();
    }
    while (third->get_status() == GenerationStatus::RUNNING) std::this_thread::yield();
    stop = true;
    loop.join();
    EXPECT_EQ(first->get_status(), GenerationStatus::FINISHED);
    EXPECT_EQ(read_ids, 40u);
    EXPECT_EQ(pieces, first->read_all().text);
    EXPECT_EQ(second->get_status(), GenerationStatus::CANCEL);
    EXPECT_LT(second->read_all().generated_ids.size(), 40u);
    EXPECT_EQ(third->get_status(), GenerationStatus::FINISHED);
    EXPECT_EQ(third->read_all().generated_ids.size(), 40u);
    // The third alone gives the same text.
    LLMPipeline alone(folder, "REFERENCE");
    EXPECT_EQ(third->read_all().text, alone.generate("In a galaxy far away", config).texts.at(0));
}

// A device that fails (here a GPU given less memory than the weights, which the first step's
// compilation finds) ends the requests of the failed step IGNORED, frees their rows, and step()
// throws the device's error; nothing is left waiting for ever.
TEST(ContinuousBatchingRequests, AFailedStepEndsItsRequestsIgnoredAndSaysWhy) {
    const std::filesystem::path folder = llm_folder("llama");
    NEED_LLM(folder, "llama");
    ContinuousBatchingPipeline pipe(folder, {2}, "GPU", {{"GPU_ZERO_COPY", false}, {"DEVICE_MEMORY_LIMIT", int64_t{65536}}});
    const GenerationHandle handle = pipe.add_request(1, std::vector<int64_t>{1, 2, 3}, pipe.get_config());
    try {
        pipe.step();
        ADD_FAILURE() << "the step ran within 64 KiB";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("DEVICE_MEMORY_LIMIT"), std::string::npos) << e.what();
    }
    EXPECT_EQ(handle->get_status(), GenerationStatus::IGNORED);
    EXPECT_FALSE(pipe.has_non_finished_requests());
}

TEST(ContinuousBatchingRequests, BadRequestsAreRefusedWhenAdded) {
    const std::filesystem::path folder = llm_folder("llama");
    NEED_LLM(folder, "llama");
    EXPECT_THROW(ContinuousBatchingPipeline(folder, {0}, "CPU"), std::invalid_argument);
    ContinuousBatchingPipeline pipe(folder, {2}, "CPU");
    GenerationConfig config = pipe.get_config();
    EXPECT_THROW(pipe.add_request(1, std::vector<int64_t>{}, config), std::invalid_argument);
    config.temperature = -1;
    config.do_sample = true;
    EXPECT_THROW(pipe.add_request(1, "hello", config), std::invalid_argument);
    config = pipe.get_config();
    config.max_length = 4;
    try {
        pipe.add_request(1, std::vector<int64_t>{1, 2, 3, 4, 5}, config);
        ADD_FAILURE() << "a prompt longer than max_length";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("leaves no room for a new token"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(pipe.has_non_finished_requests()) << "nothing refused was queued";
    const std::filesystem::path ort = llm_folder("llama_ort");
    if (!ort.empty()) {
        EXPECT_THROW(ContinuousBatchingPipeline(ort, {2}, "CPU"), std::runtime_error);
    }
}

}  // namespace
}  // namespace mosaic::genai
