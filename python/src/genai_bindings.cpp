// mosaic.genai: LLMPipeline, GenerationConfig, Tokenizer and the results, named and called as
// openvino_genai's:
//   pipe = mosaic.genai.LLMPipeline("TinyLlama-ov", "CPU")
//   print(pipe.generate("The Sun is", max_new_tokens=64, streamer=lambda piece: print(piece, end="")))
#include "bindings.hpp"
#include "property_convert.hpp"

#include <mosaic/genai/chat_template.hpp>
#include <mosaic/genai/continuous_batching_pipeline.hpp>
#include <mosaic/genai/llm_pipeline.hpp>

#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/set.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace mosaic::python {

namespace {

using namespace mosaic::genai;

std::string path_text(nb::handle path) { return nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(path)); }

// A Python streamer: called with each piece of text; None or False goes on, True stops (as in
// openvino_genai), or a StreamingStatus. An exception it raises ends the generation and is raised
// from generate(). The function holds the callable as a plain handle (generate's argument keeps it
// alive for the call), so that copying it while the GIL is released touches no reference count.
StreamerFunction to_streamer(nb::handle streamer) {
    if (streamer.is_none()) return {};
    return [callable = streamer](const std::string& piece) {
        nb::gil_scoped_acquire gil;
        nb::object answer = callable(piece);
        if (answer.is_none()) return StreamingStatus::RUNNING;
        if (nb::isinstance<StreamingStatus>(answer)) return nb::cast<StreamingStatus>(answer);
        return nb::cast<bool>(answer) ? StreamingStatus::STOP : StreamingStatus::RUNNING;
    };
}

// generate(inputs, generation_config=None, streamer=None, **kwargs): a str prompt gives
// DecodedResults, a list of token ids EncodedResults.
nb::object generate(LLMPipeline& pipe, nb::handle inputs, nb::handle generation_config, nb::handle streamer,
                    nb::kwargs kwargs) {
    GenerationConfig config;
    if (generation_config.is_none()) {
        nb::gil_scoped_release nogil;  // the pipeline's lock is never awaited holding the GIL
        config = pipe.get_generation_config();
    } else {
        config = nb::cast<GenerationConfig>(generation_config);
    }
    config.update(to_any_map(kwargs), "LLMPipeline.generate");
    StreamerFunction stream = to_streamer(streamer);
    if (nb::isinstance<nb::str>(inputs)) {
        const std::string prompt = nb::cast<std::string>(inputs);
        nb::gil_scoped_release nogil;
        DecodedResults r = pipe.generate(prompt, config, stream);
        nb::gil_scoped_acquire gil;
        return nb::cast(std::move(r));
    }
    const auto ids = nb::cast<std::vector<int64_t>>(inputs);
    nb::gil_scoped_release nogil;
    EncodedResults r = pipe.generate(ids, config, stream);
    nb::gil_scoped_acquire gil;
    return nb::cast(std::move(r));
}

// Tokenizer.apply_chat_template(history, add_generation_prompt, chat_template=""): openvino_genai's
// call. The template is `chat_template` when given, else tokenizer_config.json's; a folder that keeps
// it in chat_template.jinja (transformers 4.43+) passes that file's text. The text is rendered with
// the tokenizer's bos_token and eos_token, as transformers renders it, and holds the special tokens
// the model expects: encode it with add_special_tokens=False.
std::string apply_chat_template(const Tokenizer& tokenizer, const ChatHistory& history, bool add_generation_prompt,
                                const std::string& chat_template) {
    std::string source = chat_template;
    if (source.empty()) {
        const std::optional<std::string> own = tokenizer.chat_template();
        if (!own)
            throw std::invalid_argument("apply_chat_template: the tokenizer has no chat template (chat_template in "
                                        "tokenizer_config.json); pass chat_template=, e.g. the text of the model "
                                        "folder's chat_template.jinja");
        source = *own;
    }
    nb::gil_scoped_release nogil;
    try {
        return ChatTemplate(source).apply(history, add_generation_prompt, tokenizer.bos_token().value_or(""),
                                          tokenizer.eos_token().value_or(""));
    } catch (const ChatTemplateError& e) {
        throw std::invalid_argument(std::string("apply_chat_template: ") + e.what());
    }
}

}  // namespace

void bind_genai(nb::module_& parent) {
    nb::module_ m = parent.def_submodule("genai", "LLM generation (openvino_genai's API): LLMPipeline, Tokenizer");

    nb::enum_<StreamingStatus>(m, "StreamingStatus")
        .value("RUNNING", StreamingStatus::RUNNING)
        .value("STOP", StreamingStatus::STOP)
        .value("CANCEL", StreamingStatus::CANCEL);

    nb::class_<GenerationConfig>(m, "GenerationConfig")
        .def(nb::init<>())
        .def("__init__", [](GenerationConfig* c, nb::handle path) {
            new (c) GenerationConfig(GenerationConfig::from_folder(path_text(path)));
        }, nb::arg("models_path"), "Reads generation_config.json of a model folder.")
        .def_rw("max_new_tokens", &GenerationConfig::max_new_tokens)
        .def_rw("max_length", &GenerationConfig::max_length)
        .def_rw("min_new_tokens", &GenerationConfig::min_new_tokens)
        .def_rw("ignore_eos", &GenerationConfig::ignore_eos)
        .def_rw("eos_token_id", &GenerationConfig::eos_token_id)
        .def_rw("stop_token_ids", &GenerationConfig::stop_token_ids)
        .def_rw("stop_strings", &GenerationConfig::stop_strings)
        .def_rw("include_stop_str_in_output", &GenerationConfig::include_stop_str_in_output)
        .def_rw("do_sample", &GenerationConfig::do_sample)
        .def_rw("temperature", &GenerationConfig::temperature)
        .def_rw("top_k", &GenerationConfig::top_k)
        .def_rw("top_p", &GenerationConfig::top_p)
        .def_rw("repetition_penalty", &GenerationConfig::repetition_penalty)
        .def_rw("presence_penalty", &GenerationConfig::presence_penalty)
        .def_rw("frequency_penalty", &GenerationConfig::frequency_penalty)
        .def_rw("rng_seed", &GenerationConfig::rng_seed)
        .def_rw("num_return_sequences", &GenerationConfig::num_return_sequences)
        .def_rw("num_beams", &GenerationConfig::num_beams)
        .def("is_greedy_decoding", &GenerationConfig::is_greedy_decoding)
        .def("validate", &GenerationConfig::validate)
        .def("update_generation_config", [](GenerationConfig& c, nb::kwargs kwargs) {
            c.update(to_any_map(kwargs), "GenerationConfig.update_generation_config");
        });

    nb::class_<PerfMetrics>(m, "PerfMetrics")
        .def_ro("num_input_tokens", &PerfMetrics::num_input_tokens)
        .def_ro("num_generated_tokens", &PerfMetrics::num_generated_tokens)
        .def_ro("ttft_ms", &PerfMetrics::ttft_ms)
        .def_ro("tpot_ms", &PerfMetrics::tpot_ms)
        .def_ro("throughput", &PerfMetrics::throughput)
        .def_ro("generate_ms", &PerfMetrics::generate_ms)
        .def_ro("tokenization_ms", &PerfMetrics::tokenization_ms)
        .def_ro("detokenization_ms", &PerfMetrics::detokenization_ms)
        .def_ro("token_ms", &PerfMetrics::token_ms)
        // openvino_genai's getters, which return (mean, std) pairs there; here the mean alone.
        .def("get_ttft", [](const PerfMetrics& p) { return p.ttft_ms; })
        .def("get_tpot", [](const PerfMetrics& p) { return p.tpot_ms; })
        .def("get_throughput", [](const PerfMetrics& p) { return p.throughput; })
        .def("get_num_generated_tokens", [](const PerfMetrics& p) { return p.num_generated_tokens; })
        .def("get_num_input_tokens", [](const PerfMetrics& p) { return p.num_input_tokens; });

    nb::class_<DecodedResults>(m, "DecodedResults")
        .def_ro("texts", &DecodedResults::texts)
        .def_ro("scores", &DecodedResults::scores)
        .def_ro("perf_metrics", &DecodedResults::perf_metrics)
        .def("__str__", [](const DecodedResults& r) { return static_cast<std::string>(r); });

    nb::class_<EncodedResults>(m, "EncodedResults")
        .def_ro("tokens", &EncodedResults::tokens)
        .def_ro("scores", &EncodedResults::scores)
        .def_ro("perf_metrics", &EncodedResults::perf_metrics);

    nb::class_<Tokenizer>(m, "Tokenizer")
        .def("__init__", [](Tokenizer* t, nb::handle path) { new (t) Tokenizer(path_text(path)); }, nb::arg("tokenizer_path"))
        .def("encode", [](const Tokenizer& t, const std::string& text, bool add_special_tokens) {
            return t.encode(text, add_special_tokens);
        }, nb::arg("text"), nb::arg("add_special_tokens") = true)
        .def("decode", [](const Tokenizer& t, const std::vector<int64_t>& ids, bool skip_special_tokens) {
            return t.decode(ids, skip_special_tokens);
        }, nb::arg("tokens"), nb::arg("skip_special_tokens") = true)
        .def_prop_ro("vocab_size", &Tokenizer::vocab_size)
        .def("get_bos_token_id", [](const Tokenizer& t) { return t.bos_token_id().value_or(-1); })
        .def("get_eos_token_id", [](const Tokenizer& t) { return t.eos_token_id().value_or(-1); })
        .def("get_pad_token_id", [](const Tokenizer& t) { return t.pad_token_id().value_or(-1); })
        .def_prop_ro("chat_template", &Tokenizer::chat_template)
        .def("apply_chat_template", &apply_chat_template, nb::arg("history"), nb::arg("add_generation_prompt"),
             nb::arg("chat_template") = "",
             "Renders the messages ([{'role': ..., 'content': ...}]) with the model's chat template.");

    nb::class_<LLMPipeline>(m, "LLMPipeline")
        .def("__init__", [](LLMPipeline* p, nb::handle models_path, const std::string& device, nb::kwargs kwargs) {
            const std::string path = path_text(models_path);
            const AnyMap properties = to_any_map(kwargs);
            nb::gil_scoped_release nogil;
            new (p) LLMPipeline(path, device, properties);
        }, nb::arg("models_path"), nb::arg("device") = "CPU", nb::arg("kwargs"),
           "Compiles the folder's model on the device; keyword arguments are compile properties.")
        .def("generate", &generate, nb::arg("inputs"), nb::arg("generation_config") = nb::none(),
             nb::arg("streamer") = nb::none(), nb::arg("kwargs"))
        .def("__call__", &generate, nb::arg("inputs"), nb::arg("generation_config") = nb::none(),
             nb::arg("streamer") = nb::none(), nb::arg("kwargs"))
        // The GIL is released while these wait for the pipeline, which a generation in another
        // thread holds while its streamer waits for the GIL.
        .def("get_generation_config", &LLMPipeline::get_generation_config, nb::call_guard<nb::gil_scoped_release>())
        .def("set_generation_config", &LLMPipeline::set_generation_config, nb::arg("config"),
             nb::call_guard<nb::gil_scoped_release>())
        .def("get_tokenizer", &LLMPipeline::get_tokenizer, nb::rv_policy::reference_internal)
        .def("start_chat", &LLMPipeline::start_chat, nb::arg("system_message") = "", nb::call_guard<nb::gil_scoped_release>())
        .def("finish_chat", &LLMPipeline::finish_chat, nb::call_guard<nb::gil_scoped_release>())
        .def_prop_ro("device", &LLMPipeline::device);

    // Continuous batching (openvino_genai.ContinuousBatchingPipeline): the GIL is released while a
    // call waits or computes, so a serving loop steps on one thread while others add requests and
    // read their handles.
    nb::class_<SchedulerConfig>(m, "SchedulerConfig")
        .def(nb::init<>())
        .def_rw("max_num_seqs", &SchedulerConfig::max_num_seqs);
    nb::enum_<GenerationStatus>(m, "GenerationStatus")
        .value("RUNNING", GenerationStatus::RUNNING)
        .value("FINISHED", GenerationStatus::FINISHED)
        .value("CANCEL", GenerationStatus::CANCEL)
        .value("IGNORED", GenerationStatus::IGNORED);
    nb::class_<GenerationOutput>(m, "GenerationOutput")
        .def_ro("generated_ids", &GenerationOutput::generated_ids)
        .def_ro("text", &GenerationOutput::text)
        .def_ro("score", &GenerationOutput::score);
    nb::class_<GenerationHandleImpl>(m, "GenerationHandle")
        .def("get_status", &GenerationHandleImpl::get_status, nb::call_guard<nb::gil_scoped_release>())
        .def("can_read", &GenerationHandleImpl::can_read, nb::call_guard<nb::gil_scoped_release>())
        .def("read", &GenerationHandleImpl::read, nb::call_guard<nb::gil_scoped_release>(),
             "The tokens and text generated since the last read().")
        .def("read_all", &GenerationHandleImpl::read_all, nb::call_guard<nb::gil_scoped_release>())
        .def("drop", &GenerationHandleImpl::drop, nb::call_guard<nb::gil_scoped_release>());
    nb::class_<GenerationResult>(m, "GenerationResult")
        .def_ro("m_request_id", &GenerationResult::m_request_id)
        .def_ro("m_generation_ids", &GenerationResult::m_generation_ids)
        .def_ro("m_scores", &GenerationResult::m_scores)
        .def_ro("m_status", &GenerationResult::m_status);
    nb::class_<EncodedGenerationResult>(m, "EncodedGenerationResult")
        .def_ro("m_request_id", &EncodedGenerationResult::m_request_id)
        .def_ro("m_generation_ids", &EncodedGenerationResult::m_generation_ids)
        .def_ro("m_scores", &EncodedGenerationResult::m_scores)
        .def_ro("m_status", &EncodedGenerationResult::m_status);
    nb::class_<ContinuousBatchingPipeline>(m, "ContinuousBatchingPipeline")
        .def("__init__",
             [](ContinuousBatchingPipeline* p, nb::handle models_path, const SchedulerConfig& scheduler, const std::string& device,
                nb::kwargs kwargs) {
                 const std::string path = path_text(models_path);
                 const AnyMap properties = to_any_map(kwargs);
                 nb::gil_scoped_release nogil;
                 new (p) ContinuousBatchingPipeline(path, scheduler, device, properties);
             },
             nb::arg("models_path"), nb::arg("scheduler_config"), nb::arg("device") = "CPU", nb::arg("kwargs"))
        .def(
            "add_request",
            [](ContinuousBatchingPipeline& pipe, uint64_t id, nb::handle prompt, const GenerationConfig& config) {
                if (nb::isinstance<nb::str>(prompt)) {
                    const std::string text = nb::cast<std::string>(prompt);
                    nb::gil_scoped_release nogil;
                    return pipe.add_request(id, text, config);
                }
                const auto ids = nb::cast<std::vector<int64_t>>(prompt);
                nb::gil_scoped_release nogil;
                return pipe.add_request(id, ids, config);
            },
            nb::arg("request_id"), nb::arg("prompt"), nb::arg("generation_config"),
            "Queues a request (a str prompt, or token ids); returns its GenerationHandle.")
        .def("step", &ContinuousBatchingPipeline::step, nb::call_guard<nb::gil_scoped_release>())
        .def("has_non_finished_requests", &ContinuousBatchingPipeline::has_non_finished_requests,
             nb::call_guard<nb::gil_scoped_release>())
        .def(
            "generate",
            [](ContinuousBatchingPipeline& pipe, nb::list prompts, nb::handle configs) {
                std::vector<GenerationConfig> list;
                if (nb::isinstance<GenerationConfig>(configs)) list.push_back(nb::cast<GenerationConfig>(configs));
                else list = nb::cast<std::vector<GenerationConfig>>(configs);
                if (nb::len(prompts) > 0 && nb::isinstance<nb::str>(prompts[0])) {
                    const auto texts = nb::cast<std::vector<std::string>>(prompts);
                    nb::gil_scoped_release nogil;
                    std::vector<GenerationResult> r = pipe.generate(texts, list);
                    nb::gil_scoped_acquire gil;
                    return nb::cast(std::move(r));
                }
                const auto ids = nb::cast<std::vector<std::vector<int64_t>>>(prompts);
                nb::gil_scoped_release nogil;
                std::vector<EncodedGenerationResult> r = pipe.generate(ids, list);
                nb::gil_scoped_acquire gil;
                return nb::cast(std::move(r));
            },
            nb::arg("prompts"), nb::arg("generation_config"))
        .def("get_config", &ContinuousBatchingPipeline::get_config)
        .def("get_tokenizer", &ContinuousBatchingPipeline::get_tokenizer, nb::rv_policy::reference_internal)
        .def("last_step_rows", &ContinuousBatchingPipeline::last_step_rows, nb::call_guard<nb::gil_scoped_release>(),
             "The requests the last decode step ran together.");
}

}  // namespace mosaic::python
