// Asynchronous inference for plugins that only implement the synchronous infer(): the request is
// presented as an SDK request, so the SDK's per-request worker thread (RequestHolder) runs it and
// calls the completion function, exactly as it does inside SDK plugins.
#pragma once

#include <mosaic/plugin_abi.h>
#include <mosaic/sdk/plugin.hpp>

#include <memory>

namespace mosaic {

// `shape` must outlive the descriptor.
inline mosaic_tensor descriptor(ElementType type, const Shape& shape, void* data) {
    mosaic_tensor d{};
    d.struct_size = sizeof(mosaic_tensor);
    d.element_type = static_cast<mosaic_element_type>(type);
    d.rank = static_cast<uint32_t>(shape.size());
    d.dims = shape.data();
    d.data = data;
    d.byte_size = static_cast<size_t>(shape_size(shape)) * element_size(type);
    d.memory_kind = MOSAIC_MEMORY_HOST;
    return d;
}

// Presents a plugin without start_async as an SDK request, so the SDK's worker can run it.
class SyncOnlyRequest : public sdk::InferRequest {
public:
    SyncOnlyRequest(const mosaic_plugin_api& api, mosaic_infer_request* request) : api_(api), request_(request) {}

    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override {
        std::vector<mosaic_tensor> in, out;
        for (const auto& v : inputs) in.push_back(descriptor(v.type, v.shape, const_cast<void*>(v.data)));
        for (const auto& v : outputs) out.push_back(descriptor(v.type, v.shape, v.data));
        sdk::check(api_.infer(request_, in.data(), in.size(), out.data(), out.size()));
    }

private:
    const mosaic_plugin_api& api_;
    mosaic_infer_request* request_;
};


inline std::unique_ptr<sdk::detail::RequestHolder> make_sync_only_worker(const mosaic_plugin_api& api,
                                                                         mosaic_infer_request* request) {
    return std::make_unique<sdk::detail::RequestHolder>(std::make_unique<SyncOnlyRequest>(api, request));
}

}  // namespace mosaic
