#include "image_input.hpp"

#include <stb_image.h>
#include <stb_image_resize.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>

namespace mosaic::image {

namespace {

bool is_channels(int64_t d) { return d == 1 || d == 3; }

// One decoded image, `channels` interleaved bytes per pixel, already at the input's size.
struct Pixels {
    std::vector<uint8_t> bytes;
    int width = 0, height = 0, channels = 0;
    uint8_t at(int y, int x, int c) const { return bytes[(static_cast<size_t>(y) * width + x) * channels + c]; }
};

Pixels decode(const std::string& path, const ImageGeometry& g) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw ImageError("image file '" + path + "' does not exist");
    int w = 0, h = 0, in_file = 0;
    const int channels = static_cast<int>(g.channels);
    std::unique_ptr<uint8_t, void (*)(void*)> data(stbi_load(path.c_str(), &w, &h, &in_file, channels),
                                                   stbi_image_free);
    if (!data) {
        const char* why = stbi_failure_reason();
        throw ImageError("cannot read image '" + path + "': " + (why ? why : "unknown error") +
                         " (JPEG and PNG files are read)");
    }
    Pixels p{{}, static_cast<int>(g.width), static_cast<int>(g.height), channels};
    p.bytes.resize(static_cast<size_t>(p.width) * p.height * channels);
    if (w == p.width && h == p.height) {
        std::copy_n(data.get(), p.bytes.size(), p.bytes.begin());
    } else if (!stbir_resize_uint8(data.get(), w, h, 0, p.bytes.data(), p.width, p.height, 0, channels)) {
        throw ImageError("cannot resize image '" + path + "' from " + std::to_string(w) + "x" + std::to_string(h) +
                         " to " + std::to_string(p.width) + "x" + std::to_string(p.height));
    }
    return p;
}

template <typename T>
void place(const Pixels& p, const ImageGeometry& g, ChannelOrder order, int64_t item, T* out) {
    const int64_t C = g.channels, H = g.height, W = g.width;
    T* base = out + item * C * H * W;
    for (int64_t c = 0; c < C; ++c) {
        // stb decodes RGB; BGR reads the source channels backwards.
        const int src = C == 3 && order == ChannelOrder::bgr ? static_cast<int>(2 - c) : static_cast<int>(c);
        for (int64_t y = 0; y < H; ++y)
            for (int64_t x = 0; x < W; ++x) {
                const size_t at = g.layout == Layout::nchw ? static_cast<size_t>((c * H + y) * W + x)
                                                           : static_cast<size_t>((y * W + x) * C + c);
                base[at] = static_cast<T>(p.at(static_cast<int>(y), static_cast<int>(x), src));
            }
    }
}

}  // namespace

ImageGeometry image_geometry(const Shape& shape) {
    ImageGeometry g;
    if (shape.size() == 4 && is_channels(shape[1]))
        g = {Layout::nchw, shape[0], shape[1], shape[2], shape[3]};
    else if (shape.size() == 4 && is_channels(shape[3]))
        g = {Layout::nhwc, shape[0], shape[3], shape[1], shape[2]};
    else
        throw ImageError("an image cannot feed an input of shape " + to_string(shape) +
                         ": images go to inputs of rank 4 with 3 or 1 channels, NCHW or NHWC");
    if (g.batch < 1 || g.height < 1 || g.width < 1)
        throw ImageError("an image cannot feed an input of shape " + to_string(shape) + ": it has an empty dimension");
    return g;
}

bool is_image_path(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

Tensor load_images(const std::vector<std::string>& paths, ElementType type, const Shape& shape, ChannelOrder order) {
    const ImageGeometry g = image_geometry(shape);
    if (type != ElementType::u8 && type != ElementType::f32)
        throw ImageError("an image cannot feed an input of type " + std::string(to_string(type)) +
                         ": images feed u8 or f32 inputs");
    if (paths.empty()) throw ImageError("no image file given");
    if (paths.size() != 1 && static_cast<int64_t>(paths.size()) != g.batch)
        throw ImageError(std::to_string(paths.size()) + " images given for an input of batch " +
                         std::to_string(g.batch) + " " + to_string(shape) + ": give one image, or one per batch item");
    Tensor t(type, shape);
    for (size_t i = 0; i < paths.size(); ++i) {
        const Pixels p = decode(paths[i], g);
        const int64_t first = static_cast<int64_t>(i), last = paths.size() == 1 ? g.batch : first + 1;
        for (int64_t item = first; item < last; ++item) {
            if (type == ElementType::u8)
                place(p, g, order, item, t.data<uint8_t>());
            else
                place(p, g, order, item, t.data<float>());
        }
    }
    return t;
}

}  // namespace mosaic::image
