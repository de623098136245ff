// Any: a value of runtime information, spelled as OpenVINO's ov::Any so that
//   op->get_rt_info()["affinity"] = "CPU";
//   std::string d = op->get_rt_info().at("affinity").as<std::string>();
// port unchanged. It holds a JSON value (what IR rt_info and properties carry); as<T>() converts
// the way OpenVINO does for the common cases: any value reads as a string, "YES"/"NO" read as bool.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace mosaic {

class Any {
public:
    Any() = default;
    Any(const char* s) : value_(s ? std::string(s) : std::string()) {}
    Any(std::string s) : value_(std::move(s)) {}
    Any(nlohmann::json v) : value_(std::move(v)) {}
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    Any(T v) : value_(v) {}

    bool empty() const { return value_.is_null(); }
    const nlohmann::json& value() const { return value_; }

    template <typename T> bool is() const {
        if constexpr (std::is_same_v<T, std::string>) return value_.is_string();
        else if constexpr (std::is_same_v<T, bool>) return value_.is_boolean();
        else if constexpr (std::is_arithmetic_v<T>) return value_.is_number();
        else return false;
    }

    // Throws std::invalid_argument naming the value when it does not convert.
    template <typename T> T as() const {
        if constexpr (std::is_same_v<T, std::string>) {
            return value_.is_string() ? value_.get<std::string>() : value_.is_null() ? std::string() : value_.dump();
        } else if constexpr (std::is_same_v<T, bool>) {
            if (value_.is_boolean()) return value_.get<bool>();
            if (value_.is_string()) {
                const auto& s = value_.get_ref<const std::string&>();
                if (s == "YES" || s == "true" || s == "True" || s == "1") return true;
                if (s == "NO" || s == "false" || s == "False" || s == "0") return false;
            }
            throw std::invalid_argument("Any: " + value_.dump() + " is not a boolean (YES/NO, true/false)");
        } else if constexpr (std::is_arithmetic_v<T>) {
            if (value_.is_number()) return value_.get<T>();
            if (value_.is_string()) {
                try {
                    size_t used = 0;
                    const auto& s = value_.get_ref<const std::string&>();
                    const long double v = std::stold(s, &used);
                    if (used == s.size()) return static_cast<T>(v);
                } catch (const std::exception&) {
                }
            }
            throw std::invalid_argument("Any: " + value_.dump() + " is not a number");
        } else {
            return value_.get<T>();
        }
    }

    bool operator==(const Any& o) const { return value_ == o.value_; }
    bool operator!=(const Any& o) const { return !(*this == o); }
    friend bool operator==(const Any& a, const std::string& s) { return a.value_.is_string() && a.value_ == s; }
    friend bool operator==(const Any& a, const char* s) { return s && a == std::string(s); }
    friend bool operator!=(const Any& a, const std::string& s) { return !(a == s); }
    friend bool operator!=(const Any& a, const char* s) { return !(a == s); }
    friend std::ostream& operator<<(std::ostream& os, const Any& a) { return os << a.as<std::string>(); }

private:
    nlohmann::json value_;
};

// Runtime information of a node or a model, e.g. "affinity" -> "GPU" (OpenVINO's ov::RTMap).
using RTMap = std::map<std::string, Any>;

}  // namespace mosaic
