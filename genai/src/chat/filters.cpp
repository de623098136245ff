// jinja2's filters as chat templates use them, plus transformers' own tojson (json.dumps with
// ensure_ascii=False: no HTML escaping, unlike jinja2's built-in).
#include "chat/builtins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <unordered_map>

namespace mosaic::genai::chat {
namespace {

// Indentation wider than this is a runaway template, not a layout.
constexpr int64_t kMaxIndent = 1024;


std::string upper_first(const std::string& cp) { return ascii_upper(cp); }

Value f_trim(const Value& v, CallArgs& a) {
    a.allow(1, {"chars"});
    return Value(Json(py_strip(to_str(v), a.get(0, "chars", Value()), true, true)));
}

Value f_upper(const Value& v, CallArgs& a) {
    a.allow(0, {});
    return Value(Json(ascii_upper(to_str(v))));
}

Value f_lower(const Value& v, CallArgs& a) {
    a.allow(0, {});
    return Value(Json(ascii_lower(to_str(v))));
}

// jinja2's title splits at runs of -, whitespace and opening brackets (not Python's str.title()).
Value f_title(const Value& v, CallArgs& a) {
    a.allow(0, {});
    auto cps = code_points(to_str(v));
    auto separator = [](const std::string& cp) {
        if (cp.size() != 1) return false;
        const char c = cp[0];
        return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || c == ' ' || (c >= 9 && c <= 13) ||
               (c >= 0x1c && c <= 0x1f);
    };
    std::string out;
    bool start = true;
    for (const auto& cp : cps) {
        if (separator(cp)) {
            out += cp;
            start = true;
        } else {
            out += start ? upper_first(cp) : ascii_lower(cp);
            start = false;
        }
    }
    return Value(Json(out));
}

Value f_capitalize(const Value& v, CallArgs& a) {
    a.allow(0, {});
    auto cps = code_points(to_str(v));
    std::string out;
    for (size_t i = 0; i < cps.size(); ++i) out += i == 0 ? ascii_upper(cps[i]) : ascii_lower(cps[i]);
    return Value(Json(out));
}

Value f_length(const Value& v, CallArgs& a) {
    a.allow(0, {});
    int64_t n = length(v);
    if (n < 0) fail("object of type '" + type_name(v) + "' has no len()");
    return Value(Json(n));
}

Value f_first(const Value& v, CallArgs& a) {
    a.allow(0, {});
    if (v.is_list()) return v.j().empty() ? Value::undefined("No first item, sequence was empty.")
                                          : Value::borrowed(v.json, v.j().front());
    auto items = iterate(v);
    return items.empty() ? Value::undefined("No first item, sequence was empty.") : items.front();
}

Value f_last(const Value& v, CallArgs& a) {
    a.allow(0, {});
    if (v.is_list()) return v.j().empty() ? Value::undefined("No last item, sequence was empty.")
                                          : Value::borrowed(v.json, v.j().back());
    auto items = iterate(v);
    return items.empty() ? Value::undefined("No last item, sequence was empty.") : items.back();
}

std::vector<Value> attribute_values(const Value& v, const Value& attribute) {
    std::vector<Value> items = iterate(v);
    if (attribute.is_json() && !attribute.is_none())
        for (auto& item : items) item = get_path(item, to_str(attribute));
    return items;
}

Value f_join(const Value& v, CallArgs& a) {
    a.allow(2, {"d", "attribute"});
    const std::string sep = to_str(a.get(0, "d", Value(Json(""))));
    std::string out;
    bool first = true;
    for (const auto& item : attribute_values(v, a.get(1, "attribute", Value()))) {
        if (!first) out += sep;
        first = false;
        out += to_str(item);
    }
    return Value(Json(out));
}

std::string replace_all(const std::string& s, const std::string& from, const std::string& to, int64_t count) {
    std::string out;
    if (from.empty()) {
        // Python inserts `to` around every character.
        auto cps = code_points(s);
        int64_t done = 0;
        for (size_t i = 0; i <= cps.size(); ++i) {
            if (count < 0 || done < count) {
                out += to;
                ++done;
            }
            if (i < cps.size()) out += cps[i];
        }
        return out;
    }
    size_t pos = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
        size_t f = s.find(from, pos);
        if (f == std::string::npos) break;
        out += s.substr(pos, f - pos) + to;
        pos = f + from.size();
        ++done;
    }
    return out + s.substr(pos);
}

Value f_replace(const Value& v, CallArgs& a) {
    a.allow(3, {"old", "new", "count"});
    const Value* from = a.find(0, "old");
    const Value* to = a.find(1, "new");
    if (!from || !to) fail("replace() needs old and new");
    Value count = a.get(2, "count", Value(Json(nullptr)));
    return Value(Json(replace_all(to_str(v), to_str(*from), to_str(*to), count.is_none() ? -1 : as_int(count))));
}

Value f_default(const Value& v, CallArgs& a) {
    a.allow(2, {"default_value", "boolean"});
    const bool boolean = truthy(a.get(1, "boolean", Value(Json(false))));
    if (v.is_undefined() || (boolean && !truthy(v))) return a.get(0, "default_value", Value(Json("")));
    return v;
}

Value f_tojson(const Value& v, CallArgs& a) {
    a.allow(1, {"indent", "ensure_ascii", "separators", "sort_keys"});
    Value indent = a.get(0, "indent", Value(Json(nullptr)));
    if (truthy(a.get(99, "ensure_ascii", Value(Json(false))))) fail("tojson: ensure_ascii=True is not supported");
    if (truthy(a.get(99, "sort_keys", Value(Json(false))))) fail("tojson: sort_keys=True is not supported");
    Value seps = a.get(99, "separators", Value(Json(nullptr)));
    std::string item_sep, key_sep;
    const bool custom = !seps.is_none();
    if (custom) {
        if (!seps.is_list() || seps.j().size() != 2 || !seps.j()[0].is_string() || !seps.j()[1].is_string())
            fail("tojson: separators must be a pair of strings");
        item_sep = seps.j()[0].get<std::string>();
        key_sep = seps.j()[1].get<std::string>();
    }
    const int64_t asked = indent.is_none() ? -1 : std::max<int64_t>(0, as_int(indent));
    if (asked > kMaxIndent) fail("tojson indent " + std::to_string(asked) + " is more than " + std::to_string(kMaxIndent));
    const int n = static_cast<int>(asked);
    return Value(Json(dumps(v, n, custom ? &item_sep : nullptr, custom ? &key_sep : nullptr)));
}

Value f_string(const Value& v, CallArgs& a) {
    a.allow(0, {});
    return Value(Json(to_str(v)));
}

bool parse_int(std::string s, int base, int64_t& out) {
    s = py_strip(s, Value(), true, true);
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, base);
    if (errno || *end || s[0] == ' ') return false;
    out = v;
    return true;
}

bool parse_float(std::string s, double& out) {
    s = py_strip(s, Value(), true, true);
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    if (s.empty()) return false;
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (*end) return false;
    out = d;
    return true;
}

Value f_int(const Value& v, CallArgs& a) {
    a.allow(2, {"default", "base"});
    Value dflt = a.get(0, "default", Value(Json(0)));
    const int base = static_cast<int>(as_int(a.get(1, "base", Value(Json(10)))));
    if (v.is_int() || v.is_bool()) return Value(Json(as_int(v)));
    if (v.is_float()) {
        double d = v.j().get<double>();
        if (!std::isfinite(d) || std::fabs(d) > 9.2e18) return dflt;
        return Value(Json(static_cast<int64_t>(std::trunc(d))));
    }
    if (v.is_string()) {
        int64_t i;
        if (parse_int(v.str(), base, i)) return Value(Json(i));
        double d;
        if (parse_float(v.str(), d) && std::isfinite(d) && std::fabs(d) < 9.2e18)
            return Value(Json(static_cast<int64_t>(std::trunc(d))));
    }
    return dflt;
}

Value f_float(const Value& v, CallArgs& a) {
    a.allow(1, {"default"});
    Value dflt = a.get(0, "default", Value(Json(0.0)));
    if (v.is_number()) return Value(Json(as_double(v)));
    double d;
    if (v.is_string() && parse_float(v.str(), d)) return Value(Json(d));
    return dflt;
}

Value f_list(const Value& v, CallArgs& a) {
    a.allow(0, {});
    Json out = Json::array();
    for (const auto& item : iterate(v)) out.push_back(to_json(item));
    return Value(std::move(out));
}

Value f_items(const Value& v, CallArgs& a) {
    a.allow(0, {});
    Json out = Json::array();
    if (v.is_undefined()) return Value(out);
    if (!v.is_dict()) fail("Can only get item pairs from a mapping.");
    for (auto it = v.j().begin(); it != v.j().end(); ++it) out.push_back(Json::array({it.key(), it.value()}));
    return Value(std::move(out));
}

Value list_of(const std::vector<Value>& items) {
    Json out = Json::array();
    for (const auto& item : items) out.push_back(to_json(item));
    return Value(std::move(out));
}

Value f_map(const Value& v, CallArgs& a) {
    const Value* attribute = a.find(99, "attribute");
    std::vector<Value> out;
    if (attribute) {
        a.allow(0, {"attribute", "default"});
        const Value* dflt = a.find(99, "default");
        for (auto& item : iterate(v)) {
            Value x = get_path(item, to_str(*attribute));
            out.push_back(x.is_undefined() && dflt ? *dflt : x);
        }
        return list_of(out);
    }
    if (a.positional.empty()) fail("map requires a filter argument");
    const std::string filter = to_str(a.positional[0]);
    CallArgs rest;
    rest.positional.assign(a.positional.begin() + 1, a.positional.end());
    rest.keyword = a.keyword;
    for (auto& item : iterate(v)) {
        CallArgs copy = rest;
        out.push_back(apply_filter(filter, item, copy));
    }
    return list_of(out);
}

Value select_impl(const Value& v, CallArgs& a, bool by_attribute, bool keep) {
    size_t first = 0;
    std::string attribute;
    if (by_attribute) {
        if (a.positional.empty()) fail(a.what + "() needs an attribute name");
        attribute = to_str(a.positional[0]);
        first = 1;
    }
    std::string test;
    if (a.positional.size() > first) test = to_str(a.positional[first]);
    CallArgs rest;
    if (a.positional.size() > first + 1) rest.positional.assign(a.positional.begin() + first + 1, a.positional.end());
    rest.keyword = a.keyword;
    std::vector<Value> out;
    for (auto& item : iterate(v)) {
        Value x = by_attribute ? get_path(item, attribute) : item;
        bool ok;
        if (test.empty()) ok = truthy(x);
        else {
            CallArgs copy = rest;
            ok = apply_test(test, x, copy);
        }
        if (ok == keep) out.push_back(item);
    }
    return list_of(out);
}

Value f_select(const Value& v, CallArgs& a) { return select_impl(v, a, false, true); }
Value f_reject(const Value& v, CallArgs& a) { return select_impl(v, a, false, false); }
Value f_selectattr(const Value& v, CallArgs& a) { return select_impl(v, a, true, true); }
Value f_rejectattr(const Value& v, CallArgs& a) { return select_impl(v, a, true, false); }

// jinja2's ignore_case: strings compare lower-cased unless case_sensitive.
Value sort_key(const Value& v, bool case_sensitive) {
    if (!case_sensitive && v.is_string()) return Value(Json(ascii_lower(v.str())));
    return v;
}

Value f_unique(const Value& v, CallArgs& a) {
    a.allow(2, {"case_sensitive", "attribute"});
    const bool cs = truthy(a.get(0, "case_sensitive", Value(Json(false))));
    Value attribute = a.get(1, "attribute", Value());
    std::vector<Value> out, seen;
    for (auto& item : iterate(v)) {
        Value key = sort_key(attribute.is_json() ? get_path(item, to_str(attribute)) : item, cs);
        bool dup = false;
        for (auto& s : seen) dup = dup || equals(s, key);
        if (!dup) {
            seen.push_back(key);
            out.push_back(item);
        }
    }
    return list_of(out);
}

Value f_reverse(const Value& v, CallArgs& a) {
    a.allow(0, {});
    if (v.is_string()) {
        auto cps = code_points(v.str());
        std::string out;
        for (auto it = cps.rbegin(); it != cps.rend(); ++it) out += *it;
        return Value(Json(out));
    }
    auto items = iterate(v);
    std::reverse(items.begin(), items.end());
    return list_of(items);
}

Value f_sort(const Value& v, CallArgs& a) {
    a.allow(3, {"reverse", "case_sensitive", "attribute"});
    const bool rev = truthy(a.get(0, "reverse", Value(Json(false))));
    const bool cs = truthy(a.get(1, "case_sensitive", Value(Json(false))));
    Value attribute = a.get(2, "attribute", Value());
    auto items = iterate(v);
    std::vector<std::pair<Value, Value>> keyed;
    for (auto& item : items)
        keyed.emplace_back(sort_key(attribute.is_json() ? get_path(item, to_str(attribute)) : item, cs), item);
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
        return rev ? compare(y.first, x.first, "<") < 0 : compare(x.first, y.first, "<") < 0;
    });
    std::vector<Value> out;
    for (auto& k : keyed) out.push_back(k.second);
    return list_of(out);
}

Value f_dictsort(const Value& v, CallArgs& a) {
    a.allow(3, {"case_sensitive", "by", "reverse"});
    if (!v.is_dict()) fail("dictsort: expected a mapping");
    const bool cs = truthy(a.get(0, "case_sensitive", Value(Json(false))));
    const bool by_value = to_str(a.get(1, "by", Value(Json("key")))) == "value";
    const bool rev = truthy(a.get(2, "reverse", Value(Json(false))));
    std::vector<Json> pairs;
    for (auto it = v.j().begin(); it != v.j().end(); ++it) pairs.push_back(Json::array({it.key(), it.value()}));
    std::stable_sort(pairs.begin(), pairs.end(), [&](const Json& x, const Json& y) {
        Value kx = sort_key(Value(x[by_value ? 1 : 0]), cs), ky = sort_key(Value(y[by_value ? 1 : 0]), cs);
        return rev ? compare(ky, kx, "<") < 0 : compare(kx, ky, "<") < 0;
    });
    return Value(Json(pairs));
}

Value f_round(const Value& v, CallArgs& a) {
    a.allow(2, {"precision", "method"});
    const int64_t precision = as_int(a.get(0, "precision", Value(Json(0))));
    const std::string method = to_str(a.get(1, "method", Value(Json("common"))));
    const double x = as_double(v), scale = std::pow(10.0, static_cast<double>(precision));
    double r;
    if (method == "common") {
        // Python's round(): an int stays an int; a float rounds its exact binary value, half to even.
        if (!v.is_float()) return Value(Json(as_int(v)));
        if (precision == 0) r = std::nearbyint(x);
        else if (precision > 0 && precision < 300) {
            char buf[400];
            std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(precision), x);
            r = std::strtod(buf, nullptr);
        } else r = std::nearbyint(x * scale) / scale;
    } else if (method == "ceil") r = std::ceil(x * scale) / scale;
    else if (method == "floor") r = std::floor(x * scale) / scale;
    else fail("method must be common, ceil or floor");
    return Value(Json(r));
}

Value f_abs(const Value& v, CallArgs& a) {
    a.allow(0, {});
    if (v.is_float()) return Value(Json(std::fabs(v.j().get<double>())));
    int64_t i = as_int(v);
    if (i == std::numeric_limits<int64_t>::min()) fail("integer overflow in abs");
    return Value(Json(i < 0 ? -i : i));
}

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> lines;
    std::string cur;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\n' || s[i] == '\r') {
            if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
            lines.push_back(cur);
            cur.clear();
        } else cur += s[i];
    }
    if (!cur.empty()) lines.push_back(cur);
    return lines;
}

Value f_indent(const Value& v, CallArgs& a) {
    a.allow(3, {"width", "first", "blank"});
    Value width = a.get(0, "width", Value(Json(4)));
    const bool first = truthy(a.get(1, "first", Value(Json(false))));
    const bool blank = truthy(a.get(2, "blank", Value(Json(false))));
    const int64_t spaces = width.is_string() ? 0 : as_int(width);
    if (spaces > kMaxIndent) fail("indent width " + std::to_string(spaces) + " is more than " + std::to_string(kMaxIndent));
    const std::string ind = width.is_string() ? width.str() : std::string(static_cast<size_t>(std::max<int64_t>(0, spaces)), ' ');
    auto lines = split_lines(to_str(v) + "\n");
    std::string rv;
    if (blank) {
        for (size_t i = 0; i < lines.size(); ++i) rv += (i ? "\n" + ind : "") + lines[i];
    } else {
        rv = lines.empty() ? "" : lines[0];
        for (size_t i = 1; i < lines.size(); ++i) rv += "\n" + (lines[i].empty() ? "" : ind + lines[i]);
    }
    if (first) rv = ind + rv;
    return Value(Json(rv));
}

Value f_safe(const Value& v, CallArgs& a) {
    a.allow(0, {});
    return v.is_string() ? v : Value(Json(to_str(v)));
}

Value f_escape(const Value& v, CallArgs& a) {
    a.allow(0, {});
    std::string out;
    for (char c : to_str(v)) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&#34;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return Value(Json(out));
}

Value f_sum(const Value& v, CallArgs& a) {
    a.allow(2, {"attribute", "start"});
    Value total = a.get(1, "start", Value(Json(0)));
    bool is_float = total.is_float();
    double fsum = as_double(total);
    int64_t isum = is_float ? 0 : as_int(total);
    for (auto& item : attribute_values(v, a.get(0, "attribute", Value()))) {
        if (item.is_float()) is_float = true;
        fsum += as_double(item);
        if (!is_float && __builtin_add_overflow(isum, as_int(item), &isum)) fail("integer overflow in sum");
    }
    return is_float ? Value(Json(fsum)) : Value(Json(isum));
}

Value min_max(const Value& v, CallArgs& a, bool want_max) {
    a.allow(2, {"case_sensitive", "attribute"});
    const bool cs = truthy(a.get(0, "case_sensitive", Value(Json(false))));
    Value attribute = a.get(1, "attribute", Value());
    Value best;
    Value best_key;
    bool any = false;
    for (auto& item : iterate(v)) {
        Value key = sort_key(attribute.is_json() ? get_path(item, to_str(attribute)) : item, cs);
        if (!any || (want_max ? compare(key, best_key, ">") > 0 : compare(key, best_key, "<") < 0)) {
            best = item;
            best_key = key;
            any = true;
        }
    }
    return any ? best : Value::undefined(std::string("No aggregated item, sequence was empty."));
}

Value f_min(const Value& v, CallArgs& a) { return min_max(v, a, false); }
Value f_max(const Value& v, CallArgs& a) { return min_max(v, a, true); }

Value f_attr(const Value& v, CallArgs& a) {
    a.allow(1, {"name"});
    const Value* name = a.find(0, "name");
    if (!name) fail("attr() needs a name");
    return get_attr(v, to_str(*name));
}

const std::unordered_map<std::string, Filter>& filters() {
    static const std::unordered_map<std::string, Filter> table = {
        {"trim", f_trim},         {"upper", f_upper},         {"lower", f_lower},
        {"title", f_title},       {"capitalize", f_capitalize}, {"length", f_length},
        {"count", f_length},      {"first", f_first},         {"last", f_last},
        {"join", f_join},         {"replace", f_replace},     {"default", f_default},
        {"d", f_default},         {"tojson", f_tojson},       {"string", f_string},
        {"int", f_int},           {"float", f_float},         {"list", f_list},
        {"items", f_items},       {"map", f_map},             {"select", f_select},
        {"reject", f_reject},     {"selectattr", f_selectattr}, {"rejectattr", f_rejectattr},
        {"unique", f_unique},     {"reverse", f_reverse},     {"sort", f_sort},
        {"dictsort", f_dictsort}, {"round", f_round},         {"abs", f_abs},
        {"indent", f_indent},     {"safe", f_safe},           {"e", f_escape},
        {"escape", f_escape},     {"sum", f_sum},             {"min", f_min},
        {"max", f_max},           {"attr", f_attr},
    };
    return table;
}

}  // namespace

Filter find_filter(const std::string& name) {
    auto it = filters().find(name);
    return it == filters().end() ? nullptr : it->second;
}

Value apply_filter(const std::string& name, const Value& input, CallArgs& args) {
    Filter f = find_filter(name);
    if (!f) fail("No filter named '" + name + "'");
    args.what = name;
    return f(input, args);
}

Value get_path(const Value& v, const std::string& path) {
    Value cur = v;
    size_t pos = 0;
    while (true) {
        size_t dot = path.find('.', pos);
        std::string part = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
        const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (cur.is_undefined()) return cur;
        // More digits than any list has items: an index past every end, as jinja2 finds it.
        cur = digits ? get_item(cur, Value(Json(part.size() > 18 ? std::numeric_limits<int64_t>::max() : std::stoll(part))))
                     : get_item(cur, Value(Json(part)));
        if (dot == std::string::npos) return cur;
        pos = dot + 1;
    }
}

}  // namespace mosaic::genai::chat
