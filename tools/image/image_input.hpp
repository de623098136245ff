// Images as model inputs: JPEG and PNG files decoded (stb_image), resized to the input's height and
// width (stb_image_resize) and laid out for the input, as OpenVINO's samples feed them.
//
// The behaviour, fixed so that results match OpenVINO's C++ samples (which read with OpenCV):
//   - channel order BGR by default (OpenCV's), RGB on request; a 1-channel input gets grey levels;
//   - pixel values as decoded, 0..255, with no mean or scale: normalisation belongs to the model;
//   - layout from the input shape: rank 4 with 3 or 1 channels in dimension 1 is NCHW, else in
//     dimension 3 is NHWC (NCHW wins when both fit, e.g. [1,3,8,3]);
//   - element type u8 or f32 (the values converted exactly);
//   - the batch N: image i fills batch item i; one image fills every item.
// Used by `mosaic run -i` and `mosaic benchmark -i`, and meant for the C++ samples.
#pragma once

#include <mosaic/tensor.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::image {

// A file that is missing, not an image, or corrupt; an input an image cannot feed. The message
// names the file (or the input shape) and what is wrong.
class ImageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Layout { nchw, nhwc };
enum class ChannelOrder { bgr, rgb };

struct ImageGeometry {
    Layout layout = Layout::nchw;
    int64_t batch = 0, channels = 0, height = 0, width = 0;
};

// How an image input of `shape` is laid out; throws ImageError when the shape is no image batch.
ImageGeometry image_geometry(const Shape& shape);

// Whether `path` names a file this library reads, by its extension: .png, .jpg, .jpeg (any case).
bool is_image_path(const std::string& path);

// Reads `paths` (one, or one per batch item) into a tensor of `type` and `shape`, as described at
// the top of this file.
Tensor load_images(const std::vector<std::string>& paths, ElementType type, const Shape& shape,
                   ChannelOrder order = ChannelOrder::bgr);

}  // namespace mosaic::image
