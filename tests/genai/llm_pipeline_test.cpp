// LLMPipeline on decoder LLMs as optimum and optimum-intel export them (tools/models/make_llm_models.py:
// Llama, GPT-2 and Qwen2 architectures with random weights, each as past/present ONNX and as a
// stateful IR, and with int8/int4 compressed weights from optimum-intel and ONNX Runtime GenAI's
// builder), on every device: greedy generations of 64 tokens identical to transformers' generate
// (to OpenVINO's and ONNX Runtime GenAI's on the compressed models), the first step's logits within
// 1e-4 of their range, sampling reproducible by seed, streaming, and what bad input gets.
#include <mosaic/genai/chat_template.hpp>
#include <mosaic/genai/llm_pipeline.hpp>

#include <gtest/gtest.h>

#include "batched_decoder.hpp"
#include "decoder_model.hpp"
#include "llm_test_models.hpp"
#include "onnx/exporter_models.hpp"
#include "onnx/onnx_model_builder.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <unistd.h>

namespace mosaic::genai {
namespace {

namespace fs = std::filesystem;

constexpr double kOfRange = 1e-4;
// An IR with compressed weights multiplies the codes by their scales in f16. OpenVINO's CPU plugin
// decompresses in f32 inside its MatMul and Gather, as Mosaic's CPU and GPU do (3e-7 of the range
// apart); REFERENCE computes the graph as written, each weight rounded to f16 (2.3e-4 to 2.5e-4).
constexpr double kCompressedIrOfRange = 5e-4;

double logits_tolerance(const std::string& name) {
    return name.find("_ov_int") != std::string::npos ? kCompressedIrOfRange : kOfRange;
}

using test_models::expected_generations;
using test_models::llm_folder;

class LlmOn : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(LlmOn, GreedyTokensEqualTransformers) {
    const auto& [name, device] = GetParam();
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    const nlohmann::json expected = expected_generations(folder);
    LLMPipeline pipe(folder, device);
    GenerationConfig config = pipe.get_generation_config();
    config.max_new_tokens = expected["max_new_tokens"].get<size_t>();
    size_t tokens = 0;
    for (const auto& prompt : expected["prompts"]) {
        const auto ids = prompt["ids"].get<std::vector<int64_t>>();
        const EncodedResults got = pipe.generate(ids, config);
        ASSERT_EQ(got.tokens.size(), 1u);
        EXPECT_EQ(got.tokens[0], prompt["generated"].get<std::vector<int64_t>>())
            << name << " on " << device << ", prompt " << prompt["text"];
        tokens += got.tokens[0].size();
        EXPECT_EQ(got.perf_metrics.num_input_tokens, ids.size());
        EXPECT_EQ(got.perf_metrics.token_ms.size(), got.tokens[0].size());
    }
    std::printf("llm_%s on %s: %zu tokens identical to generate.json's\n", name.c_str(), device.c_str(), tokens);
}

TEST_P(LlmOn, FirstLogitsEqualTransformers) {
    const auto& [name, device] = GetParam();
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    Core core;
    auto decoder = open_decoder(core, folder, device, {});
    double worst = 0;
    const nlohmann::json expected = expected_generations(folder);
    ASSERT_FALSE(expected["prompts"].empty());
    for (const auto& prompt : expected["prompts"]) {
        decoder->reset();
        const std::vector<float> got = decoder->step(prompt["ids"].get<std::vector<int64_t>>());
        const auto want = prompt["first_logits"].get<std::vector<float>>();
        ASSERT_EQ(got.size(), want.size());
        const auto [lo, hi] = std::minmax_element(want.begin(), want.end());
        for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]) / (*hi - *lo));
    }
    EXPECT_LE(worst, logits_tolerance(name)) << name << " on " << device;
    std::printf("llm_%s on %s: first logits within %.3g of their range\n", name.c_str(), device.c_str(), worst);
}

// The cache keeps its shape between decode steps: a prompt and 64 new tokens compile the prompt's
// shape and one per capacity the cache grows to (64, then 128), not one per token. (ONNX Runtime
// GenAI's builder models take no position_ids: the positions come from the mask's length, so their
// cache grows as the model returns it, a shape per step.)
TEST_P(LlmOn, DecodeStepsReuseOneCompilation) {
    const auto& [name, device] = GetParam();
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    // On the CPU, told CPU_WEIGHTS_IN_PLACE=NO, the weights are packed once and every later
    // specialization shares them; by default the pipeline reads f32 weights where the model holds
    // them (one copy in memory; compressed weights are repacked either way).
    std::optional<size_t> packed_bytes;
    for (const bool defaults : {false, true}) {
        if (!defaults && device != "CPU") continue;
        Core core;
        auto decoder = open_decoder(core, folder, device, defaults ? AnyMap{} : AnyMap{{"CPU_WEIGHTS_IN_PLACE", false}});
        const auto& inputs = decoder->compiled().inputs();
        if (std::none_of(inputs.begin(), inputs.end(), [](const PortDesc& p) { return p.name == "position_ids"; }))
            GTEST_SKIP() << "llm_" << name << " has no position_ids input: its cache cannot be of a fixed capacity";
        const auto prompt = expected_generations(folder)["prompts"][0]["ids"].get<std::vector<int64_t>>();
        std::vector<float> logits = decoder->step(prompt);
        for (int i = 0; i < 64; ++i)
            logits = decoder->step({static_cast<int64_t>(std::max_element(logits.begin(), logits.end()) - logits.begin())});
        const auto compilations = decoder->compiled().get_property("DYNAMIC_SHAPE_COMPILATIONS").get<size_t>();
        EXPECT_LE(compilations, 3u) << name << " on " << device << ": " << prompt.size() << " + 64 positions";
        if (device != "CPU") continue;
        const nlohmann::json packed = decoder->compiled().get_property("CPU_PACKED_WEIGHTS");
        EXPECT_GT(compilations, 1u);
        EXPECT_EQ(packed.at("shared_bytes"), packed.at("bytes")) << packed.dump();
        if (!defaults) {
            packed_bytes = packed.at("bytes").get<size_t>();
            // oneDNN packs f32 weights on AVX-512 (brgemm); elsewhere it may read untransposed ones in place.
            if (__builtin_cpu_supports("avx512f")) {
                EXPECT_GT(*packed_bytes, 0u) << packed.dump();
            }
        } else if (name.find("_int") == std::string::npos) {
            EXPECT_EQ(packed.at("bytes"), 0) << packed.dump();
        } else {
            EXPECT_LE(packed.at("bytes").get<size_t>(), *packed_bytes) << packed.dump();
        }
    }
}

// The KV cache stays in the GPU's memory (sliding_kv_cache.hpp): with GPU_ZERO_COPY off, PoCL
// copies host tensors in and out as a discrete GPU does and records each copy, and a decode step's
// records show the step's token, position and mask going in and the logits coming out, no past or
// present; the greedy tokens are still transformers'. The cache's growth (64 to 128 positions) moves
// the written positions once, through the host.
class LlmKvCacheOnTheGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(LlmKvCacheOnTheGpu, OnlyTheStepsInputsAndTheLogitsCrossToTheHost) {
    const std::string name = GetParam();
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    Core core;
    auto decoder = open_decoder(core, folder, "GPU", {{"GPU_ZERO_COPY", false}, {"PERF_COUNT", true}});
    ASSERT_TRUE(decoder->compiled().get_context().has_device_memory());
    const nlohmann::json expected = expected_generations(folder);  // kept: a temporary's element would dangle
    const nlohmann::json& prompt = expected["prompts"][0];
    const auto want = prompt["generated"].get<std::vector<int64_t>>();
    const auto ids = prompt["ids"].get<std::vector<int64_t>>();
    ASSERT_GT(ids.size() + want.size(), 64u) << "the test crosses the first capacity";
    std::vector<float> logits = decoder->step(ids);
    std::vector<int64_t> got;
    std::set<std::string> crossed;
    while (got.size() < want.size()) {
        got.push_back(std::max_element(logits.begin(), logits.end()) - logits.begin());
        logits = decoder->step({got.back()});
        for (const ProfilingInfo& p : decoder->profiling())
            if (p.node_type == "Transfer") crossed.insert(p.node_name);
    }
    EXPECT_EQ(got, want) << name;
    // Each input but the cache's goes in, one output (the logits; an IR's Result is named by the
    // device for its node) comes out.
    size_t step_inputs = 0;
    for (const PortDesc& in : decoder->compiled().inputs()) step_inputs += in.name.rfind("past_key_values.", 0) != 0;
    for (const std::string& n : crossed)
        EXPECT_TRUE(n.rfind("past_key_values.", 0) != 0 && n.rfind("present.", 0) != 0)
            << n << " crossed between the host and the GPU in a decode step";
    EXPECT_EQ(crossed.size(), step_inputs + 1) << "the records show the transfers";
}

// Where a step's tokens land in the sliding cache does not change what the model computes: a
// prompt that fills the first capacity exactly (nothing of the past kept), a several-token step
// after it that grows the buffers (a chat turn), and a reset to a shorter prompt give the logits
// one step over the same tokens gives.
class LlmSlidingCache : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(LlmSlidingCache, StepsOfAnyLengthGiveTheLogitsOfOneStep) {
    const auto& [name, device] = GetParam();
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    Core core;
    auto split = open_decoder(core, folder, device, {});
    auto whole = open_decoder(core, folder, device, {});
    std::vector<int64_t> tokens(80);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int64_t>(3 + (i * 7) % 50);
    const auto worst = [](const std::vector<float>& a, const std::vector<float>& b) {
        const auto [lo, hi] = std::minmax_element(b.begin(), b.end());
        double w = 0;
        for (size_t i = 0; i < a.size(); ++i) w = std::max(w, std::fabs(double(a[i]) - b[i]) / (*hi - *lo));
        return w;
    };
    const std::vector<int64_t> first(tokens.begin(), tokens.begin() + 64);
    const std::vector<float> filled = split->step(first);  // the capacity is 64: no past kept
    EXPECT_LE(worst(filled, whole->step(first)), 1e-5) << "a prompt of the first capacity";
    const std::vector<float> grown = split->step(std::vector<int64_t>(tokens.begin() + 64, tokens.end()));
    whole->reset();
    EXPECT_LE(worst(grown, whole->step(tokens)), 1e-4) << "a 16-token step growing the cache to 128";
    split->reset();
    const std::vector<int64_t> shorter(tokens.begin(), tokens.begin() + 5);
    const std::vector<float> again = split->step(shorter);
    whole->reset();
    EXPECT_LE(worst(again, whole->step(shorter)), 1e-5) << "after a reset, in the buffers of 128";
}

INSTANTIATE_TEST_SUITE_P(Models, LlmSlidingCache,
                         ::testing::Combine(::testing::Values("llama", "gpt2_ov"), ::testing::Values("REFERENCE", "CPU", "GPU")),
                         [](const auto& info) { return test::model_device_name(info); });

// optimum-intel's IR reorders the cache by beam after each ReadValue; one row makes that the
// identity, and the pipeline reads the cache straight into the attention.
TEST(LlmDecoderRewrites, TheBeamReorderOfOneRowIsBypassed) {
    const fs::path folder = llm_folder("llama_ov");
    NEED_LLM(folder, "llama_ov");
    Core core;
    AnyMap properties;
    const DecoderSource source = read_decoder(core, folder, properties);
    ASSERT_TRUE(source.sliding);
    size_t pasts = 0;
    for (const Node* n : source.model->get_ops()) {
        if (n->is_parameter() && Model::input_name(*n).rfind("past_key_values.", 0) == 0) ++pasts;
        if (n->get_type_name() != "Gather") continue;
        // The past as the model reads it: through the sliding cache's Slice.
        const Node* data = n->input(0).node;
        if (data->get_type_name() == "Slice") data = data->input(0).node;
        EXPECT_FALSE(data->is_parameter() && Model::input_name(*data).rfind("past_key_values.", 0) == 0)
            << n->get_friendly_name() << " still reorders " << data->get_friendly_name();
    }
    EXPECT_GT(pasts, 0u);
    // beam_idx stays an input (the pipeline feeds it), read by nothing.
    EXPECT_NO_THROW(source.model->input("beam_idx"));
}

// Continuous batching's decoder (batched_decoder.hpp): the four prompts share three rows, joining
// after some steps or when a row frees, leaving as they finish; each gets transformers' greedy
// tokens, as alone.
class LlmBatchedDecode : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(LlmBatchedDecode, SequencesJoiningAndLeavingKeepTheirGreedyTokens) {
    const auto& [name, device] = GetParam();
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    const nlohmann::json expected = expected_generations(folder);
    Core core;
    BatchedDecoder batch(core, folder, device, {}, 3);
    const auto argmax = [](const std::vector<float>& l) {
        return static_cast<int64_t>(std::max_element(l.begin(), l.end()) - l.begin());
    };
    struct Sequence {
        size_t prompt, row;
        std::vector<int64_t> got;
    };
    std::vector<Sequence> running;
    std::map<size_t, std::vector<int64_t>> done;
    const size_t prompts = expected["prompts"].size();
    ASSERT_GE(prompts, 4u);
    size_t next = 0, steps = 0, widest = 0;
    while (done.size() < prompts) {
        // Two start together, a third joins at the fifth step, the others as rows free.
        if (next < prompts && running.size() < batch.rows() && (running.size() < 2 || steps >= 5)) {
            auto [row, logits] = batch.add(expected["prompts"][next]["ids"].get<std::vector<int64_t>>());
            running.push_back({next++, row, {argmax(logits)}});
        }
        std::vector<std::pair<size_t, int64_t>> tokens;
        for (const Sequence& s : running) tokens.emplace_back(s.row, s.got.back());
        widest = std::max(widest, tokens.size());
        const auto logits = batch.step(tokens);
        ++steps;
        for (size_t k = 0; k < running.size(); ++k) running[k].got.push_back(argmax(logits[k]));
        for (auto it = running.begin(); it != running.end();) {
            const size_t want = expected["prompts"][it->prompt]["generated"].size();
            if (it->got.size() < want) {
                ++it;
                continue;
            }
            it->got.resize(want);
            batch.remove(it->row);
            done[it->prompt] = it->got;
            it = running.erase(it);
        }
    }
    EXPECT_EQ(widest, 3u);
    for (size_t p = 0; p < prompts; ++p)
        EXPECT_EQ(done[p], expected["prompts"][p]["generated"].get<std::vector<int64_t>>())
            << name << " on " << device << ", prompt " << p;
    EXPECT_EQ(batch.active(), 0u);
    // Bad use: a full batch, a free row, a model whose cache cannot slide.
    for (size_t r = 0; r < batch.rows(); ++r) batch.add({1, 2, 3});
    EXPECT_THROW(batch.add({1}), std::length_error);
    batch.remove(1);
    EXPECT_THROW(batch.step({{1, 5}}), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Models, LlmBatchedDecode,
                         ::testing::Combine(::testing::Values("llama", "gpt2", "qwen2_ov", "llama_ov"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU")),
                         [](const auto& info) { return test::model_device_name(info); });

TEST(LlmBatchedDecodeErrors, AModelWhoseCacheCannotSlideIsRefusedByName) {
    const fs::path folder = llm_folder("llama_ort");
    NEED_LLM(folder, "llama_ort");
    Core core;
    try {
        BatchedDecoder batch(core, folder, "CPU", {}, 2);
        ADD_FAILURE() << "batched a model without position_ids";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("model.onnx: decoding several sequences together needs"), std::string::npos)
            << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Models, LlmKvCacheOnTheGpu, ::testing::Values("llama", "llama_ov", "gpt2", "qwen2_ov"));

// MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL (plugins/hetero/pipeline.hpp) with the GPU given less
// memory than the model's weights: the first layers on the GPU, the rest on the CPU, the KV cache of
// each layer where its layer runs; the greedy tokens those of transformers, and the GPU never
// holding more than its limit.
// On HETERO:GPU.0,GPU.1 (two PoCL devices, tests/common/two_pocl_devices.cpp) the same, the second
// GPU taking the place of the CPU.
class LlmPipelineParallel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(LlmPipelineParallel, TheGpuBelowTheModelsSizeStillGivesTransformersTokens) {
    const auto& [name, pair] = GetParam();
    const std::string first = pair == "GPU.0,GPU.1" ? "GPU.0" : "GPU";
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    uint64_t weights = 0;
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.path().extension() == ".bin" || entry.path().extension() == ".onnx") weights += entry.file_size();
    const int64_t limit = static_cast<int64_t>(weights * 2 / 5);
    const AnyMap properties{{"MODEL_DISTRIBUTION_POLICY", "PIPELINE_PARALLEL"},
                            {"DEVICE_PROPERTIES", AnyMap{{first, AnyMap{{"DEVICE_MEMORY_LIMIT", limit}, {"GPU_ZERO_COPY", false}}}}}};
    Core core;
    const uint64_t before = core.get_property(first, "DEVICE_MEMORY").at("used_bytes").get<uint64_t>();
    LLMPipeline pipe(folder, "HETERO:" + pair, properties);
    const nlohmann::json expected = expected_generations(folder);
    GenerationConfig config = pipe.get_generation_config();
    config.max_new_tokens = expected["max_new_tokens"].get<size_t>();
    for (const auto& prompt : expected["prompts"]) {
        const EncodedResults got = pipe.generate(prompt["ids"].get<std::vector<int64_t>>(), config);
        EXPECT_EQ(got.tokens.at(0), prompt["generated"].get<std::vector<int64_t>>()) << name << ", prompt " << prompt["text"];
        const uint64_t held = core.get_property(first, "DEVICE_MEMORY").at("used_bytes").get<uint64_t>() - before;
        EXPECT_GT(held, 0u) << "the GPU runs a stage";
        // Every cache capacity's stages share the GPU's weights and take turns with its room.
        EXPECT_LE(held, static_cast<uint64_t>(limit)) << "the GPU's stages of every compiled capacity";
    }
    std::printf("llm_%s on HETERO:%s, PIPELINE_PARALLEL, %s limited to %lld of %llu bytes of model files: tokens "
                "identical to generate.json's\n",
                name.c_str(), pair.c_str(), first.c_str(), static_cast<long long>(limit), static_cast<unsigned long long>(weights));
}

// What the GPU holds with the decoder compiled for the prompt, against the plan of that compilation
// (HETERO_SPLIT's memory, which `mosaic plan` prints): within a tenth.
TEST_P(LlmPipelineParallel, TheGpuHoldsWhatThePlanSays) {
    const auto& [name, pair] = GetParam();
    const std::string first = pair == "GPU.0,GPU.1" ? "GPU.0" : "GPU";
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    Core core;
    const uint64_t before = core.get_property(first, "DEVICE_MEMORY").at("used_bytes").get<uint64_t>();
    auto decoder = open_decoder(core, folder, "HETERO:" + pair,
                                {{"MODEL_DISTRIBUTION_POLICY", "PIPELINE_PARALLEL"},
                                 {"DEVICE_PROPERTIES", AnyMap{{first, AnyMap{{"DEVICE_MEMORY_LIMIT", int64_t{300000}}, {"GPU_ZERO_COPY", false}}}}}});
    const auto prompt = expected_generations(folder)["prompts"][0]["ids"].get<std::vector<int64_t>>();
    decoder->step(prompt);
    const nlohmann::json plan = decoder->compiled().get_property("HETERO_SPLIT")["memory"][0];
    const uint64_t held = core.get_property(first, "DEVICE_MEMORY").at("used_bytes").get<uint64_t>() - before;
    std::printf("llm_%s on HETERO:%s: %s planned %llu bytes (weights %llu, state %llu, activations %llu), holds %llu\n",
                name.c_str(), pair.c_str(), first.c_str(), plan["total_bytes"].get<unsigned long long>(),
                plan["weights_bytes"].get<unsigned long long>(), plan["state_bytes"].get<unsigned long long>(),
                plan["activations_bytes"].get<unsigned long long>(), static_cast<unsigned long long>(held));
    EXPECT_NEAR(static_cast<double>(held), plan["total_bytes"].get<double>(), 0.1 * plan["total_bytes"].get<double>());
}

// The KV cache is planned at the model's longest sequence (config.json), or at KV_CACHE_PLAN_LENGTH:
// the bytes scale with it; a length that is not a positive count is refused.
TEST(LlmPipelineParallelPlan, TheCacheIsPlannedAtItsLongestLength) {
    const fs::path folder = llm_folder("llama");
    NEED_LLM(folder, "llama");
    Core core;
    auto state_on_gpu = [&](const AnyMap& extra) {
        AnyMap props{{"MODEL_DISTRIBUTION_POLICY", "PIPELINE_PARALLEL"},
                     {"DEVICE_PROPERTIES", AnyMap{{"GPU", AnyMap{{"DEVICE_MEMORY_LIMIT", int64_t{64} << 20}}}}}};
        for (const auto& [k, v] : extra) props[k] = v;
        auto decoder = open_decoder(core, folder, "HETERO:GPU,CPU", props);
        decoder->step(expected_generations(folder)["prompts"][0]["ids"].get<std::vector<int64_t>>());
        return decoder->compiled().get_property("HETERO_SPLIT")["memory"][0]["state_bytes"].get<uint64_t>();
    };
    const uint64_t longest = state_on_gpu({});  // 256 positions (config.json)
    // Two layers, keys and values, two KV heads of 16 floats, at 256 positions: all on the GPU.
    EXPECT_EQ(longest, 2u * 2 * 2 * 16 * 4 * 256);
    EXPECT_EQ(state_on_gpu({{"KV_CACHE_PLAN_LENGTH", 512}}), 2 * longest);
    try {
        state_on_gpu({{"KV_CACHE_PLAN_LENGTH", 0}});
        ADD_FAILURE() << "a length of 0 was taken";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("KV_CACHE_PLAN_LENGTH must be a number of positions >= 1 (16,777,216 at most), got 0"),
                  std::string::npos)
            << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Models, LlmPipelineParallel,
                         ::testing::Combine(::testing::Values("llama_ov", "llama"), ::testing::Values("GPU,CPU", "GPU.0,GPU.1")),
                         [](const auto& info) {
                             std::string pair = std::get<1>(info.param);
                             for (char& c : pair)
                                 if (c == ',' || c == '.') c = '_';
                             return std::get<0>(info.param) + "_" + pair;
                         });

INSTANTIATE_TEST_SUITE_P(Models, LlmOn,
                         ::testing::Combine(::testing::Values("llama", "gpt2", "qwen2", "llama_ov", "gpt2_ov", "qwen2_ov", "llama_ort",
                                                              "qwen2_ort", "llama_ov_int4", "qwen2_ov_int8", "llama_ort_int4",
                                                              "qwen2_ort_int4"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return test::model_device_name(info); });

// From text to text: the C++ tokenizer's ids for each prompt are transformers', the generation the
// same, and the decoded text the one transformers decodes (partial UTF-8 as U+FFFD included); the
// streamer's pieces add up to it. On CPU: the tokens per device are checked above.
class LlmText : public ::testing::TestWithParam<std::string> {};

TEST_P(LlmText, TheTextEqualsTransformersAndStreamsWhole) {
    const std::string name = GetParam();
    const fs::path folder = llm_folder(name);
    NEED_LLM(folder, name);
    const nlohmann::json expected = expected_generations(folder);
    LLMPipeline pipe(folder, "CPU");
    for (const auto& prompt : expected["prompts"]) {
        const std::string text = prompt["text"].get<std::string>();
        EXPECT_EQ(pipe.get_tokenizer().encode(text), prompt["ids"].get<std::vector<int64_t>>()) << text;
        std::string streamed;
        size_t pieces = 0;
        const DecodedResults got = pipe.generate(text, {{"max_new_tokens", 64}}, [&](const std::string& piece) {
            streamed += piece;
            ++pieces;
            return StreamingStatus::RUNNING;
        });
        EXPECT_EQ(got.texts.at(0), prompt["generated_text"].get<std::string>()) << text;
        EXPECT_EQ(streamed, got.texts.at(0)) << "the streamed pieces are the text";
        EXPECT_GT(pieces, 8u) << "streamed as it came, not at the end";
        EXPECT_EQ(got.perf_metrics.num_generated_tokens, prompt["generated"].size());
        EXPECT_GT(got.perf_metrics.ttft_ms, 0);
        EXPECT_EQ(std::string(got), got.texts.at(0));
    }
}

INSTANTIATE_TEST_SUITE_P(Models, LlmText, ::testing::Values("llama", "gpt2", "qwen2", "llama_ov", "gpt2_ov", "qwen2_ov"));

// Sampling on one model and device: the same seed gives the same tokens, top_k 1 is greedy, and the
// streamer's pieces add up to the text.
class LlmSampling : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ = llm_folder("llama");
        NEED_LLM(folder_, "llama");
    }
    fs::path folder_;
};

TEST_F(LlmSampling, TheSameSeedGivesTheSameTokens) {
    LLMPipeline pipe(folder_, "CPU");
    const auto prompt = expected_generations(folder_)["prompts"][0]["ids"].get<std::vector<int64_t>>();
    GenerationConfig config;
    config.max_new_tokens = 24;
    config.do_sample = true;
    config.temperature = 1.5f;
    config.top_p = 0.95f;
    config.rng_seed = 7;
    const auto first = pipe.generate(prompt, config).tokens[0];
    EXPECT_EQ(pipe.generate(prompt, config).tokens[0], first);
    config.rng_seed = 8;
    EXPECT_NE(pipe.generate(prompt, config).tokens[0], first) << "another seed, another draw (24 tokens at temperature 1.5)";
    config.top_k = 1;  // one candidate: the greedy token whatever the draw
    GenerationConfig greedy;
    greedy.max_new_tokens = 24;
    EXPECT_EQ(pipe.generate(prompt, config).tokens[0], pipe.generate(prompt, greedy).tokens[0]);
}

TEST_F(LlmSampling, ARepetitionPenaltyChangesTheTokens) {
    LLMPipeline pipe(folder_, "CPU");
    const nlohmann::json prompt = expected_generations(folder_)["prompts"][0];
    GenerationConfig config;
    config.max_new_tokens = 64;
    const auto plain = pipe.generate(prompt["ids"].get<std::vector<int64_t>>(), config).tokens[0];
    config.repetition_penalty = 5.0f;
    const auto penalised = pipe.generate(prompt["ids"].get<std::vector<int64_t>>(), config).tokens[0];
    EXPECT_NE(plain, penalised);
    // A strong penalty repeats fewer tokens than the random model does unpenalised.
    auto distinct = [](std::vector<int64_t> v) {
        std::sort(v.begin(), v.end());
        return std::unique(v.begin(), v.end()) - v.begin();
    };
    EXPECT_GT(distinct(penalised), distinct(plain));
}

TEST_F(LlmSampling, MaxLengthAndStopIdsEndTheGeneration) {
    LLMPipeline pipe(folder_, "REFERENCE");
    const nlohmann::json prompt = expected_generations(folder_)["prompts"][1];
    const auto ids = prompt["ids"].get<std::vector<int64_t>>();
    const auto want = prompt["generated"].get<std::vector<int64_t>>();
    GenerationConfig config;
    config.max_length = ids.size() + 5;
    EXPECT_EQ(pipe.generate(ids, config).tokens[0], std::vector<int64_t>(want.begin(), want.begin() + 5));
    config = GenerationConfig();
    config.max_new_tokens = 64;
    config.stop_token_ids = {want[9]};  // the tenth token ends it, and is returned
    const auto got = pipe.generate(ids, config).tokens[0];
    ASSERT_LE(got.size(), 10u);
    EXPECT_EQ(got.back(), want[9]);
    config.ignore_eos = true;
    EXPECT_EQ(pipe.generate(ids, config).tokens[0].size(), 64u) << "ignore_eos: only max_new_tokens ends it";
}

TEST_F(LlmSampling, StopStringsAndTheStreamerEndTheText) {
    LLMPipeline pipe(folder_, "CPU");
    const nlohmann::json prompt = expected_generations(folder_)["prompts"][1];
    const std::string text = prompt["text"].get<std::string>();
    const std::string full = prompt["generated_text"].get<std::string>();
    // A stop string from the middle of the text transformers generated: the text ends before it
    // (or with it, when asked), and nothing past it was streamed.
    const std::string stop = full.substr(full.size() / 2, 3);
    const size_t at = full.find(stop);
    std::string streamed;
    auto collect = [&](const std::string& piece) {
        streamed += piece;
        return StreamingStatus::RUNNING;
    };
    DecodedResults got = pipe.generate(text, {{"max_new_tokens", 64}, {"stop_strings", {stop}}}, collect);
    EXPECT_EQ(got.texts.at(0), full.substr(0, at));
    EXPECT_EQ(streamed, got.texts.at(0));
    streamed.clear();
    got = pipe.generate(text, {{"max_new_tokens", 64}, {"stop_strings", {stop}}, {"include_stop_str_in_output", true}}, collect);
    EXPECT_EQ(got.texts.at(0), full.substr(0, at + stop.size()));
    EXPECT_EQ(streamed, got.texts.at(0));
    // STOP from the streamer: the generation ends at once.
    size_t calls = 0;
    got = pipe.generate(text, {{"max_new_tokens", 64}}, [&](const std::string&) {
        return ++calls == 3 ? StreamingStatus::STOP : StreamingStatus::RUNNING;
    });
    EXPECT_EQ(calls, 3u);
    EXPECT_LT(got.perf_metrics.num_generated_tokens, 64u);
    EXPECT_EQ(full.rfind(got.texts.at(0), 0), 0u) << "what came is the beginning of the full text";
}

// A chat: each turn is the model's ChatML template over the history, tokenized without added
// specials; a turn's tokens are those of a plain generation from the rendered history (the second
// turn reusing the cache of the first where it holds the history's beginning), and finish_chat
// forgets it.
TEST_F(LlmSampling, AChatRendersTheHistoryAndReusesTheCache) {
    for (const std::string device : {"CPU", "REFERENCE"}) {
        LLMPipeline pipe(folder_, device);
        const Tokenizer& tokenizer = pipe.get_tokenizer();
        const ChatTemplate chatml([&] {
            std::ifstream in(folder_ / "chat_template.jinja");
            return std::string(std::istreambuf_iterator<char>(in), {});
        }());
        GenerationConfig config;
        config.max_new_tokens = 12;
        config.ignore_eos = true;
        pipe.start_chat("You are terse.");
        ChatHistory history = {{{"role", "system"}, {"content", "You are terse."}}, {{"role", "user"}, {"content", "Hi there"}}};
        const DecodedResults first = pipe.generate("Hi there", config);
        const std::vector<int64_t> first_ids = tokenizer.encode(chatml.apply(history, true), false);
        EXPECT_EQ(first.perf_metrics.num_input_tokens, first_ids.size());
        EXPECT_EQ(first.texts.at(0), tokenizer.decode(pipe.generate(first_ids, config).tokens.at(0))) << device;

        pipe.start_chat("You are terse.");  // again, as the plain generation above reset the cache
        EXPECT_EQ(pipe.generate("Hi there", config).texts.at(0), first.texts.at(0));
        history.push_back({{"role", "assistant"}, {"content", first.texts.at(0)}});
        history.push_back({{"role", "user"}, {"content", "And then?"}});
        const DecodedResults second = pipe.generate("And then?", config);
        const std::vector<int64_t> second_ids = tokenizer.encode(chatml.apply(history, true), false);
        EXPECT_EQ(second.perf_metrics.num_input_tokens, second_ids.size());
        pipe.finish_chat();
        EXPECT_EQ(second.texts.at(0), tokenizer.decode(pipe.generate(second_ids, config).tokens.at(0))) << device;
    }
}

TEST(LlmPipelineErrors, AChatNeedsATemplate) {
    const fs::path source = llm_folder("gpt2");
    NEED_LLM(source, "gpt2");
    const fs::path folder = fs::temp_directory_path() / ("mosaic-llm-no-template-" + std::to_string(::getpid()));
    fs::create_directories(folder);
    for (const char* file : {"model.onnx", "config.json", "tokenizer.json"}) fs::copy_file(source / file, folder / file);
    LLMPipeline pipe(folder, "REFERENCE");
    try {
        pipe.start_chat();
        FAIL() << "no chat template";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("has no chat template"), std::string::npos) << e.what();
    }
    std::ofstream(folder / "chat_template.jinja") << "{% for m in messages %}{{ m.content }";  // unclosed
    try {
        pipe.start_chat();
        FAIL() << "a broken chat template";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("the chat template cannot be read"), std::string::npos) << e.what();
    }
    EXPECT_EQ(pipe.generate("Hello", {{"max_new_tokens", 3}}).perf_metrics.num_generated_tokens, 3u);
    fs::remove_all(folder);
}

// Bad input: clear errors naming the folder, the parameter or the limit.
TEST(LlmPipelineErrors, AFolderWithoutAModelSaysWhatItNeeds) {
    const fs::path empty = fs::temp_directory_path() / "mosaic-llm-empty";
    fs::create_directories(empty);
    try {
        LLMPipeline pipe(empty, "CPU");
        FAIL() << "no model";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("openvino_model.xml or model.onnx"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(empty.string()), std::string::npos) << e.what();
    }
    EXPECT_THROW(LLMPipeline(empty / "missing", "CPU"), std::runtime_error);
}

TEST(LlmPipelineErrors, GenerationParametersAreChecked) {
    GenerationConfig config;
    EXPECT_THROW(config.update({{"max_new_token", 3}}), GenerationConfigError);  // a typo is not ignored
    try {
        config.update({{"temperature", "hot"}});
        FAIL();
    } catch (const GenerationConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("temperature"), std::string::npos) << e.what();
    }
    config.update({{"max_new_tokens", 0}});
    EXPECT_THROW(config.validate(), GenerationConfigError);
    config = GenerationConfig();
    config.update({{"num_beams", 4}});
    EXPECT_THROW(config.validate(), GenerationConfigError);
    config = GenerationConfig();
    config.update({{"do_sample", true}, {"temperature", 0}});
    EXPECT_THROW(config.validate(), GenerationConfigError);
    config = GenerationConfig();
    config.update({{"eos_token_id", {128001, 128009}}, {"stop_strings", "###"}});
    EXPECT_EQ(config.eos_token_id, 128001);
    EXPECT_EQ(config.stop_token_ids, (std::set<int64_t>{128001, 128009}));
    EXPECT_EQ(config.stop_strings, (std::set<std::string>{"###"}));
}

TEST(LlmPipelineErrors, APromptLongerThanTheModelIsRefused) {
    const fs::path folder = llm_folder("gpt2");
    NEED_LLM(folder, "gpt2");
    LLMPipeline pipe(folder, "REFERENCE");
    GenerationConfig config;
    config.max_new_tokens = 4;
    try {
        pipe.generate(std::vector<int64_t>(300, 5), config);  // config.json: n_positions 256
        FAIL() << "300 tokens into 256 positions";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("256"), std::string::npos) << e.what();
    }
    config.max_new_tokens = 0;
    EXPECT_THROW(pipe.generate(std::vector<int64_t>{1, 2, 3}, config), GenerationConfigError);
    config.max_new_tokens = 4;
    EXPECT_THROW(pipe.generate(std::vector<int64_t>{}, config), std::invalid_argument);
    // The pipeline still works after the refusals.
    EXPECT_EQ(pipe.generate(std::vector<int64_t>{1, 2, 3}, config).tokens[0].size(), 4u);
}

// A folder whose model.onnx feeds past_key_values.0.key but returns present.1.key (and, in the
// second, takes an input no decoder has): refused when the pipeline is made, naming both.
TEST(LlmPipelineErrors, PastsAndPresentsMustPair) {
    const fs::path folder = fs::temp_directory_path() / ("mosaic-llm-unpaired-" + std::to_string(::getpid()));
    fs::create_directories(folder);
    auto model_with = [&](const std::string& present, const std::string& extra_input) {
        auto m = test::onnx_model();
        test::add_input(m, "input_ids", {-1, -1}, ::onnx::TensorProto::INT64);
        test::add_input(m, "past_key_values.0.key", {-1, 2, -1, 4});
        if (!extra_input.empty()) test::add_input(m, extra_input, {-1, -1}, ::onnx::TensorProto::INT64);
        test::add_output(m, "logits", {-1, 2, -1, 4});
        test::add_output(m, present, {-1, 2, -1, 4});
        test::add_node(m, "Neg", {"past_key_values.0.key"}, {"logits"}, "l");
        test::add_node(m, "Neg", {"past_key_values.0.key"}, {present}, "p");
        test::save(m, (folder / "model.onnx").string());
    };
    auto error_of = [&] {
        try {
            LLMPipeline pipe(folder, "REFERENCE");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    model_with("present.1.key", "");
    std::string e = error_of();
    EXPECT_NE(e.find("past_key_values.0.key"), std::string::npos) << e;
    EXPECT_NE(e.find("present.0.key"), std::string::npos) << e;
    EXPECT_NE(e.find((folder / "model.onnx").string()), std::string::npos) << e;
    model_with("present.0.key", "token_type_ids");
    e = error_of();
    EXPECT_NE(e.find("input 'token_type_ids'"), std::string::npos) << e;
    fs::remove_all(folder);
}

}  // namespace
}  // namespace mosaic::genai
