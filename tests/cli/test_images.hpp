// Test images written with stb_image_write: a pattern distinct in every channel, row and column.
#pragma once

#include <stb_image_write.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mosaic::cli_test {

// A pixel of the test pattern: distinct in every channel, row and column.
inline uint8_t pattern(int y, int x, int c) { return static_cast<uint8_t>((y * 7 + x * 3 + c * 85) % 256); }

// Writes a w x h image of the test pattern with `channels` (1 or 3) as PNG or JPEG by extension.
inline void write_image(const std::string& path, int w, int h, int channels) {
    std::vector<uint8_t> px(static_cast<size_t>(w) * h * channels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c) px[(static_cast<size_t>(y) * w + x) * channels + c] = pattern(y, x, c);
    const bool png = path.size() > 4 && path.substr(path.size() - 4) == ".png";
    const int ok = png ? stbi_write_png(path.c_str(), w, h, channels, px.data(), w * channels)
                       : stbi_write_jpg(path.c_str(), w, h, channels, px.data(), 95);
    ASSERT_NE(ok, 0) << "stb could not write " << path;
}

}  // namespace mosaic::cli_test
