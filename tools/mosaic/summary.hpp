// How `mosaic run` shows a result tensor: its first values and a few statistics.
#pragma once

#include <mosaic/tensor.hpp>

#include <ostream>
#include <string>

namespace mosaic::cli {

// Element `i` of any element type, widened to double (booleans as 0/1).
double element_as_double(const Tensor& t, size_t i);
// Element `i` as text: integers exactly, floating values with 6 significant digits.
std::string element_as_text(const Tensor& t, size_t i);

// Prints, indented under a heading with the name, type and shape:
//   values: the first `max_values` elements
//   min / max / mean (and how many NaNs, if any)
//   argmax and top-5 per row, for a classifier-like output (rank 2, more than one class)
void print_tensor_summary(std::ostream& out, const std::string& name, const Tensor& t, size_t max_values = 10);

}  // namespace mosaic::cli
