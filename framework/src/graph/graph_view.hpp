// The host's implementation of the ABI's read-only graph view over a snapshot of a Model.
// The snapshot (a clone sharing constant buffers) keeps weights alive for as long as a compiled
// model built from the view exists, which is what lets plugins use constant data without copying.
#pragma once

#include <mosaic/model.hpp>
#include <mosaic/plugin_abi.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace mosaic {

class HostGraph {
public:
    // query_model asks for the devices' capabilities, which affinities set by the user must not
    // change (OpenVINO documents it so); compile_model follows them.
    enum class Affinities { follow, ignore };
    // Snapshots `model`, which must be validated with static shapes (throws ModelError otherwise).
    explicit HostGraph(const Model& model, Affinities affinities = Affinities::follow);
    // The same over a copy the caller made (and may have rewritten): taken, not copied again.
    explicit HostGraph(std::shared_ptr<Model> owned, Affinities affinities = Affinities::follow);

    mosaic_graph_view view() const;
    const Model& model() const { return *model_; }
    // Nodes in view order: topological, Parameters in input order, Results last in output order.
    const std::vector<const Node*>& get_ops() const { return nodes_; }
    size_t index_of(const Node* node) const { return index_.at(node); }

private:
    friend struct HostGraphAccess;
    std::shared_ptr<Model> model_;
    std::vector<const Node*> nodes_;
    std::unordered_map<const Node*, size_t> index_;
};

}  // namespace mosaic
