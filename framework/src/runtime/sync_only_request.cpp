#include "runtime/sync_only_request.hpp"

#include <mosaic/sdk/status.hpp>

namespace mosaic {

mosaic_status* SyncOnlyRequest::start(const mosaic_tensor* inputs, size_t n_in, const mosaic_tensor* outputs,
                                      size_t n_out, mosaic_completion_fn done, void* user_data) noexcept {
    return sdk::guard([&] {
        if (running_.exchange(true)) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "request is already running");
        try {
            inputs_.assign(inputs, inputs + n_in);
            outputs_.assign(outputs, outputs + n_out);
            dims_.clear();
            dims_.reserve(n_in + n_out);
            for (auto* list : {&inputs_, &outputs_})
                for (mosaic_tensor& t : *list) {
                    dims_.emplace_back(t.dims, t.dims + t.rank);
                    t.dims = dims_.back().data();
                }
            worker_.post([this, done, user_data] {
                mosaic_status* status = api_.infer(request_, inputs_.data(), inputs_.size(), outputs_.data(), outputs_.size());
                running_ = false;  // before the completion, which may start the request again
                done(user_data, status);
            });
        } catch (...) {
            running_ = false;
            throw;
        }
    });
}

}  // namespace mosaic
