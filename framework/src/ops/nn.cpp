// Op schemas of the nn group: each family lives in its own nn_*.cpp file.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

void register_nn_ops(OpRegistry& r) {
    register_nn_convolution_ops(r);
    register_nn_matmul_ops(r);
    register_nn_pooling_ops(r);
    register_nn_softmax_ops(r);
    register_nn_normalization_ops(r);
    register_nn_interpolate_ops(r);
    register_nn_topk_ops(r);
    register_recurrent_ops(r);
    register_nn_grid_sample_ops(r);
    register_nn_col2im_ops(r);
    register_nn_roi_align_ops(r);
    register_nn_det_ops(r);
    register_nn_detection_ops(r);
    register_nn_attention_ops(r);
}

}  // namespace mosaic::ops
