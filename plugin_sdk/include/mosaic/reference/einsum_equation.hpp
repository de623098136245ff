// The equation of Einsum-7, such as "bij,bjk->bik", parsed into one subscript per input and the
// output's. Shape inference and the reference kernel both read an equation through this, so the
// two agree on what an equation means and on which equations are malformed.
//
// Supported: explicit ("->") and implicit output, repeated labels within one input (a diagonal),
// and one ellipsis per subscript. Labels are letters and case-sensitive; spaces are ignored.
//
// Errors throw std::invalid_argument whose message names the equation and the subscript at fault;
// callers rethrow it as their own error type. Everything here is pure and thread-safe.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::reference::einsum {

// One side of the equation: its labels in order and where its ellipsis sits among them, if any.
struct Subscript {
    std::string labels;
    bool has_ellipsis = false;
    size_t ellipsis_at = 0;  // the number of labels before the ellipsis
};

struct Equation {
    std::vector<Subscript> inputs;
    Subscript output;
};

// The subscript as written, e.g. "a...b".
inline std::string to_string(const Subscript& s) {
    return std::string(s.labels).insert(s.ellipsis_at, s.has_ellipsis ? "..." : "");
}

// Whether a tensor of this rank can carry the subscript: one dimension per label, plus any number
// for the ellipsis.
inline bool fits_rank(const Subscript& s, size_t rank) {
    return s.has_ellipsis ? rank >= s.labels.size() : rank == s.labels.size();
}

// `equation` is only for the error messages.
inline Subscript parse_subscript(const std::string& equation, const std::string& term) {
    Subscript s;
    for (size_t i = 0; i < term.size(); ++i) {
        const char c = term[i];
        if (std::isalpha(static_cast<unsigned char>(c))) {
            s.labels += c;
            continue;
        }
        if (term.compare(i, 3, "...") != 0)
            throw std::invalid_argument("equation '" + equation + "' has an unexpected character '" + std::string(1, c) +
                                        "' in subscript '" + term + "'; labels are letters, and '...' is the ellipsis");
        if (s.has_ellipsis)
            throw std::invalid_argument("equation '" + equation + "' has more than one ellipsis in subscript '" + term +
                                        "'");
        s.has_ellipsis = true;
        s.ellipsis_at = s.labels.size();
        i += 2;
    }
    return s;
}

// The output of an implicit equation, as ONNX and numpy define it: the ellipsis (if any input has
// one), then the labels that occur exactly once on the left side, sorted (so capitals first).
inline Subscript implicit_output(const std::vector<Subscript>& inputs) {
    std::map<char, int> counts;
    Subscript out;
    for (const auto& s : inputs) {
        for (char c : s.labels) ++counts[c];
        out.has_ellipsis |= s.has_ellipsis;
    }
    for (const auto& [label, count] : counts)
        if (count == 1) out.labels += label;
    return out;
}

// Parses `equation` for an op with `input_count` inputs. An explicit output must not repeat a
// label nor use one no input has; like numpy, it may leave out the ellipsis, which then sums those
// dimensions out.
inline Equation parse_equation(std::string equation, size_t input_count) {
    equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
    const size_t arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    Equation eq;
    for (size_t start = 0;;) {
        const size_t comma = lhs.find(',', start);
        eq.inputs.push_back(parse_subscript(equation, lhs.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (eq.inputs.size() != input_count)
        throw std::invalid_argument("equation '" + equation + "' has " + std::to_string(eq.inputs.size()) +
                                    " input subscripts but the op has " + std::to_string(input_count) + " inputs");
    if (arrow == std::string::npos) {
        eq.output = implicit_output(eq.inputs);
        return eq;
    }
    eq.output = parse_subscript(equation, equation.substr(arrow + 2));
    for (size_t i = 0; i < eq.output.labels.size(); ++i) {
        const std::string label(1, eq.output.labels[i]);
        if (eq.output.labels.find(label) != i)
            throw std::invalid_argument("equation '" + equation + "' repeats label '" + label +
                                        "' in the output subscript");
        const bool in_inputs = std::any_of(eq.inputs.begin(), eq.inputs.end(), [&](const Subscript& s) {
            return s.labels.find(label) != std::string::npos;
        });
        if (!in_inputs)
            throw std::invalid_argument("equation '" + equation + "' has output label '" + label +
                                        "' that no input subscript has");
    }
    return eq;
}

}  // namespace mosaic::reference::einsum
