// The parsed template: expressions and statements, each knowing where it was written.
#pragma once

#include "chat/value.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mosaic::genai::chat {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
    enum class Kind {
        Literal,    // value
        Name,       // name
        List,       // items
        Tuple,      // items
        Dict,       // items: key, value, key, value, ...
        GetAttr,    // a.name
        GetItem,    // a[b]
        Slice,      // a[b:c:d], absent parts null
        Call,       // a(items, keywords)
        Filter,     // a|name(items, keywords); a may be null inside `{% set x | f %}`
        Test,       // a is [not] name(items, keywords)
        Unary,      // op a: "-", "+", "not"
        Binary,     // a op b: + - * / // % ** ~ and or
        Compare,    // a ops[0] items[0] ops[1] items[1] ...
        Cond,       // b if a else c
    };
    Kind kind;
    int line = 0, column = 0;
    Json literal;
    std::string name;  // Name, GetAttr attribute, Filter/Test name, Unary/Binary operator
    bool negated = false;  // Test: `is not`
    ExprPtr a, b, c;
    std::vector<ExprPtr> items;
    std::vector<std::pair<std::string, ExprPtr>> keywords;
    std::vector<std::string> ops;  // Compare
};

struct Stmt;
using Body = std::vector<std::unique_ptr<Stmt>>;

struct Stmt {
    enum class Kind {
        Text,      // text
        Output,    // {{ expr }}
        If,        // conditions[i] -> bodies[i]; else_body
        For,       // targets in expr [if filter]: body; else_body
        Set,       // targets (names, or `ns.attr` as target_attr) = expr
        SetBlock,  // {% set name %}body{% endset %}, filtered by `filter`
        Macro,     // name(params = defaults): body
        Break,
        Continue,
        With,      // {% with a = 1 %}: targets = values; body
        Block,     // a body rendered as is ({% generation %})
    };
    Kind kind;
    int line = 0, column = 0;
    std::string text;
    ExprPtr expr, filter;
    std::vector<ExprPtr> conditions;
    std::vector<Body> bodies;
    Body body, else_body;
    std::vector<std::string> targets;
    std::string target_attr;          // Set: `ns.attr = ...` stores into targets[0].attr
    std::vector<ExprPtr> defaults;    // Macro: per param, null when none; With: the values
};

}  // namespace mosaic::genai::chat
