// Op attributes, kept as ordered name/value strings exactly as OpenVINO IR stores them, so an IR
// round trip reproduces them and the C ABI can hand them over without a type system of its own.
// Typed getters parse on demand; a bad value throws AttributeError naming the attribute.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mosaic {

class AttributeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Attributes {
public:
    using Entry = std::pair<std::string, std::string>;

    Attributes() = default;
    Attributes(std::initializer_list<Entry> entries) {
        for (const auto& e : entries) set(e.first, e.second);
    }

    const std::vector<Entry>& entries() const { return entries_; }
    bool empty() const { return entries_.empty(); }
    size_t size() const { return entries_.size(); }

    bool has(std::string_view name) const { return find(name) != nullptr; }

    // Returns nullptr when absent.
    const std::string* find(std::string_view name) const {
        for (const auto& e : entries_)
            if (e.first == name) return &e.second;
        return nullptr;
    }

    // Replaces an existing value in place (keeping its position) or appends.
    Attributes& set(std::string_view name, std::string value) {
        for (auto& e : entries_)
            if (e.first == name) {
                e.second = std::move(value);
                return *this;
            }
        entries_.emplace_back(std::string(name), std::move(value));
        return *this;
    }
    Attributes& set(std::string_view name, const char* value) { return set(name, std::string(value)); }
    Attributes& set(std::string_view name, bool value) { return set(name, std::string(value ? "true" : "false")); }
    Attributes& set(std::string_view name, int value) { return set(name, static_cast<int64_t>(value)); }
    Attributes& set(std::string_view name, int64_t value) { return set(name, std::to_string(value)); }
    Attributes& set(std::string_view name, double value) { return set(name, format_float(value)); }
    Attributes& set(std::string_view name, const std::vector<int64_t>& values) {
        std::string s;
        for (size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + std::to_string(values[i]);
        return set(name, std::move(s));
    }
    Attributes& set(std::string_view name, const std::vector<double>& values) {
        std::string s;
        for (size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + format_float(values[i]);
        return set(name, std::move(s));
    }

    const std::string& get_string(std::string_view name) const { return require(name); }
    std::string get_string(std::string_view name, const std::string& fallback) const {
        const std::string* v = find(name);
        return v ? *v : fallback;
    }

    int64_t get_int(std::string_view name) const { return parse_int(name, require(name)); }
    int64_t get_int(std::string_view name, int64_t fallback) const {
        const std::string* v = find(name);
        return v ? parse_int(name, *v) : fallback;
    }

    double get_float(std::string_view name) const { return parse_float(name, require(name)); }
    double get_float(std::string_view name, double fallback) const {
        const std::string* v = find(name);
        return v ? parse_float(name, *v) : fallback;
    }

    bool get_bool(std::string_view name) const { return parse_bool(name, require(name)); }
    bool get_bool(std::string_view name, bool fallback) const {
        const std::string* v = find(name);
        return v ? parse_bool(name, *v) : fallback;
    }

    // Comma-separated list; an empty string is an empty list.
    std::vector<int64_t> get_ints(std::string_view name) const { return parse_ints(name, require(name)); }
    std::vector<int64_t> get_ints(std::string_view name, std::vector<int64_t> fallback) const {
        const std::string* v = find(name);
        return v ? parse_ints(name, *v) : fallback;
    }
    std::vector<double> get_floats(std::string_view name) const {
        std::vector<double> out;
        for (const auto& item : split(require(name))) out.push_back(parse_float(name, item));
        return out;
    }

    bool operator==(const Attributes& o) const { return entries_ == o.entries_; }
    bool operator!=(const Attributes& o) const { return !(*this == o); }

    // Shortest text that parses back to the same double.
    static std::string format_float(double v) {
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof(buf), v);
        return std::string(buf, r.ptr);
    }

private:
    const std::string& require(std::string_view name) const {
        const std::string* v = find(name);
        if (!v) throw AttributeError("missing attribute '" + std::string(name) + "'");
        return *v;
    }

    static std::vector<std::string> split(const std::string& s) {
        std::vector<std::string> out;
        if (s.find_first_not_of(" \t") == std::string::npos) return out;
        size_t start = 0;
        while (true) {
            size_t comma = s.find(',', start);
            out.push_back(trim(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return out;
    }

    static std::string trim(const std::string& s) {
        size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    }

    [[noreturn]] static void bad(std::string_view name, const std::string& value, const char* expected) {
        throw AttributeError("attribute '" + std::string(name) + "' has value '" + value + "', expected " +
                             expected);
    }

    static int64_t parse_int(std::string_view name, const std::string& raw) {
        std::string s = trim(raw);
        int64_t v = 0;
        auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) bad(name, raw, "an integer");
        return v;
    }

    static double parse_float(std::string_view name, const std::string& raw) {
        std::string s = trim(raw);
        if (s == "inf" || s == "+inf") return 1.0 / 0.0;
        if (s == "-inf") return -1.0 / 0.0;
        char* end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size()) bad(name, raw, "a number");
        return v;
    }

    static bool parse_bool(std::string_view name, const std::string& raw) {
        std::string s = trim(raw);
        if (s == "true" || s == "1" || s == "True") return true;
        if (s == "false" || s == "0" || s == "False") return false;
        bad(name, raw, "true or false");
    }

    static std::vector<int64_t> parse_ints(std::string_view name, const std::string& raw) {
        std::vector<int64_t> out;
        for (const auto& item : split(raw)) out.push_back(parse_int(name, item));
        return out;
    }

    std::vector<Entry> entries_;
};

}  // namespace mosaic
