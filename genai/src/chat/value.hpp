// The values a chat template computes with: Python's (jinja2's) semantics over JSON data.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mosaic::genai::chat {

// Insertion-ordered, as Python dicts are: tojson and `for k, v in d.items()` keep the caller's order.
using Json = nlohmann::ordered_json;

struct Value;
struct Object;
struct Callable;
struct CallArgs;

using Builtin = std::function<Value(CallArgs&)>;

// Json data is shared, never copied on access: an element is an aliasing shared_ptr into its root,
// which the immutable sandbox guarantees nobody mutates.
struct Value {
    enum class Kind { Undefined, Json, Object, Callable };
    Kind kind = Kind::Undefined;
    std::shared_ptr<const Json> json;
    std::shared_ptr<Object> object;
    std::shared_ptr<Callable> callable;
    // For Undefined: what jinja2's UndefinedError would say once the value is used.
    std::string undefined_message;

    Value() = default;
    Value(Json j) : kind(Kind::Json), json(std::make_shared<const Json>(std::move(j))) {}
    static Value undefined(std::string message) {
        Value v;
        v.undefined_message = std::move(message);
        return v;
    }
    static Value borrowed(const std::shared_ptr<const Json>& root, const Json& element) {
        Value v;
        v.kind = Kind::Json;
        v.json = std::shared_ptr<const Json>(root, &element);
        return v;
    }
    static Value of_object(std::shared_ptr<Object> o) {
        Value v;
        v.kind = Kind::Object;
        v.object = std::move(o);
        return v;
    }
    static Value of_callable(std::shared_ptr<Callable> c) {
        Value v;
        v.kind = Kind::Callable;
        v.callable = std::move(c);
        return v;
    }

    bool is_undefined() const { return kind == Kind::Undefined; }
    bool is_json() const { return kind == Kind::Json; }
    const Json& j() const { return *json; }
    bool is_string() const { return is_json() && json->is_string(); }
    bool is_none() const { return is_json() && json->is_null(); }
    bool is_bool() const { return is_json() && json->is_boolean(); }
    bool is_int() const { return is_json() && json->is_number_integer(); }  // not bool, as in jinja2
    bool is_float() const { return is_json() && json->is_number_float(); }
    bool is_number() const { return is_json() && (json->is_number() || json->is_boolean()); }
    bool is_list() const { return is_json() && json->is_array(); }
    bool is_dict() const { return is_json() && json->is_object(); }
    const std::string& str() const { return json->get_ref<const std::string&>(); }
};

// namespace() objects (mutable through `set ns.x`) and loop objects.
struct Object {
    std::string type_name;  // "Namespace", "LoopContext"
    std::map<std::string, Value> attributes;
};

struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keyword;
    std::string what;  // the callee, for messages

    // The argument at `index` or named `name`; `fallback` when neither was given.
    const Value* find(size_t index, const char* name) const;
    Value get(size_t index, const char* name, const Value& fallback) const;
    void allow(size_t max_positional, std::initializer_list<const char*> names) const;
};

struct Callable {
    std::string name;
    Builtin fn;
};

// Thrown by value operations; the renderer adds the template position.
struct ValueError {
    std::string message;
};
[[noreturn]] void fail(std::string message);
[[noreturn]] void fail_undefined(const Value& v);

// Python's type name for messages ("str", "int", "NoneType", "dict", ...).
std::string type_name(const Value& v);
// jinja2's object_type_repr: "dict object", "None", ...
std::string object_type_repr(const Value& v);

bool truthy(const Value& v);
std::string to_str(const Value& v);   // Python str()
std::string repr(const Value& v);     // Python repr()
std::string float_repr(double d);     // Python repr(float)
bool equals(const Value& a, const Value& b);
int compare(const Value& a, const Value& b, const char* op);  // <0, 0, >0; fails on unorderable types
double as_double(const Value& v);
int64_t as_int(const Value& v);  // ints and bools
// Python's json.dumps(x, ensure_ascii=False, indent=indent, sort_keys=False).
// indent < 0: none; separators as Python's (item, key), defaulting as json.dumps does.
std::string dumps(const Value& v, int indent, const std::string* item_sep = nullptr,
                  const std::string* key_sep = nullptr);
Json to_json(const Value& v);                   // for list/dict literals; fails on non-data

// Iteration as Python's iter(): list items, dict keys, string characters; undefined is empty.
std::vector<Value> iterate(const Value& v);
// Python's len(), or -1 when the value has none.
int64_t length(const Value& v);

// Strings as Python sees them: sequences of code points (UTF-8 here).
std::vector<std::string> code_points(const std::string& s);
bool is_py_space(uint32_t cp);
std::string py_strip(const std::string& s, const Value& chars, bool left, bool right);
std::string ascii_upper(std::string s);
std::string ascii_lower(std::string s);

// Attribute and subscript access as jinja2's sandboxed getattr / getitem.
Value get_attr(const Value& obj, const std::string& name);
Value get_item(const Value& obj, const Value& key);
Value slice(const Value& obj, const Value& start, const Value& stop, const Value& step);
bool contains(const Value& container, const Value& item);

}  // namespace mosaic::genai::chat
