// Export and import of a REFERENCE compiled model: the plan as JSON, then the constants' bytes.
//   blob = <8-byte little-endian JSON length> <JSON> <constant bytes, in slot order>
#include "reference_compiled_model.hpp"

#include <mosaic/reference/kernels.hpp>

#include <cstring>

namespace mosaic::reference_plugin {

namespace {

nlohmann::json plan_json(const Plan& plan) {
    nlohmann::json slots = nlohmann::json::array(), steps = nlohmann::json::array();
    for (const Slot& s : plan.slots)
        slots.push_back({{"kind", static_cast<int>(s.kind)}, {"type", to_string(s.type)}, {"shape", s.shape},
                         {"input", s.input_index}});
    for (const Step& st : plan.steps) {
        nlohmann::json attrs = nlohmann::json::array();
        for (const auto& [k, v] : st.attrs.entries()) attrs.push_back({k, v});
        steps.push_back({{"name", st.name}, {"type", st.type}, {"version", st.version}, {"attrs", attrs},
                         {"inputs", st.inputs}, {"outputs", st.outputs}});
    }
    return {{"format", "mosaic-reference-plan"}, {"version", 1}, {"slots", slots}, {"steps", steps},
            {"results", plan.result_slots}, {"simulated_us", plan.simulated_us}};
}

[[noreturn]] void corrupt(const std::string& why) {
    throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "the REFERENCE compiled-model blob is corrupt: " + why);
}

}  // namespace

std::string ReferenceCompiledModel::export_model() const {
    const std::string header = nlohmann::json({{"plan", plan_json(plan_)}, {"model", model_name_}}).dump();
    std::string blob(8, '\0');
    const uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) blob[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    blob += header;
    for (const Slot& s : plan_.slots)
        if (s.kind == Slot::Kind::constant) blob.append(static_cast<const char*>(s.constant), s.byte_size());
    return blob;
}

ReferenceCompiledModel::ReferenceCompiledModel(const void* data, size_t size, const nlohmann::json& config,
                                               std::string device, std::shared_ptr<ExecutionGate> gate)
    : config_(config), device_(std::move(device)) {
    plan_.gate = std::move(gate);
    plan_.execution_units = config_.value("EXECUTION_UNITS", int64_t{0});
    const auto* bytes = static_cast<const uint8_t*>(data);
    if (size < 8) corrupt("shorter than its header");
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    if (n > size - 8) corrupt("header length past the end");
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(bytes + 8, bytes + 8 + n);
        const auto& p = doc.at("plan");
        if (p.at("format") != "mosaic-reference-plan" || p.at("version") != 1) corrupt("unknown format or version");
        model_name_ = doc.at("model");
        size_t offset = 8 + n;
        for (const auto& j : p.at("slots")) {
            Slot s;
            const int kind = j.at("kind").get<int>();
            if (kind < 0 || kind > static_cast<int>(Slot::Kind::intermediate)) corrupt("a slot has an unknown kind");
            s.kind = static_cast<Slot::Kind>(kind);
            s.type = element_type_from_string(j.at("type").get<std::string>());
            s.shape = j.at("shape").get<Shape>();
            s.input_index = j.at("input");
            int64_t slot_bytes = 0;
            if (s.type == ElementType::undefined || !checked_byte_size(s.shape, s.type, slot_bytes))
                corrupt("a slot has a bad element type or shape");
            if (s.kind == Slot::Kind::constant) {
                if (s.byte_size() > size - offset) corrupt("constant data past the end");
                imported_constants_.emplace_back(bytes + offset, bytes + offset + s.byte_size());
                s.constant = imported_constants_.back().data();
                offset += s.byte_size();
            }
            plan_.slots.push_back(std::move(s));
        }
        for (const auto& j : p.at("steps")) {
            Step st{j.at("name"), j.at("type"), j.at("version"), {}, j.at("inputs"), j.at("outputs")};
            for (const auto& a : j.at("attrs")) st.attrs.set(a.at(0).get<std::string>(), a.at(1).get<std::string>());
            if (!reference::find_kernel(st.type, st.version)) corrupt("no reference kernel for " + st.type + "-" + st.version);
            for (size_t slot : st.inputs) if (slot >= plan_.slots.size()) corrupt("a step reads a missing slot");
            for (size_t slot : st.outputs)
                if (slot >= plan_.slots.size() || plan_.slots[slot].kind != Slot::Kind::intermediate)
                    corrupt("a step writes a missing, constant or input slot");
            plan_.steps.push_back(std::move(st));
        }
        plan_.result_slots = p.at("results").get<std::vector<size_t>>();
        plan_.simulated_us = p.value("simulated_us", 0.0);
        // A damaged value must not stall every inference: at most a thousand seconds.
        if (!(plan_.simulated_us >= 0 && plan_.simulated_us <= 1e9)) corrupt("simulated_us out of range");
        for (size_t slot : plan_.result_slots) if (slot >= plan_.slots.size()) corrupt("a result names a missing slot");
    } catch (const sdk::Error&) {
        throw;
    } catch (const std::exception& e) {
        corrupt(e.what());
    }
    plan_.profiling = config_.value("PERF_COUNT", false);
}

}  // namespace mosaic::reference_plugin
