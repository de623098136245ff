// Dimensions with bounds, as OpenVINO's ov::Dimension and ov::PartialShape: a dimension is static
// (3), dynamic (?) or a range (1..8, 2.., ..8). A model input declared with ranges compiles once and
// runs at any shape inside them; a tensor outside is refused before anything runs.
//
// Graph shapes (Shape) keep only -1 for anything not static: ranges matter at the model's inputs,
// where the compiled model checks the tensors it is given, and there they are kept as a Parameter's
// `shape` attribute ("1..8,3,?,?", as OpenVINO's IR writes it).
#pragma once

#include <mosaic/element_type.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mosaic {

class Dimension {
public:
    // Fully dynamic.
    Dimension() = default;
    // A static length; -1 is fully dynamic (Shape's convention).
    Dimension(int64_t length) : min_(length < 0 ? 0 : length), max_(length) {}  // NOLINT: implicit, as in OpenVINO
    // A range; max -1 is unbounded. Throws std::invalid_argument when min > max or min < 0.
    Dimension(int64_t min, int64_t max) : min_(min), max_(max) {
        if (min < 0 || (max >= 0 && min > max))
            throw std::invalid_argument("Dimension(" + std::to_string(min) + ", " + std::to_string(max) +
                                        "): expected 0 <= min <= max (max -1 for unbounded)");
    }
    static Dimension dynamic() { return Dimension(); }

    bool is_static() const { return max_ >= 0 && min_ == max_; }
    bool is_dynamic() const { return !is_static(); }
    // The static length; throws std::logic_error for a dynamic dimension.
    int64_t get_length() const {
        if (!is_static()) throw std::logic_error("dimension " + to_string() + " is dynamic; it has no length");
        return max_;
    }
    int64_t get_min_length() const { return min_; }
    // -1 when unbounded.
    int64_t get_max_length() const { return max_; }
    bool contains(int64_t length) const { return length >= min_ && (max_ < 0 || length <= max_); }
    // The graph's spelling: the length, or -1 for anything not static.
    int64_t graph_length() const { return is_static() ? max_ : kDynamicDim; }

    // "3", "?", "1..8", "2..", "..8", as OpenVINO prints and IR writes them.
    std::string to_string() const {
        if (is_static()) return std::to_string(max_);
        if (min_ == 0 && max_ < 0) return "?";
        return (min_ > 0 ? std::to_string(min_) : "") + ".." + (max_ >= 0 ? std::to_string(max_) : "");
    }
    // Reads to_string()'s forms and "-1"; nullopt for anything else.
    static std::optional<Dimension> parse(std::string_view text);

    bool operator==(const Dimension& o) const { return min_ == o.min_ && max_ == o.max_; }
    bool operator!=(const Dimension& o) const { return !(*this == o); }

private:
    int64_t min_ = 0;
    int64_t max_ = -1;
};

class PartialShape {
public:
    PartialShape() = default;
    PartialShape(std::initializer_list<Dimension> dims) : dims_(dims) {}
    PartialShape(const Shape& shape) : dims_(shape.begin(), shape.end()) {}  // NOLINT: implicit, as in OpenVINO
    explicit PartialShape(std::vector<Dimension> dims) : dims_(std::move(dims)) {}

    size_t size() const { return dims_.size(); }
    size_t rank() const { return dims_.size(); }
    const Dimension& operator[](size_t i) const { return dims_[i]; }
    std::vector<Dimension>::const_iterator begin() const { return dims_.begin(); }
    std::vector<Dimension>::const_iterator end() const { return dims_.end(); }

    bool is_static() const {
        for (const auto& d : dims_)
            if (!d.is_static()) return false;
        return true;
    }
    bool is_dynamic() const { return !is_static(); }
    // The graph's spelling: -1 for every dimension that is not static.
    Shape to_shape() const {
        Shape s;
        for (const auto& d : dims_) s.push_back(d.graph_length());
        return s;
    }
    // Whether a concrete shape fits: same rank, every dimension inside its range.
    bool contains(const Shape& shape) const {
        if (shape.size() != dims_.size()) return false;
        for (size_t i = 0; i < shape.size(); ++i)
            if (!dims_[i].contains(shape[i])) return false;
        return true;
    }

    // "[1..8,3,?,?]".
    std::string to_string() const {
        std::string out = "[";
        for (size_t i = 0; i < dims_.size(); ++i) out += (i ? "," : "") + dims_[i].to_string();
        return out + "]";
    }
    // The IR `shape` attribute's spelling, "1..8,3,?,?" ("" for a scalar).
    std::string to_attribute() const {
        std::string out;
        for (size_t i = 0; i < dims_.size(); ++i) out += (i ? "," : "") + dims_[i].to_string();
        return out;
    }
    // Reads to_attribute()'s form (brackets around it are accepted); nullopt and `bad_item` set to
    // the dimension that is neither a number, "?", "-1" nor a range.
    static std::optional<PartialShape> parse(std::string_view text, std::string* bad_item = nullptr);

    bool operator==(const PartialShape& o) const { return dims_ == o.dims_; }
    bool operator!=(const PartialShape& o) const { return !(*this == o); }

private:
    std::vector<Dimension> dims_;
};

inline std::optional<Dimension> Dimension::parse(std::string_view text) {
    auto trim = [](std::string_view s) {
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
        return s;
    };
    auto number = [](std::string_view s) -> std::optional<int64_t> {
        if (s.empty() || s.size() > 18) return std::nullopt;
        int64_t v = 0;
        for (char c : s) {
            if (c < '0' || c > '9') return std::nullopt;
            v = v * 10 + (c - '0');
        }
        return v;
    };
    const std::string_view s = trim(text);
    if (s == "?" || s == "-1") return Dimension();
    const size_t dots = s.find("..");
    if (dots == std::string_view::npos) {
        const auto v = number(s);
        return v ? std::optional<Dimension>(Dimension(*v)) : std::nullopt;
    }
    const std::string_view lo = trim(s.substr(0, dots)), hi = trim(s.substr(dots + 2));
    const auto l = lo.empty() ? std::optional<int64_t>(0) : number(lo);
    const auto h = hi.empty() ? std::optional<int64_t>(-1) : number(hi);
    if (!l || !h || (*h >= 0 && *l > *h)) return std::nullopt;
    return Dimension(*l, *h);
}

inline std::optional<PartialShape> PartialShape::parse(std::string_view text, std::string* bad_item) {
    if (!text.empty() && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
    std::vector<Dimension> dims;
    if (text.find_first_not_of(' ') == std::string_view::npos) return PartialShape();
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        const std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        const auto d = Dimension::parse(item);
        if (!d) {
            if (bad_item) *bad_item = std::string(item);
            return std::nullopt;
        }
        dims.push_back(*d);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return PartialShape(std::move(dims));
}

}  // namespace mosaic
