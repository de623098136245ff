// The host's side of run-time control flow (control_flow.hpp) in a staged request: the If's
// condition or the Loop's trip count and condition read from the prefix's outputs, the bodies run
// on requests of their own compiled models (made on first use, kept for the next inference).
#include "compiled_model_impl.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace mosaic {

namespace {

// The one value of a condition or trip count (shape inference checked the type and count when
// the shape was static; the tensor is checked here all the same).
template <typename T>
T one_value(const StagedModel& staged, const Tensor& t, ElementType type, const char* what) {
    if (t.get_element_type() != type || t.get_size() != 1)
        throw ModelError(staged.type + " '" + staged.name + "': the " + what + " must be one " + to_string(type) +
                         ", got " + to_string(t.get_element_type()) + " " + to_string(t.get_shape()));
    T v{};
    std::memcpy(&v, t.data(), sizeof(T));
    return v;
}

bool one_bool(const StagedModel& staged, const Tensor& t, const char* what) {
    return one_value<uint8_t>(staged, t, ElementType::boolean, what) != 0;
}

}  // namespace

InferRequest::Impl& InferRequest::Impl::body_request(size_t index) {
    if (body_requests_.empty()) body_requests_.resize(model_->staged().bodies.size());
    std::shared_ptr<Impl>& request = body_requests_.at(index);
    if (!request) request = std::make_shared<Impl>(model_->body(index));
    return *request;
}

std::vector<Tensor> InferRequest::Impl::run_body(const std::vector<Tensor>& op_inputs) {
    taken_.reset();
    iterations_ = 0;
    return model_->staged().type == "Loop" ? run_loop(op_inputs) : run_if(op_inputs);
}

std::vector<Tensor> InferRequest::Impl::run_if(const std::vector<Tensor>& op_inputs) {
    const StagedModel& staged = model_->staged();
    const size_t taken = one_bool(staged, op_inputs.at(0), "condition") ? 0 : 1;
    if (!model_->body(taken))
        throw ModelError(staged.type + " '" + staged.name + "': the condition takes its " + body_label(staged.type, taken) +
                         ", which does not hold at this model's shapes: " + model_->body_error(taken));
    Impl& request = body_request(taken);
    for (size_t i = 1; i < op_inputs.size(); ++i) request.set_tensor(i - 1, true, op_inputs[i]);
    request.infer();
    taken_ = taken;
    return request.outputs_;
}

std::vector<Tensor> InferRequest::Impl::run_loop(const std::vector<Tensor>& op_inputs) {
    const StagedModel& staged = model_->staged();
    int64_t trip_count = one_value<int64_t>(staged, op_inputs.at(0), ElementType::i64, "trip count M");
    // OpenVINO's Loop runs without bound on a negative trip count; ONNX's runs no iteration.
    if (trip_count < 0 && staged.attrs.get_string("negative_trip_count_unbounded", "false") == "true")
        trip_count = std::numeric_limits<int64_t>::max();
    bool keep_going = one_bool(staged, op_inputs.at(1), "condition");
    const size_t carried = static_cast<size_t>(staged.attrs.get_int("carried"));
    const bool ignore_body_condition = staged.attrs.get_string("ignore_body_condition", "false") == "true";
    Impl& request = body_request(0);
    const size_t scans = request.outputs_.size() - 1 - carried;

    // The body's inputs: iteration number, condition, carried values (updated each iteration),
    // then the captured values (the same every iteration).
    Tensor iteration(ElementType::i64, {}), condition(ElementType::boolean, {});
    std::vector<Tensor> state(op_inputs.begin() + 2, op_inputs.begin() + 2 + static_cast<std::ptrdiff_t>(carried));
    for (size_t i = 2 + carried; i < op_inputs.size(); ++i) request.set_tensor(i, true, op_inputs[i]);
    std::vector<std::vector<uint8_t>> scanned(scans);
    std::vector<Shape> scan_shapes(scans);  // each iteration's, which must agree
    const uint64_t limit = model_->max_loop_iterations();
    int64_t i = 0;
    for (; keep_going && i < trip_count; ++i) {
        if (static_cast<uint64_t>(i) >= limit)
            throw ModelError(staged.type + " '" + staged.name + "': still running after " + std::to_string(limit) +
                             " iterations (the compile property " + kMaxLoopIterationsKey +
                             "); if the loop is meant to run longer, raise it");
        *iteration.data<int64_t>() = i;
        *condition.data<uint8_t>() = 1;
        request.set_tensor(0, true, iteration);
        request.set_tensor(1, true, condition);
        for (size_t k = 0; k < carried; ++k) request.set_tensor(2 + k, true, state[k]);
        request.infer();
        if (!ignore_body_condition) keep_going = one_bool(staged, request.outputs_[0], "condition the body returns");
        // The body's outputs are its request's buffers, written again next iteration.
        for (size_t k = 0; k < carried; ++k) state[k] = request.outputs_[1 + k].clone();
        for (size_t s = 0; s < scans; ++s) {
            const Tensor& t = request.outputs_[1 + carried + s];
            if (i == 0) scan_shapes[s] = t.get_shape();
            else if (t.get_shape() != scan_shapes[s])
                throw ModelError(staged.type + " '" + staged.name + "': scanned value " + std::to_string(s) + " is " +
                                 to_string(scan_shapes[s]) + " in the first iteration but " + to_string(t.get_shape()) +
                                 " in iteration " + std::to_string(i) + "; the values stacked must agree in shape");
            const auto* bytes = static_cast<const uint8_t*>(t.data());
            scanned[s].insert(scanned[s].end(), bytes, bytes + t.get_byte_size());
        }
    }
    iterations_ = static_cast<uint64_t>(i);
    if (i > 0) taken_ = 0;

    std::vector<Tensor> out = std::move(state);
    for (size_t s = 0; s < scans; ++s) {
        const PortDesc& port = model_->body(0)->outputs()[1 + carried + s];
        Shape shape{i};
        // No iteration ran: the body's declared shape, a dimension it does not know being empty.
        if (i == 0)
            for (int64_t d : port.shape) scan_shapes[s].push_back(std::max<int64_t>(d, 0));
        shape.insert(shape.end(), scan_shapes[s].begin(), scan_shapes[s].end());
        Tensor stacked(port.type, shape);
        if (!scanned[s].empty()) std::memcpy(stacked.data(), scanned[s].data(), scanned[s].size());
        out.push_back(std::move(stacked));
    }
    return out;
}

std::string InferRequest::Impl::host_exec_type() const {
    if (model_->staged().type == "Loop") return "host: " + std::to_string(iterations_) + " iterations of the body";
    if (!taken_) return "host: no branch ran";
    return "host: " + body_label(model_->staged().type, *taken_);
}

}  // namespace mosaic
