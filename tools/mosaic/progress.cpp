#include "progress.hpp"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace mosaic::cli {

namespace {
constexpr int kWidth = 40;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

ProgressBar::ProgressBar(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}

ProgressBar::~ProgressBar() {
    if (drawn_) std::fputs("\n", stderr);  // leave the terminal on a fresh line after an error
}

void ProgressBar::update(double fraction) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_draw_ < kRedrawInterval) return;
    last_draw_ = now;
    draw(fraction);
}

void ProgressBar::finish() {
    if (!enabled_) return;
    draw(1.0);
    std::fputs("\n", stderr);
    drawn_ = false;
    enabled_ = false;
}

void ProgressBar::draw(double fraction) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    const int filled = static_cast<int>(fraction * kWidth);
    char bar[kWidth + 1];
    for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
    bar[kWidth] = '\0';
    std::fprintf(stderr, "\rProgress: [%s] %3d%%", bar, static_cast<int>(fraction * 100));
    std::fflush(stderr);
    drawn_ = true;
}

}  // namespace mosaic::cli
