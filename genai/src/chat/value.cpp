#include "chat/value.hpp"

#include "chat/builtins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace mosaic::genai::chat {

void fail(std::string message) { throw ValueError{std::move(message)}; }

void fail_undefined(const Value& v) {
    fail(v.undefined_message.empty() ? std::string("value is undefined") : v.undefined_message);
}

const Value* CallArgs::find(size_t index, const char* name) const {
    if (index < positional.size()) return &positional[index];
    if (name)
        for (const auto& [k, v] : keyword)
            if (k == name) return &v;
    return nullptr;
}

Value CallArgs::get(size_t index, const char* name, const Value& fallback) const {
    const Value* v = find(index, name);
    return v ? *v : fallback;
}

void CallArgs::allow(size_t max_positional, std::initializer_list<const char*> names) const {
    if (positional.size() > max_positional)
        fail(what + "() takes at most " + std::to_string(max_positional) + " positional arguments (" +
             std::to_string(positional.size()) + " given)");
    for (const auto& [k, v] : keyword) {
        bool known = false;
        for (const char* n : names) known = known || k == n;
        if (!known) fail(what + "() got an unexpected keyword argument '" + k + "'");
    }
}

std::string type_name(const Value& v) {
    switch (v.kind) {
    case Value::Kind::Undefined: return "Undefined";
    case Value::Kind::Object: return v.object->type_name;
    case Value::Kind::Callable: return "function";
    case Value::Kind::Json: break;
    }
    const Json& j = v.j();
    if (j.is_null()) return "NoneType";
    if (j.is_boolean()) return "bool";
    if (j.is_number_integer()) return "int";
    if (j.is_number_float()) return "float";
    if (j.is_string()) return "str";
    if (j.is_array()) return "list";
    return "dict";
}

std::string object_type_repr(const Value& v) {
    if (v.is_none()) return "None";
    return type_name(v) + " object";
}

bool truthy(const Value& v) {
    switch (v.kind) {
    case Value::Kind::Undefined: return false;
    case Value::Kind::Object:
    case Value::Kind::Callable: return true;
    case Value::Kind::Json: break;
    }
    const Json& j = v.j();
    if (j.is_null()) return false;
    if (j.is_boolean()) return j.get<bool>();
    if (j.is_number_float()) return j.get<double>() != 0.0;
    if (j.is_number()) return as_int(v) != 0;
    if (j.is_string()) return !j.get_ref<const std::string&>().empty();
    return !j.empty();
}

double as_double(const Value& v) {
    if (!v.is_number()) fail("expected a number, got " + type_name(v));
    if (v.j().is_boolean()) return v.j().get<bool>() ? 1.0 : 0.0;
    if (v.j().is_number_unsigned()) return static_cast<double>(v.j().get<uint64_t>());
    if (v.j().is_number_integer()) return static_cast<double>(v.j().get<int64_t>());
    return v.j().get<double>();
}

int64_t as_int(const Value& v) {
    if (!v.is_json()) fail("expected an integer, got " + type_name(v));
    const Json& j = v.j();
    if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
    if (j.is_number_unsigned()) {
        uint64_t u = j.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) fail("integer too large");
        return static_cast<int64_t>(u);
    }
    if (j.is_number_integer()) return j.get<int64_t>();
    fail("expected an integer, got " + type_name(v));
}

std::string float_repr(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    // Python's repr: the shortest digits that read back as the same double.
    char buf[64];
    int precision = 1;
    for (; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
        if (std::strtod(buf, nullptr) == d) break;
    }
    std::string s(buf);
    bool negative = s[0] == '-';
    if (negative) s.erase(0, 1);
    size_t e = s.find('e');
    int exponent = std::atoi(s.c_str() + e + 1);
    std::string digits;
    for (size_t i = 0; i < e; ++i)
        if (s[i] != '.') digits += s[i];
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    std::string out;
    if (exponent < -4 || exponent >= 16) {
        out = digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        char eb[16];
        std::snprintf(eb, sizeof eb, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        out += eb;
    } else if (exponent >= 0) {
        std::string whole = digits.substr(0, std::min<size_t>(digits.size(), exponent + 1));
        while (static_cast<int>(whole.size()) < exponent + 1) whole += '0';
        std::string frac = digits.size() > static_cast<size_t>(exponent + 1) ? digits.substr(exponent + 1) : "0";
        out = whole + "." + frac;
    } else {
        out = "0." + std::string(-exponent - 1, '0') + digits;
    }
    return negative ? "-" + out : out;
}

static std::string repr_string(const std::string& s) {
    const bool use_double = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char quote = use_double ? '"' : '\'';
    std::string out(1, quote);
    for (unsigned char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == static_cast<unsigned char>(quote)) out += std::string("\\") + quote;
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            out += b;
        } else out += static_cast<char>(c);
    }
    return out + quote;
}

// Deeply nested data (hostile input) must not exhaust the stack.
constexpr int kMaxDataDepth = 500;

static std::string json_repr(const Json& j, bool top, int depth = 0) {
    if (depth > kMaxDataDepth) fail("data nested too deeply");
    if (j.is_string()) return top ? j.get<std::string>() : repr_string(j.get_ref<const std::string&>());
    if (j.is_null()) return "None";
    if (j.is_boolean()) return j.get<bool>() ? "True" : "False";
    if (j.is_number_float()) return float_repr(j.get<double>());
    if (j.is_number_unsigned()) return std::to_string(j.get<uint64_t>());
    if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
    std::string out;
    if (j.is_array()) {
        out = "[";
        bool first = true;
        for (const auto& e : j) {
            if (!first) out += ", ";
            first = false;
            out += json_repr(e, false, depth + 1);
        }
        return out + "]";
    }
    out = "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += ", ";
        first = false;
        out += repr_string(it.key()) + ": " + json_repr(it.value(), false, depth + 1);
    }
    return out + "}";
}

std::string to_str(const Value& v) {
    switch (v.kind) {
    case Value::Kind::Undefined: return "";
    case Value::Kind::Object: return "<" + v.object->type_name + ">";
    case Value::Kind::Callable: return "<function " + v.callable->name + ">";
    case Value::Kind::Json: return json_repr(v.j(), true);
    }
    return "";
}

std::string repr(const Value& v) {
    if (v.is_json()) return json_repr(v.j(), false);
    return to_str(v);
}

static bool json_equals(const Json& a, const Json& b, int depth = 0) {
    if (depth > kMaxDataDepth) fail("data nested too deeply");
    const bool an = a.is_number() || a.is_boolean(), bn = b.is_number() || b.is_boolean();
    if (an && bn) {
        if (a.is_number_float() || b.is_number_float()) return as_double(Value(a)) == as_double(Value(b));
        if (a.is_number_unsigned() && b.is_number_unsigned()) return a.get<uint64_t>() == b.get<uint64_t>();
        Value va(a), vb(b);
        if ((a.is_number_unsigned() && a.get<uint64_t>() > INT64_MAX) ||
            (b.is_number_unsigned() && b.get<uint64_t>() > INT64_MAX))
            return false;
        return as_int(va) == as_int(vb);
    }
    if (a.type() != b.type()) return false;
    if (a.is_array()) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (!json_equals(a[i], b[i], depth + 1)) return false;
        return true;
    }
    if (a.is_object()) {
        if (a.size() != b.size()) return false;
        for (auto it = a.begin(); it != a.end(); ++it) {
            auto f = b.find(it.key());
            if (f == b.end() || !json_equals(it.value(), *f, depth + 1)) return false;
        }
        return true;
    }
    return a == b;
}

bool equals(const Value& a, const Value& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
    case Value::Kind::Undefined: return true;
    case Value::Kind::Object: return a.object == b.object;
    case Value::Kind::Callable: return a.callable == b.callable;
    case Value::Kind::Json: return json_equals(a.j(), b.j());
    }
    return false;
}

int compare(const Value& a, const Value& b, const char* op) {
    if (a.is_undefined()) fail_undefined(a);
    if (b.is_undefined()) fail_undefined(b);
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) {
            double x = as_double(a), y = as_double(b);
            return x < y ? -1 : (x > y ? 1 : 0);
        }
        int64_t x = as_int(a), y = as_int(b);
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (a.is_string() && b.is_string()) return a.str().compare(b.str()) < 0 ? -1 : (a.str() == b.str() ? 0 : 1);
    if (a.is_list() && b.is_list()) {
        const size_t n = std::min(a.j().size(), b.j().size());
        for (size_t i = 0; i < n; ++i) {
            Value x = Value::borrowed(a.json, a.j()[i]), y = Value::borrowed(b.json, b.j()[i]);
            if (!equals(x, y)) return compare(x, y, op);
        }
        return a.j().size() < b.j().size() ? -1 : (a.j().size() > b.j().size() ? 1 : 0);
    }
    fail(std::string("'") + op + "' not supported between instances of '" + type_name(a) + "' and '" +
         type_name(b) + "'");
}

static void dump_string(const std::string& s, std::string& out) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (c < 0x20) {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", c);
                out += b;
            } else out += static_cast<char>(c);
        }
    }
    out += '"';
}

static void dump_json(const Json& j, int indent, int level, const std::string& item_sep,
                      const std::string& key_sep, std::string& out) {
    if (level > kMaxDataDepth) fail("data nested too deeply");
    if (j.is_string()) return dump_string(j.get_ref<const std::string&>(), out);
    if (j.is_null()) { out += "null"; return; }
    if (j.is_boolean()) { out += j.get<bool>() ? "true" : "false"; return; }
    if (j.is_number_float()) {
        double d = j.get<double>();
        out += std::isnan(d) ? "NaN" : std::isinf(d) ? (d < 0 ? "-Infinity" : "Infinity") : float_repr(d);
        return;
    }
    if (j.is_number()) { out += json_repr(j, true); return; }
    const bool array = j.is_array();
    if (j.empty()) { out += array ? "[]" : "{}"; return; }
    out += array ? '[' : '{';
    const std::string newline = indent >= 0 ? "\n" + std::string(static_cast<size_t>(indent) * (level + 1), ' ') : "";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += item_sep;
        first = false;
        out += newline;
        if (!array) {
            dump_string(it.key(), out);
            out += key_sep;
        }
        dump_json(it.value(), indent, level + 1, item_sep, key_sep, out);
    }
    if (indent >= 0) out += "\n" + std::string(static_cast<size_t>(indent) * level, ' ');
    out += array ? ']' : '}';
}

std::string dumps(const Value& v, int indent, const std::string* item_sep, const std::string* key_sep) {
    if (!v.is_json()) fail("Object of type " + type_name(v) + " is not JSON serializable");
    std::string out;
    dump_json(v.j(), indent, 0, item_sep ? *item_sep : (indent >= 0 ? "," : ", "), key_sep ? *key_sep : ": ", out);
    return out;
}

Json to_json(const Value& v) {
    if (v.is_json()) return v.j();
    if (v.is_undefined()) return nullptr;  // a list literal holding an undefined name
    fail("a " + type_name(v) + " cannot be stored in a list or dict here");
}

std::vector<std::string> code_points(const std::string& s) {
    std::vector<std::string> out;
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        if (i + n > s.size()) n = 1;
        for (size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) n = 1;
        out.push_back(s.substr(i, n));
        i += n;
    }
    return out;
}

static uint32_t decode(const std::string& cp) {
    const unsigned char c = static_cast<unsigned char>(cp[0]);
    if (cp.size() == 1) return c;
    uint32_t v = cp.size() == 2 ? (c & 0x1F) : cp.size() == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < cp.size(); ++k) v = (v << 6) | (static_cast<unsigned char>(cp[k]) & 0x3F);
    return v;
}

bool is_py_space(uint32_t c) {
    return (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

std::string py_strip(const std::string& s, const Value& chars, bool left, bool right) {
    std::vector<std::string> cps = code_points(s);
    std::vector<std::string> set;
    const bool whitespace = !chars.is_json() || chars.is_none();
    if (!whitespace) {
        if (!chars.is_string()) fail("strip arg must be None or str");
        set = code_points(chars.str());
    }
    auto strip_it = [&](const std::string& cp) {
        return whitespace ? is_py_space(decode(cp)) : std::find(set.begin(), set.end(), cp) != set.end();
    };
    size_t b = 0, e = cps.size();
    if (left)
        while (b < e && strip_it(cps[b])) ++b;
    if (right)
        while (e > b && strip_it(cps[e - 1])) --e;
    std::string out;
    for (size_t i = b; i < e; ++i) out += cps[i];
    return out;
}

std::string ascii_upper(std::string s) {
    for (char& c : s)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return s;
}

std::string ascii_lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

std::vector<Value> iterate(const Value& v) {
    std::vector<Value> out;
    if (v.is_undefined()) return out;
    if (v.is_list()) {
        for (const auto& e : v.j()) out.push_back(Value::borrowed(v.json, e));
        return out;
    }
    if (v.is_dict()) {
        for (auto it = v.j().begin(); it != v.j().end(); ++it) out.emplace_back(Json(it.key()));
        return out;
    }
    if (v.is_string()) {
        for (auto& cp : code_points(v.str())) out.emplace_back(Json(std::move(cp)));
        return out;
    }
    fail("'" + type_name(v) + "' object is not iterable");
}

int64_t length(const Value& v) {
    if (v.is_undefined()) return 0;
    if (v.is_string()) return static_cast<int64_t>(code_points(v.str()).size());
    if (v.is_list() || v.is_dict()) return static_cast<int64_t>(v.j().size());
    return -1;
}

Value get_attr(const Value& obj, const std::string& name) {
    if (obj.is_undefined()) fail_undefined(obj);
    if (obj.kind == Value::Kind::Object) {
        auto it = obj.object->attributes.find(name);
        if (it != obj.object->attributes.end()) return it->second;
        if (obj.object->type_name == "LoopContext") {
            Value m = loop_method(obj, name);
            if (!m.is_undefined()) return m;
        }
        return Value::undefined("'" + obj.object->type_name + " object' has no attribute '" + name + "'");
    }
    if (obj.is_json()) {
        // jinja2 tries Python's attribute first: d.items is the method even when d has an "items" key.
        Value method = bound_method(obj, name);
        if (method.kind != Value::Kind::Undefined || !method.undefined_message.empty()) return method;
        if (obj.is_dict()) {
            auto it = obj.j().find(name);
            if (it != obj.j().end()) return Value::borrowed(obj.json, *it);
        }
    }
    return Value::undefined("'" + object_type_repr(obj) + "' has no attribute '" + name + "'");
}

Value get_item(const Value& obj, const Value& key) {
    if (obj.is_undefined()) fail_undefined(obj);
    if (key.is_undefined()) fail_undefined(key);
    if (obj.is_dict() && key.is_string()) {
        auto it = obj.j().find(key.str());
        if (it != obj.j().end()) return Value::borrowed(obj.json, *it);
    }
    if ((obj.is_list() || obj.is_string()) && (key.is_int() || key.is_bool())) {
        int64_t i = as_int(key);
        if (obj.is_list()) {
            const int64_t n = static_cast<int64_t>(obj.j().size());
            if (i < 0) i += n;
            if (i >= 0 && i < n) return Value::borrowed(obj.json, obj.j()[static_cast<size_t>(i)]);
        } else {
            auto cps = code_points(obj.str());
            const int64_t n = static_cast<int64_t>(cps.size());
            if (i < 0) i += n;
            if (i >= 0 && i < n) return Value(Json(cps[static_cast<size_t>(i)]));
        }
    }
    if (key.is_string()) {
        if (obj.kind == Value::Kind::Object) return get_attr(obj, key.str());
        if (obj.is_json()) {
            Value method = bound_method(obj, key.str());
            if (method.kind != Value::Kind::Undefined || !method.undefined_message.empty()) return method;
        }
        return Value::undefined("'" + object_type_repr(obj) + "' has no attribute '" + key.str() + "'");
    }
    return Value::undefined(object_type_repr(obj) + " has no element " + repr(key));
}

Value slice(const Value& obj, const Value& start, const Value& stop, const Value& step) {
    if (obj.is_undefined()) fail_undefined(obj);
    auto given = [](const Value& v) { return v.is_json() && !v.is_none(); };
    int64_t st = given(step) ? as_int(step) : 1;
    if (st == 0) fail("slice step cannot be zero");
    std::vector<Value> items;
    std::vector<std::string> cps;
    int64_t n;
    if (obj.is_string()) {
        cps = code_points(obj.str());
        n = static_cast<int64_t>(cps.size());
    } else if (obj.is_list()) {
        n = static_cast<int64_t>(obj.j().size());
    } else {
        fail("'" + type_name(obj) + "' object is not subscriptable");
    }
    // CPython's PySlice_AdjustIndices.
    auto adjust = [&](const Value& v, int64_t dflt) {
        if (!given(v)) return dflt;
        int64_t i = as_int(v);
        if (i < 0) {
            i += n;
            if (i < 0) i = st < 0 ? -1 : 0;
        } else if (i >= n) {
            i = st < 0 ? n - 1 : n;
        }
        return i;
    };
    int64_t b = adjust(start, st < 0 ? n - 1 : 0), e = adjust(stop, st < 0 ? -1 : n);
    if (obj.is_string()) {
        std::string out;
        // A step past the end stops the walk rather than overflow.
        for (int64_t i = b; st > 0 ? i < e : i > e;) {
            out += cps[static_cast<size_t>(i)];
            if (__builtin_add_overflow(i, st, &i)) break;
        }
        return Value(Json(out));
    }
    Json out = Json::array();
    for (int64_t i = b; st > 0 ? i < e : i > e;) {
        out.push_back(obj.j()[static_cast<size_t>(i)]);
        if (__builtin_add_overflow(i, st, &i)) break;
    }
    return Value(std::move(out));
}

bool contains(const Value& container, const Value& item) {
    if (container.is_undefined()) return false;
    if (container.is_string()) {
        if (item.is_undefined()) fail_undefined(item);
        if (!item.is_string())
            fail("'in <string>' requires string as left operand, not " + type_name(item));
        return container.str().find(item.str()) != std::string::npos;
    }
    if (container.is_list()) {
        for (const auto& e : container.j())
            if (equals(Value::borrowed(container.json, e), item)) return true;
        return false;
    }
    if (container.is_dict()) return item.is_string() && container.j().contains(item.str());
    fail("argument of type '" + type_name(container) + "' is not iterable");
}

}  // namespace mosaic::genai::chat
