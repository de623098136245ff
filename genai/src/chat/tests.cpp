// jinja2's tests (`x is defined`, `x is divisibleby 3`, ...), with Python's notions of type.
#include "chat/builtins.hpp"

#include <cmath>
#include <limits>
#include <unordered_map>

namespace mosaic::genai::chat {
namespace {

const Value& arg(CallArgs& a, const char* name) {
    const Value* v = a.find(0, name);
    if (!v) fail(a.what + "() missing required argument '" + name + "'");
    return *v;
}

// Whether v % d == r in Python's sense (the remainder takes d's sign); d > 0.
bool is_mod(const Value& v, int64_t d, int64_t r) {
    if (v.is_undefined()) fail_undefined(v);
    if (!v.is_number()) fail("unsupported operand type(s) for %: '" + type_name(v) + "' and 'int'");
    if (v.is_float()) return std::fmod(std::fmod(v.j().get<double>(), d) + d, d) == r;
    const int64_t m = as_int(v) % d;  // in (-d, d): adding d cannot overflow
    return (m < 0 ? m + d : m) == r;
}

bool has_case(const Value& v, bool upper) {
    if (!v.is_string()) return false;
    bool cased = false;
    for (char c : v.str()) {
        if (c >= 'a' && c <= 'z') { if (upper) return false; cased = true; }
        if (c >= 'A' && c <= 'Z') { if (!upper) return false; cased = true; }
    }
    return cased;
}

const std::unordered_map<std::string, Test>& tests() {
    static const std::unordered_map<std::string, Test> table = {
        {"defined", [](const Value& v, CallArgs&) { return !v.is_undefined(); }},
        {"undefined", [](const Value& v, CallArgs&) { return v.is_undefined(); }},
        {"none", [](const Value& v, CallArgs&) { return v.is_none(); }},
        {"string", [](const Value& v, CallArgs&) { return v.is_string(); }},
        // Python's Number includes bool.
        {"number", [](const Value& v, CallArgs&) { return v.is_number(); }},
        {"integer", [](const Value& v, CallArgs&) { return v.is_int(); }},
        {"float", [](const Value& v, CallArgs&) { return v.is_float(); }},
        {"boolean", [](const Value& v, CallArgs&) { return v.is_bool(); }},
        {"true", [](const Value& v, CallArgs&) { return v.is_bool() && v.j().get<bool>(); }},
        {"false", [](const Value& v, CallArgs&) { return v.is_bool() && !v.j().get<bool>(); }},
        {"mapping", [](const Value& v, CallArgs&) { return v.is_dict(); }},
        {"iterable",
         [](const Value& v, CallArgs&) { return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict(); }},
        {"sequence",
         [](const Value& v, CallArgs&) { return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict(); }},
        {"callable", [](const Value& v, CallArgs&) { return v.kind == Value::Kind::Callable; }},
        {"odd", [](const Value& v, CallArgs&) { return is_mod(v, 2, 1); }},
        {"even", [](const Value& v, CallArgs&) { return is_mod(v, 2, 0); }},
        {"divisibleby",
         [](const Value& v, CallArgs& a) {
             int64_t n = as_int(arg(a, "num"));
             if (n == 0) fail("integer division or modulo by zero");
             if (n == std::numeric_limits<int64_t>::min()) fail("integer overflow in divisibleby");
             return is_mod(v, n < 0 ? -n : n, 0);
         }},
        {"lower", [](const Value& v, CallArgs&) { return has_case(v, false); }},
        {"upper", [](const Value& v, CallArgs&) { return has_case(v, true); }},
        {"escaped", [](const Value&, CallArgs&) { return false; }},
        {"eq", [](const Value& v, CallArgs& a) { return equals(v, arg(a, "other")); }},
        {"ne", [](const Value& v, CallArgs& a) { return !equals(v, arg(a, "other")); }},
        {"lt", [](const Value& v, CallArgs& a) { return compare(v, arg(a, "other"), "<") < 0; }},
        {"le", [](const Value& v, CallArgs& a) { return compare(v, arg(a, "other"), "<=") <= 0; }},
        {"gt", [](const Value& v, CallArgs& a) { return compare(v, arg(a, "other"), ">") > 0; }},
        {"ge", [](const Value& v, CallArgs& a) { return compare(v, arg(a, "other"), ">=") >= 0; }},
        {"in", [](const Value& v, CallArgs& a) { return contains(arg(a, "seq"), v); }},
        // Identity: for the data a template sees, scalars of the same type and value.
        {"sameas",
         [](const Value& v, CallArgs& a) {
             const Value& o = arg(a, "other");
             if (v.kind != o.kind) return false;
             if (v.is_json() && o.is_json())
                 return v.json == o.json || (v.j().type() == o.j().type() && !v.is_list() && !v.is_dict() &&
                                             equals(v, o));
             return equals(v, o);
         }},
    };
    return table;
}

}  // namespace

Test find_test(const std::string& name) {
    static const std::unordered_map<std::string, std::string> aliases = {
        {"==", "eq"}, {"equalto", "eq"}, {"!=", "ne"}, {"<", "lt"}, {"lessthan", "lt"}, {"<=", "le"},
        {">", "gt"}, {"greaterthan", "gt"}, {">=", "ge"}};
    auto a = aliases.find(name);
    const auto& t = tests();
    auto it = t.find(a == aliases.end() ? name : a->second);
    return it == t.end() ? nullptr : it->second;
}

bool apply_test(const std::string& name, const Value& input, CallArgs& args) {
    Test t = find_test(name);
    if (!t) fail("No test named '" + name + "'");
    args.what = name;
    return t(input, args);
}

}  // namespace mosaic::genai::chat
