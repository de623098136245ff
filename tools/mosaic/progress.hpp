// A one-line progress bar on stderr, drawn only when stderr is a terminal (so logs and pipes stay
// clean) and redrawn at most ten times a second.
#pragma once

#include <chrono>

namespace mosaic::cli {

class ProgressBar {
public:
    // `enabled` false, or stderr not a terminal: every call does nothing.
    explicit ProgressBar(bool enabled);
    ~ProgressBar();
    // `fraction` of the work done, 0..1.
    void update(double fraction);
    // Draws 100% and ends the line.
    void finish();

private:
    void draw(double fraction);

    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace mosaic::cli
