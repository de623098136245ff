// Strided copies, the one kernel behind every op that moves elements without computing them
// (data_movement_ops.cpp, slice_broadcast_ops.cpp): raw words of the element's size are read at
// one set of strides and written at another, so a transpose, a slice (a start offset and steps,
// negative ones too), a broadcast (a stride of 0) and a concatenation are the same launch.
#pragma once

#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

namespace mosaic::gpu_plugin {

// How many elements a copy kernel moves a work item: one; 16 consecutive ones, contiguous on both
// sides; or 16 consecutive outputs gathered from inputs a stride apart.
enum class CopyWidth { one, sixteen, gather16 };
// The copy kernel for elements of `t`'s size, `t` as the device stores it (BuildContext::device_type).
std::string word_kernel(ElementType t, CopyWidth width = CopyWidth::one);
// Why node `n`'s elements cannot be moved by the copy kernels, or "" (`empty_inputs`: see
// check_static_nonempty).
std::string check_movable(const sdk::GraphView& g, size_t n, bool empty_inputs = false);
// A possibly negative axis made non-negative for `rank`.
int64_t axis_of(int64_t axis, size_t rank);

// One strided copy: `walk.dims` elements read at its in-strides from x + x_offset, written at its
// out-strides to y + y_offset.
struct Copy {
    size_t input = 0, output = 0;  // indices into the executor's inputs / outputs
    cl_int x_offset = 0, y_offset = 0;
    Walk walk;
    int64_t count = 0;
};

class CopyExecutor : public Executor {
public:
    CopyExecutor(const BuildContext& ctx, size_t n, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                 std::vector<Copy> copies);

    void enqueue(const ExecContext& ctx) const override;
    // The kernel, or copy_buffer where every copy is a block copy.
    std::string exec_type() const override;

private:
    CopyWidth width_;
    std::string kernel_;
    std::vector<Copy> copies_;
    std::vector<bool> block_;  // per copy: one contiguous run to another, the driver's buffer copy
    size_t element_bytes_;
};

// The copies of node `n`'s input 0 into its output 0: the executor of an op that moves one tensor.
std::unique_ptr<Executor> copies_of_input(const BuildContext& ctx, size_t n, std::vector<Copy> copies);

}  // namespace mosaic::gpu_plugin
