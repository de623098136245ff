#include "hetero_request.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <set>

namespace mosaic::hetero {

HeteroInferRequest::HeteroInferRequest(const HeteroCompiledModel& model)
    : plan_(model.plan()), slot_memory_(model.slot_memory()), memory_(model.memory()),
      device_buffers_(plan_.slots.size()), produces_(plan_.subgraphs.size()), copy_us_(plan_.slots.size()),
      users_(plan_.subgraphs.size()),
      buffers_(plan_.slots.size()),
      data_(plan_.slots.size(), nullptr), in_(plan_.subgraphs.size()), out_(plan_.subgraphs.size()),
      pending_(plan_.subgraphs.size(), 0) {
    for (size_t k = 0; k < plan_.subgraphs.size(); ++k) {
        const std::vector<size_t>& deps = plan_.subgraphs[k].depends_on;
        for (size_t d : deps) users_[d].push_back(k);
        completions_.push_back({this, k});
        if (k > 0 && std::find(deps.begin(), deps.end(), k - 1) == deps.end()) chain_ = false;
    }
    // Produced slots that no model output backs get a buffer of their own, once: in host memory, or
    // on the producer's device and each device it is copied to.
    for (size_t s = 0; s < plan_.slots.size(); ++s) {
        const Slot& slot = plan_.slots[s];
        if (slot.kind != Slot::Kind::produced || !slot.model_outputs.empty()) continue;
        const SlotMemory& placed = slot_memory_[s];
        if (placed.home.empty()) {
            buffers_[s].resize(slot.bytes());
            continue;
        }
        device_buffers_[s].push_back(std::make_unique<DeviceBuffer>(memory_, placed.home, slot.bytes()));
        for (const std::string& device : placed.replicas)
            device_buffers_[s].push_back(std::make_unique<DeviceBuffer>(memory_, device, slot.bytes()));
        if (!placed.replicas.empty()) produces_[slot.subgraph].push_back(s);
        copy_us_[s].assign(placed.replicas.size(), 0);
    }
    for (const auto& compiled : model.compiled()) requests_.push_back(compiled->create_request());
}

HeteroInferRequest::~HeteroInferRequest() { requests_.clear(); }

mosaic_tensor HeteroInferRequest::descriptor(size_t slot, const std::string& device) const {
    const Slot& s = plan_.slots[slot];
    mosaic_tensor t{};
    t.struct_size = sizeof(t);
    t.element_type = static_cast<mosaic_element_type>(s.type);
    t.rank = static_cast<uint32_t>(s.shape.size());
    t.dims = s.shape.data();
    t.data = data_[slot];
    t.byte_size = s.bytes();
    t.memory_kind = MOSAIC_MEMORY_HOST;
    const auto& on_devices = device_buffers_[slot];
    if (on_devices.empty()) return t;
    const DeviceBuffer* buffer = on_devices.front().get();  // the home: what the producer writes
    for (const auto& b : on_devices)
        if (b->device() == device) buffer = b.get();
    t.data = buffer->data();
    t.memory_kind = MOSAIC_MEMORY_DEVICE;
    t.memory_device = buffer->device().c_str();
    return t;
}

void HeteroInferRequest::copy_to_readers(size_t k) {
    for (size_t s : produces_[k]) {
        const std::vector<std::string>& replicas = slot_memory_[s].replicas;
        const mosaic_tensor home = descriptor(s, slot_memory_[s].home);
        for (size_t r = 0; r < replicas.size(); ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            memory_.copy(home, descriptor(s, replicas[r]));
            const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
            copy_us_[s][r] = static_cast<uint64_t>(us.count());
        }
    }
}

void HeteroInferRequest::infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) {
    if (outputs.size() != plan_.model_outputs.size())
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "got " + std::to_string(outputs.size()) +
                                                            " outputs, the model has " +
                                                            std::to_string(plan_.model_outputs.size()));
    // Bind every slot to memory: model inputs and outputs in place, the rest to this request's buffers.
    for (size_t s = 0; s < plan_.slots.size(); ++s) {
        const Slot& slot = plan_.slots[s];
        switch (slot.kind) {
            case Slot::Kind::model_input:
                if (slot.model_input >= inputs.size())
                    throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "got " + std::to_string(inputs.size()) +
                                                                        " inputs, the model needs more");
                data_[s] = const_cast<void*>(inputs[slot.model_input].data);
                break;
            case Slot::Kind::produced:
                data_[s] = slot.model_outputs.empty() ? buffers_[s].data() : outputs[slot.model_outputs.front()].data;
                break;
            case Slot::Kind::constant: data_[s] = const_cast<void*>(slot.constant); break;
        }
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        error_.clear();
        for (size_t k = 0; k < plan_.subgraphs.size(); ++k) {
            in_[k].clear();
            out_[k].clear();
            const std::string& device = plan_.subgraphs[k].device;
            for (size_t s : plan_.subgraphs[k].inputs) in_[k].push_back(descriptor(s, device));
            for (size_t s : plan_.subgraphs[k].outputs) out_[k].push_back(descriptor(s, device));
        }
    }
    if (chain_) run_chain();
    else run_graph();
    // Outputs that could not be written in place: a second output of one tensor, a model input or
    // a constant returned as an output.
    for (size_t o = 0; o < plan_.model_outputs.size(); ++o) {
        const size_t s = plan_.model_outputs[o];
        const Slot& slot = plan_.slots[s];
        if (slot.kind == Slot::Kind::produced && slot.model_outputs.front() == o) continue;
        if (const size_t bytes = slot.bytes()) std::memcpy(outputs[o].data, data_[s], bytes);
    }
}

void HeteroInferRequest::run_chain() {
    for (size_t k = 0; k < plan_.subgraphs.size(); ++k) {
        if (mosaic_status* status = requests_[k]->infer(in_[k], out_[k]))
            throw sdk::Error(MOSAIC_ERROR_GENERAL, failure(k, status));
        copy_to_readers(k);
    }
}

void HeteroInferRequest::run_graph() {
    std::vector<size_t> ready;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (size_t k = 0; k < plan_.subgraphs.size(); ++k) {
            pending_[k] = plan_.subgraphs[k].depends_on.size();
            if (!pending_[k]) ready.push_back(k);
        }
        in_flight_ = ready.size();  // counted before any starts, so no completion sees zero early
    }
    for (size_t k : ready) launch(k);
    std::string error;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return in_flight_ == 0; });
        error = error_;
    }
    if (!error.empty()) throw sdk::Error(MOSAIC_ERROR_GENERAL, error);
}

std::string HeteroInferRequest::failure(size_t k, mosaic_status* status) const {
    std::string text = "subgraph" + std::to_string(k) + " on " + plan_.subgraphs[k].device + " failed: " +
                       (status->message ? status->message : "(no message)");
    status->release(status);
    return text;
}

void HeteroInferRequest::launch(size_t k) {
    mosaic_status* status = requests_[k]->start(in_[k], out_[k], [](void* user, mosaic_status* st) {
        auto* c = static_cast<Completion*>(user);
        c->self->finished(c->subgraph, st);
    }, &completions_[k]);
    if (status) finished(k, status);  // it never started: no callback will come
}

void HeteroInferRequest::finished(size_t k, mosaic_status* status) {
    // Its readers start once their copies are made (none when the subgraph failed). Each slot has one
    // producer, so the copies of different subgraphs finishing at once touch different buffers.
    if (!status && !produces_[k].empty()) {
        try {
            copy_to_readers(k);
        } catch (const std::exception& e) {
            status = sdk::make_status(MOSAIC_ERROR_GENERAL, e.what());
        }
    }
    std::vector<size_t> next;
    std::unique_lock<std::mutex> lock(mutex_);
    if (status) {
        std::string text = failure(k, status);
        if (error_.empty()) error_ = std::move(text);
    } else if (error_.empty()) {
        for (size_t u : users_[k])
            if (--pending_[u] == 0) next.push_back(u);
    }
    in_flight_ += next.size();
    --in_flight_;
    if (in_flight_ == 0) done_.notify_all();
    lock.unlock();
    for (size_t u : next) launch(u);
}

std::vector<sdk::ProfilingRecord> HeteroInferRequest::profiling() const {
    // Each crossing gets a Transfer record whose exec_type is its path (crossing_memory.hpp):
    // "device-resident" (nothing moves), "device-to-device" (the time of the copy HETERO asked the
    // host for), or, through host memory, "host-staged" or "zero-copy". A device that copies a
    // crossing's host tensor into its own memory or out of it (a discrete GPU) reports the copy as
    // a Transfer record named for its subgraph's Parameter (the tensor) or Result (the tensor +
    // "/to_host", split_plan.cpp); devices reading host memory report none. Such records are folded
    // into the crossing's record ("host-staged", with their time), so that no time is counted
    // twice; those of the model's own inputs and outputs stay with their subgraph.
    std::map<std::pair<size_t, std::string>, uint64_t> crossing_us;  // by subgraph and node
    for (const Transfer& t : plan_.transfers) {
        const std::string& tensor = plan_.slots[t.slot].tensor;
        crossing_us.emplace(std::make_pair(t.from, tensor + "/to_host"), 0);
        crossing_us.emplace(std::make_pair(t.to, tensor), 0);
    }
    std::vector<sdk::ProfilingRecord> records;
    std::set<std::pair<size_t, std::string>> copied;
    for (size_t k = 0; k < requests_.size(); ++k)
        for (sdk::ProfilingRecord r : requests_[k]->profiling()) {
            const auto crossing = crossing_us.find({k, r.node_name});
            if (r.node_type == "Transfer" && crossing != crossing_us.end()) {
                crossing->second += r.real_time_us;
                copied.insert(crossing->first);
                continue;
            }
            r.node_name = "subgraph" + std::to_string(k) + ": " + r.node_name;
            records.push_back(std::move(r));
        }
    if (plan_.perf_count)
        for (const Transfer& t : plan_.transfers) {
            const Slot& s = plan_.slots[t.slot];
            const std::pair<size_t, std::string> out{t.from, s.tensor + "/to_host"}, in{t.to, s.tensor};
            const std::string& to = plan_.subgraphs[t.to].device;
            std::string path = device_path(slot_memory_[t.slot], to);
            uint64_t us = 0;
            if (path == "device-to-device") {  // the wall time of the host's copy to that device
                const std::vector<std::string>& replicas = slot_memory_[t.slot].replicas;
                us = copy_us_[t.slot][std::find(replicas.begin(), replicas.end(), to) - replicas.begin()];
            }
            if (path.empty()) {
                path = copied.count(out) || copied.count(in) ? "host-staged" : "zero-copy";
                us = crossing_us.at(out) + crossing_us.at(in);  // device time, as the copies report it
            }
            records.push_back({"transfer: " + s.tensor + " subgraph" + std::to_string(t.from) + " (" +
                                   plan_.subgraphs[t.from].device + ") -> subgraph" + std::to_string(t.to) + " (" + to +
                                   "), " + std::to_string(s.bytes()) + " bytes",
                               "Transfer", path, MOSAIC_PROFILING_EXECUTED, us, 0});
        }
    return records;
}

}  // namespace mosaic::hetero
