// FakeQuantize-1, as OpenVINO defines it (NNCF's int8 IR quantizes activations with it):
//
//   x <= min(input_low, input_high)  ->  output_low
//   x >  max(input_low, input_high)  ->  output_high
//   otherwise  round((x - input_low) / (input_high - input_low) * (levels - 1)) / (levels - 1)
//              * (output_high - output_low) + output_low
//
// round is half to even, as OpenVINO's reference rounds (std::nearbyint). Computed in double: the
// oracle's rounding must not depend on the order of the float operations. The bounds broadcast
// against x as numpy does (per tensor, or per channel as [1, C, 1, 1]).
#include "elementwise_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace mosaic::reference {

namespace {

void fake_quantize_kernel(const KernelArgs& args) {
    require_io(args, 5, 5, 1);
    const TensorView& out = args.outputs[0];
    const double steps = static_cast<double>(args.attrs.get_int("levels") - 1);
    dispatch<kFloat>(args.inputs[0].type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* p[5];
        BroadcastIndex index[5] = {
            BroadcastIndex(args.inputs[0].shape, out.shape), BroadcastIndex(args.inputs[1].shape, out.shape),
            BroadcastIndex(args.inputs[2].shape, out.shape), BroadcastIndex(args.inputs[3].shape, out.shape),
            BroadcastIndex(args.inputs[4].shape, out.shape)};
        for (size_t k = 0; k < 5; ++k) p[k] = args.inputs[k].as<T>();
        T* o = out.as<T>();
        for (int64_t i = 0; i < out.size(); ++i) {
            const double x = p[0][index[0](i)], il = p[1][index[1](i)], ih = p[2][index[2](i)];
            const double ol = p[3][index[3](i)], oh = p[4][index[4](i)];
            double y;
            if (x <= std::min(il, ih))
                y = ol;
            else if (x > std::max(il, ih))
                y = oh;
            else
                y = std::nearbyint((x - il) / (ih - il) * steps) / steps * (oh - ol) + ol;
            o[i] = static_cast<T>(y);
        }
    });
}

}  // namespace

void register_fake_quantize_kernel(KernelRegistry& r) { r.add("FakeQuantize", {"opset1"}, fake_quantize_kernel); }

}  // namespace mosaic::reference
