// Rendering a Graphviz .dot file to SVG with the `dot` program (package graphviz), run as a child
// process found on PATH. Mosaic does not link Graphviz: the .dot text is what the runtime
// produces, and rendering it is a convenience of the command line.
#pragma once

#include <string>

namespace mosaic::cli {

// Runs `dot -Tsvg DOT_PATH -o SVG_PATH`. Throws a UsageError naming DOT_PATH when `dot` is not on
// PATH or fails (with the first line it wrote to stderr); no partial SVG is left behind.
void render_svg(const std::string& dot_path, const std::string& svg_path);

}  // namespace mosaic::cli
