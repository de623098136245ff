// Python methods of str, dict and list that templates call (`message.content.strip()`,
// `d.items()`), the loop object's cycle(), and the globals transformers' environment provides.
#include "chat/builtins.hpp"

#include <algorithm>
#include <ctime>
#include <unordered_set>

namespace mosaic::genai::chat {
namespace {

Value bind_method(const Value& self, const std::string& name, std::function<Value(const Value&, CallArgs&)> fn) {
    auto c = std::make_shared<Callable>();
    c->name = name;
    c->fn = [self, fn = std::move(fn), name](CallArgs& a) {
        a.what = name;
        return fn(self, a);
    };
    return Value::of_callable(std::move(c));
}

const Value& required(CallArgs& a, size_t i, const char* name) {
    const Value* v = a.find(i, name);
    if (!v) fail(a.what + "() missing required argument '" + name + "'");
    if (v->is_undefined()) fail_undefined(*v);
    return *v;
}

std::string py_title(const std::string& s) {
    std::string out;
    bool prev_cased = false;
    for (const auto& cp : code_points(s)) {
        const unsigned char c = static_cast<unsigned char>(cp[0]);
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
        if (cp.size() == 1 && letter) out += prev_cased ? ascii_lower(cp) : ascii_upper(cp);
        else out += cp;
        prev_cased = letter;
    }
    return out;
}

Json split(const std::string& s, const Value& sep, int64_t maxsplit) {
    Json out = Json::array();
    if (!sep.is_json() || sep.is_none()) {
        auto cps = code_points(s);
        size_t i = 0;
        std::string cur;
        while (i < cps.size()) {
            while (i < cps.size() && is_py_space(static_cast<unsigned char>(cps[i][0])) && cps[i].size() == 1) ++i;
            if (i >= cps.size()) break;
            if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
                std::string rest;
                for (; i < cps.size(); ++i) rest += cps[i];
                out.push_back(py_strip(rest, Value(), false, true));
                return out;
            }
            cur.clear();
            while (i < cps.size() && !(cps[i].size() == 1 && is_py_space(static_cast<unsigned char>(cps[i][0]))))
                cur += cps[i++];
            out.push_back(cur);
        }
        return out;
    }
    const std::string d = to_str(sep);
    if (d.empty()) fail("empty separator");
    size_t pos = 0;
    while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
        size_t f = s.find(d, pos);
        if (f == std::string::npos) break;
        out.push_back(s.substr(pos, f - pos));
        pos = f + d.size();
    }
    out.push_back(s.substr(pos));
    return out;
}

bool affix(const std::string& s, const Value& arg, bool start) {
    auto one = [&](const Value& p) {
        if (!p.is_string()) fail(std::string(start ? "startswith" : "endswith") + " first arg must be str or a tuple of str");
        const std::string& x = p.str();
        if (x.size() > s.size()) return false;
        return start ? s.compare(0, x.size(), x) == 0 : s.compare(s.size() - x.size(), x.size(), x) == 0;
    };
    if (arg.is_list()) {
        for (const auto& e : arg.j())
            if (one(Value::borrowed(arg.json, e))) return true;
        return false;
    }
    return one(arg);
}

int64_t cp_index(const std::string& s, size_t byte) {
    return static_cast<int64_t>(code_points(s.substr(0, byte)).size());
}

Value string_method(const Value& self, const std::string& name) {
    using F = std::function<Value(const Value&, CallArgs&)>;
    static const std::unordered_map<std::string, F> table = {
        {"strip", [](const Value& s, CallArgs& a) { a.allow(1, {"chars"}); return Value(Json(py_strip(s.str(), a.get(0, "chars", Value()), true, true))); }},
        {"lstrip", [](const Value& s, CallArgs& a) { a.allow(1, {"chars"}); return Value(Json(py_strip(s.str(), a.get(0, "chars", Value()), true, false))); }},
        {"rstrip", [](const Value& s, CallArgs& a) { a.allow(1, {"chars"}); return Value(Json(py_strip(s.str(), a.get(0, "chars", Value()), false, true))); }},
        {"upper", [](const Value& s, CallArgs& a) { a.allow(0, {}); return Value(Json(ascii_upper(s.str()))); }},
        {"lower", [](const Value& s, CallArgs& a) { a.allow(0, {}); return Value(Json(ascii_lower(s.str()))); }},
        {"title", [](const Value& s, CallArgs& a) { a.allow(0, {}); return Value(Json(py_title(s.str()))); }},
        {"capitalize", [](const Value& s, CallArgs& a) {
             a.allow(0, {});
             auto cps = code_points(s.str());
             std::string out;
             for (size_t i = 0; i < cps.size(); ++i) out += i ? ascii_lower(cps[i]) : ascii_upper(cps[i]);
             return Value(Json(out));
         }},
        {"split", [](const Value& s, CallArgs& a) {
             a.allow(2, {"sep", "maxsplit"});
             return Value(split(s.str(), a.get(0, "sep", Value()), as_int(a.get(1, "maxsplit", Value(Json(-1))))));
         }},
        {"startswith", [](const Value& s, CallArgs& a) { a.allow(1, {}); return Value(Json(affix(s.str(), required(a, 0, "prefix"), true))); }},
        {"endswith", [](const Value& s, CallArgs& a) { a.allow(1, {}); return Value(Json(affix(s.str(), required(a, 0, "suffix"), false))); }},
        {"replace", [](const Value& s, CallArgs& a) {
             a.allow(3, {"count"});
             CallArgs b = a;
             return apply_filter("replace", s, b);
         }},
        {"find", [](const Value& s, CallArgs& a) {
             a.allow(1, {});
             size_t f = s.str().find(to_str(required(a, 0, "sub")));
             return Value(Json(f == std::string::npos ? int64_t{-1} : cp_index(s.str(), f)));
         }},
        {"rfind", [](const Value& s, CallArgs& a) {
             a.allow(1, {});
             size_t f = s.str().rfind(to_str(required(a, 0, "sub")));
             return Value(Json(f == std::string::npos ? int64_t{-1} : cp_index(s.str(), f)));
         }},
        {"count", [](const Value& s, CallArgs& a) {
             a.allow(1, {});
             const std::string sub = to_str(required(a, 0, "sub"));
             if (sub.empty()) return Value(Json(static_cast<int64_t>(code_points(s.str()).size()) + 1));
             int64_t n = 0;
             for (size_t p = s.str().find(sub); p != std::string::npos; p = s.str().find(sub, p + sub.size())) ++n;
             return Value(Json(n));
         }},
        {"join", [](const Value& s, CallArgs& a) {
             a.allow(1, {});
             std::string out;
             bool first = true;
             for (auto& item : iterate(required(a, 0, "iterable"))) {
                 if (!item.is_string()) fail("sequence item: expected str instance, " + type_name(item) + " found");
                 if (!first) out += s.str();
                 first = false;
                 out += item.str();
             }
             return Value(Json(out));
         }},
        {"splitlines", [](const Value& s, CallArgs& a) {
             a.allow(0, {});
             Json out = Json::array();
             std::string cur;
             const std::string& t = s.str();
             for (size_t i = 0; i < t.size(); ++i) {
                 if (t[i] == '\n' || t[i] == '\r') {
                     if (t[i] == '\r' && i + 1 < t.size() && t[i + 1] == '\n') ++i;
                     out.push_back(cur);
                     cur.clear();
                 } else cur += t[i];
             }
             if (!cur.empty()) out.push_back(cur);
             return Value(std::move(out));
         }},
        {"isdigit", [](const Value& s, CallArgs& a) {
             a.allow(0, {});
             const std::string& t = s.str();
             return Value(Json(!t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; })));
         }},
        {"isspace", [](const Value& s, CallArgs& a) {
             a.allow(0, {});
             auto cps = code_points(s.str());
             return Value(Json(!cps.empty() && std::all_of(cps.begin(), cps.end(), [](const std::string& c) {
                                   return c.size() == 1 && is_py_space(static_cast<unsigned char>(c[0]));
                               })));
         }},
    };
    auto it = table.find(name);
    if (it == table.end()) return Value();
    return bind_method(self, name, it->second);
}

Value dict_method(const Value& self, const std::string& name) {
    if (name == "items")
        return bind_method(self, name, [](const Value& d, CallArgs& a) {
            a.allow(0, {});
            CallArgs b;
            return apply_filter("items", d, b);
        });
    if (name == "keys")
        return bind_method(self, name, [](const Value& d, CallArgs& a) {
            a.allow(0, {});
            Json out = Json::array();
            for (auto it = d.j().begin(); it != d.j().end(); ++it) out.push_back(it.key());
            return Value(std::move(out));
        });
    if (name == "values")
        return bind_method(self, name, [](const Value& d, CallArgs& a) {
            a.allow(0, {});
            Json out = Json::array();
            for (auto it = d.j().begin(); it != d.j().end(); ++it) out.push_back(it.value());
            return Value(std::move(out));
        });
    if (name == "get")
        return bind_method(self, name, [](const Value& d, CallArgs& a) {
            a.allow(2, {});
            const Value& key = required(a, 0, "key");
            if (key.is_string()) {
                auto it = d.j().find(key.str());
                if (it != d.j().end()) return Value::borrowed(d.json, *it);
            }
            return a.get(1, nullptr, Value(Json(nullptr)));
        });
    return Value();
}

Value list_method(const Value& self, const std::string& name) {
    if (name == "index")
        return bind_method(self, name, [](const Value& l, CallArgs& a) {
            a.allow(1, {});
            const Value& x = required(a, 0, "value");
            for (size_t i = 0; i < l.j().size(); ++i)
                if (equals(Value::borrowed(l.json, l.j()[i]), x)) return Value(Json(static_cast<int64_t>(i)));
            fail(repr(x) + " is not in list");
        });
    if (name == "count")
        return bind_method(self, name, [](const Value& l, CallArgs& a) {
            a.allow(1, {});
            const Value& x = required(a, 0, "value");
            int64_t n = 0;
            for (const auto& e : l.j()) n += equals(Value::borrowed(l.json, e), x);
            return Value(Json(n));
        });
    return Value();
}

}  // namespace

Value bound_method(const Value& self, const std::string& name) {
    // ImmutableSandboxedEnvironment: methods that would change the caller's data are refused.
    static const std::unordered_set<std::string> mutating_list = {"append", "extend", "insert", "pop", "remove",
                                                                  "reverse", "sort", "clear"};
    static const std::unordered_set<std::string> mutating_dict = {"pop", "popitem", "setdefault", "update", "clear"};
    if (self.is_string()) return string_method(self, name);
    if (self.is_dict()) {
        if (mutating_dict.count(name))
            return Value::undefined("access to attribute '" + name + "' of 'dict' object is unsafe.");
        return dict_method(self, name);
    }
    if (self.is_list()) {
        if (mutating_list.count(name))
            return Value::undefined("access to attribute '" + name + "' of 'list' object is unsafe.");
        return list_method(self, name);
    }
    return Value();
}

Value loop_method(const Value& loop, const std::string& name) {
    if (name != "cycle") return Value();
    return bind_method(loop, name, [](const Value& l, CallArgs& a) {
        if (a.positional.empty()) fail("no items for cycling given");
        const int64_t i = as_int(l.object->attributes.at("index0"));
        return a.positional[static_cast<size_t>(i) % a.positional.size()];
    });
}

Value global(const std::string& name) {
    auto make = [&](Builtin fn) {
        auto c = std::make_shared<Callable>();
        c->name = name;
        c->fn = std::move(fn);
        return Value::of_callable(std::move(c));
    };
    if (name == "range")
        return make([](CallArgs& a) {
            a.what = "range";
            a.allow(3, {});
            if (a.positional.empty()) fail("range expected at least 1 argument, got 0");
            int64_t start = 0, stop, step = 1;
            if (a.positional.size() == 1) stop = as_int(a.positional[0]);
            else {
                start = as_int(a.positional[0]);
                stop = as_int(a.positional[1]);
                if (a.positional.size() == 3) step = as_int(a.positional[2]);
            }
            if (step == 0) fail("range() arg 3 must not be zero");
            const double count = step > 0 ? (stop > start ? (static_cast<double>(stop) - start + step - 1) / step : 0)
                                           : (start > stop ? (static_cast<double>(start) - stop - step - 1) / -step : 0);
            // The sandbox's MAX_RANGE.
            if (count > 100000)
                fail("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
            Json out = Json::array();
            for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
                out.push_back(i);
                if (__builtin_add_overflow(i, step, &i)) break;  // the last item was near the int64 end
            }
            return Value(std::move(out));
        });
    if (name == "namespace" || name == "dict")
        return make([name](CallArgs& a) {
            a.what = name;
            if (a.positional.size() > 1) fail(name + "() takes at most 1 positional argument");
            Json data = Json::object();
            if (!a.positional.empty()) {
                if (!a.positional[0].is_dict()) fail(name + "() takes a mapping");
                data = a.positional[0].j();
            }
            for (auto& [k, v] : a.keyword) data[k] = Json();
            if (name == "dict") {
                for (auto& [k, v] : a.keyword) data[k] = to_json(v);
                return Value(std::move(data));
            }
            auto ns = std::make_shared<Object>();
            ns->type_name = "Namespace";
            for (auto it = data.begin(); it != data.end(); ++it) ns->attributes[it.key()] = Value(it.value());
            for (auto& [k, v] : a.keyword) ns->attributes[k] = v;
            return Value::of_object(std::move(ns));
        });
    if (name == "raise_exception")
        return make([](CallArgs& a) -> Value {
            const Value* m = a.find(0, "message");
            throw RaisedError{m ? to_str(*m) : std::string()};
        });
    if (name == "strftime_now")
        return make([](CallArgs& a) {
            a.what = "strftime_now";
            a.allow(1, {});
            const Value* f = a.find(0, "format");
            if (!f || !f->is_string()) fail("strftime_now() takes a format string");
            std::time_t now = std::time(nullptr);
            std::tm local{};
            localtime_r(&now, &local);
            char buf[512];
            size_t n = std::strftime(buf, sizeof buf, f->str().c_str(), &local);
            return Value(Json(std::string(buf, n)));
        });
    return Value::undefined("'" + name + "' is undefined");
}

}  // namespace mosaic::genai::chat
