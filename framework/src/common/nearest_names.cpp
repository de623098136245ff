#include "common/nearest_names.hpp"

#include <algorithm>

namespace mosaic {

size_t edit_distance(std::string_view a, std::string_view b) {
    // One row of the dynamic-programming table at a time: names are short, but a model has many.
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::vector<std::string> nearest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       size_t count) {
    std::vector<std::pair<size_t, const std::string*>> close;
    for (const auto& c : candidates) close.emplace_back(edit_distance(name, c), &c);
    std::stable_sort(close.begin(), close.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < close.size() && i < count; ++i) out.push_back(*close[i].second);
    return out;
}

}  // namespace mosaic
