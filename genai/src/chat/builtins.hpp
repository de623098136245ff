// What a template can call: filters, tests, methods of strings/dicts/lists, and the globals
// (range, namespace, dict, raise_exception, strftime_now) transformers' environment provides.
#pragma once

#include "chat/value.hpp"

#include <string>

namespace mosaic::genai::chat {

using Filter = Value (*)(const Value& input, CallArgs& args);
using Test = bool (*)(const Value& input, CallArgs& args);

// nullptr when jinja2 has no such filter / test in our subset; the parser reports it by name.
Filter find_filter(const std::string& name);
Test find_test(const std::string& name);

Value apply_filter(const std::string& name, const Value& input, CallArgs& args);
bool apply_test(const std::string& name, const Value& input, CallArgs& args);

// A bound method of a string, dict or list (a Callable). An Undefined with a message when the
// immutable sandbox forbids the method (list.append, dict.update, ...); a plain Undefined (empty
// message) when the type has no such method.
Value bound_method(const Value& self, const std::string& name);
Value loop_method(const Value& loop, const std::string& name);

// raise_exception(): carries the template's own message out of the renderer.
struct RaisedError {
    std::string message;
};

// The globals, by name; an Undefined value when there is none.
Value global(const std::string& name);

// jinja2's make_attrgetter: "a.b.0" looked up item first, attribute second.
Value get_path(const Value& v, const std::string& path);

}  // namespace mosaic::genai::chat
