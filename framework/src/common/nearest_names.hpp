// "Did you mean": the known names nearest a misspelt one, by edit distance. Shared by every error
// that names something unknown (an op's friendly name, a registry key) so that the hints agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mosaic {

// Levenshtein distance: insertions, deletions and substitutions each cost 1.
size_t edit_distance(std::string_view a, std::string_view b);

// Up to `count` of `candidates`, nearest `name` first (ties keep the candidates' order).
std::vector<std::string> nearest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       size_t count = 3);

}  // namespace mosaic
