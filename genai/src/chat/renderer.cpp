#include "chat/renderer.hpp"

#include "chat/builtins.hpp"
#include "chat/error.hpp"

#include <cmath>
#include <limits>
#include <unordered_map>

namespace mosaic::genai::chat {
namespace {

struct Scope {
    std::unordered_map<std::string, Value> vars;
    std::shared_ptr<Scope> parent;
};
using ScopePtr = std::shared_ptr<Scope>;

enum class Flow { Normal, Break, Continue };

// Strings and lists built by + * ~ are bounded like the output, or `{% set s = s + s %}` in a loop
// would take all memory before anything is written.
void check_size(size_t bytes, size_t limit) {
    if (bytes > limit) fail("value too large (over " + std::to_string(limit >> 20) + " MiB)");
}

Value number(double d) { return Value(Json(d)); }

bool checked_add(int64_t a, int64_t b, int64_t& r) { return !__builtin_add_overflow(a, b, &r); }
bool checked_mul(int64_t a, int64_t b, int64_t& r) { return !__builtin_mul_overflow(a, b, &r); }

class Renderer {
public:
    Renderer(const Json& context, const RenderLimits& limits) : limits_(limits) {
        root_ = std::make_shared<Scope>();
        auto data = std::make_shared<const Json>(context);
        for (auto it = data->begin(); it != data->end(); ++it) root_->vars[it.key()] = Value::borrowed(data, *it);
    }

    std::string run(const Body& body) {
        std::string out;
        out_ = &out;
        exec(body, root_);
        return out;
    }

private:
    RenderLimits limits_;
    ScopePtr root_;
    std::string* out_ = nullptr;
    size_t written_ = 0;
    int call_depth_ = 0;
    uint64_t iterations_ = 0;

    void write(const std::string& s, const Stmt& at) {
        written_ += s.size();
        if (written_ > limits_.max_output_bytes)
            template_error(at.line, at.column,
                           "output too large (over " + std::to_string(limits_.max_output_bytes >> 20) + " MiB)");
        *out_ += s;
    }

    static Value lookup(const ScopePtr& scope, const std::string& name) {
        for (Scope* s = scope.get(); s; s = s->parent.get()) {
            auto it = s->vars.find(name);
            if (it != s->vars.end()) return it->second;
        }
        return global(name);
    }

    // ---- statements ----

    Flow exec(const Body& body, const ScopePtr& scope) {
        for (const auto& s : body) {
            Flow f = exec(*s, scope);
            if (f != Flow::Normal) return f;
        }
        return Flow::Normal;
    }

    Flow exec(const Stmt& s, const ScopePtr& scope) {
        try {
            return exec_stmt(s, scope);
        } catch (const ValueError& e) {
            template_error(s.line, s.column, e.message);
        }
    }

    Flow exec_stmt(const Stmt& s, const ScopePtr& scope) {
        switch (s.kind) {
        case Stmt::Kind::Text: write(s.text, s); return Flow::Normal;
        case Stmt::Kind::Output: write(to_str(eval(*s.expr, scope)), s); return Flow::Normal;
        case Stmt::Kind::If:
            for (size_t i = 0; i < s.conditions.size(); ++i)
                if (truthy(eval(*s.conditions[i], scope))) return exec(s.bodies[i], scope);
            return exec(s.else_body, scope);
        case Stmt::Kind::For: return exec_for(s, scope);
        case Stmt::Kind::Set: {
            Value v = eval(*s.expr, scope);
            if (!s.target_attr.empty()) {
                Value ns = lookup(scope, s.targets[0]);
                if (ns.kind != Value::Kind::Object || ns.object->type_name != "Namespace")
                    fail("cannot assign attribute on non-namespace object");
                ns.object->attributes[s.target_attr] = std::move(v);
            } else {
                assign(s.targets, v, *scope);
            }
            return Flow::Normal;
        }
        case Stmt::Kind::SetBlock: {
            std::string captured = capture(s.body, scope);
            Value v(Json(std::move(captured)));
            if (s.filter) v = eval_filter(*s.filter, scope, &v);
            scope->vars[s.targets[0]] = std::move(v);
            return Flow::Normal;
        }
        case Stmt::Kind::Macro: scope->vars[s.text] = make_macro(s, scope); return Flow::Normal;
        case Stmt::Kind::Break: return Flow::Break;
        case Stmt::Kind::Continue: return Flow::Continue;
        case Stmt::Kind::With: {
            auto inner = std::make_shared<Scope>();
            inner->parent = scope;
            for (size_t i = 0; i < s.targets.size(); ++i) inner->vars[s.targets[i]] = eval(*s.defaults[i], scope);
            return exec(s.body, inner);
        }
        case Stmt::Kind::Block: return exec(s.body, scope);
        }
        return Flow::Normal;
    }

    std::string capture(const Body& body, const ScopePtr& scope) {
        std::string buffer;
        std::string* saved = out_;
        out_ = &buffer;
        try {
            exec(body, scope);
        } catch (...) {
            out_ = saved;
            throw;
        }
        out_ = saved;
        return buffer;
    }

    static void assign(const std::vector<std::string>& targets, const Value& v, Scope& scope) {
        if (targets.size() == 1) {
            scope.vars[targets[0]] = v;
            return;
        }
        std::vector<Value> items = iterate(v);
        if (items.size() != targets.size())
            fail(items.size() > targets.size()
                     ? "too many values to unpack (expected " + std::to_string(targets.size()) + ")"
                     : "not enough values to unpack (expected " + std::to_string(targets.size()) + ", got " +
                           std::to_string(items.size()) + ")");
        for (size_t i = 0; i < targets.size(); ++i) scope.vars[targets[i]] = items[i];
    }

    Flow exec_for(const Stmt& s, const ScopePtr& scope) {
        Value iterable = eval(*s.expr, scope);
        if (iterable.kind == Value::Kind::Object || iterable.kind == Value::Kind::Callable ||
            (iterable.is_json() && !iterable.is_list() && !iterable.is_dict() && !iterable.is_string()))
            fail("'" + type_name(iterable) + "' object is not iterable");
        std::vector<Value> items = iterate(iterable);
        if (s.filter) {
            std::vector<Value> kept;
            for (auto& item : items) {
                auto probe = std::make_shared<Scope>();
                probe->parent = scope;
                assign(s.targets, item, *probe);
                if (truthy(eval(*s.filter, probe))) kept.push_back(std::move(item));
            }
            items = std::move(kept);
        }
        if (items.empty()) {
            auto inner = std::make_shared<Scope>();
            inner->parent = scope;
            return exec(s.else_body, inner) == Flow::Break ? Flow::Normal : Flow::Normal;
        }
        const int64_t n = static_cast<int64_t>(items.size());
        for (int64_t i = 0; i < n; ++i) {
            if (++iterations_ > limits_.max_loop_iterations)
                fail("too many loop iterations (over " + std::to_string(limits_.max_loop_iterations) + ")");
            auto inner = std::make_shared<Scope>();
            inner->parent = scope;
            auto loop = std::make_shared<Object>();
            loop->type_name = "LoopContext";
            auto& a = loop->attributes;
            a["index"] = Value(Json(i + 1));
            a["index0"] = Value(Json(i));
            a["revindex"] = Value(Json(n - i));
            a["revindex0"] = Value(Json(n - i - 1));
            a["first"] = Value(Json(i == 0));
            a["last"] = Value(Json(i == n - 1));
            a["length"] = Value(Json(n));
            a["depth"] = Value(Json(1));
            a["depth0"] = Value(Json(0));
            a["previtem"] = i > 0 ? items[static_cast<size_t>(i - 1)]
                                  : Value::undefined("there is no previous item");
            a["nextitem"] = i + 1 < n ? items[static_cast<size_t>(i + 1)] : Value::undefined("there is no next item");
            inner->vars["loop"] = Value::of_object(std::move(loop));
            assign(s.targets, items[static_cast<size_t>(i)], *inner);
            if (exec(s.body, inner) == Flow::Break) break;
        }
        return Flow::Normal;
    }

    Value make_macro(const Stmt& s, const ScopePtr& scope) {
        auto c = std::make_shared<Callable>();
        c->name = s.text;
        // A weak reference: the scope holds the macro, and a strong one would be a cycle.
        std::weak_ptr<Scope> defining = scope;
        const Stmt* def = &s;
        c->fn = [this, def, defining](CallArgs& args) -> Value {
            if (call_depth_ >= limits_.max_call_depth)
                fail("macro '" + def->text + "' nested too deeply (recursion over " +
                     std::to_string(limits_.max_call_depth) + " calls)");
            auto frame = std::make_shared<Scope>();
            frame->parent = defining.lock();
            if (!frame->parent) frame->parent = root_;
            const auto& params = def->targets;
            if (args.positional.size() > params.size())
                fail("macro '" + def->text + "' takes not more than " + std::to_string(params.size()) +
                     " argument(s)");
            for (size_t i = 0; i < args.positional.size(); ++i) frame->vars[params[i]] = args.positional[i];
            for (auto& [k, v] : args.keyword) {
                bool known = false;
                for (size_t i = 0; i < params.size(); ++i)
                    if (params[i] == k) {
                        if (i < args.positional.size()) fail("macro '" + def->text + "' got multiple values for argument '" + k + "'");
                        known = true;
                    }
                if (!known) fail("macro '" + def->text + "' takes no keyword argument '" + k + "'");
                frame->vars[k] = v;
            }
            for (size_t i = 0; i < params.size(); ++i) {
                if (frame->vars.count(params[i])) continue;
                frame->vars[params[i]] = def->defaults[i] ? eval(*def->defaults[i], frame)
                                                          : Value::undefined("parameter '" + params[i] + "' was not provided");
            }
            ++call_depth_;
            std::string out;
            try {
                out = capture(def->body, frame);
            } catch (...) {
                --call_depth_;
                throw;
            }
            --call_depth_;
            return Value(Json(std::move(out)));
        };
        return Value::of_callable(std::move(c));
    }

    // ---- expressions ----

    Value eval(const Expr& e, const ScopePtr& scope) {
        try {
            return eval_expr(e, scope);
        } catch (const ValueError& err) {
            template_error(e.line, e.column, err.message);
        } catch (const RaisedError& err) {
            template_error(e.line, e.column, "raise_exception: " + err.message);
        }
    }

    CallArgs args_of(const Expr& e, const ScopePtr& scope) {
        CallArgs a;
        for (const auto& item : e.items) a.positional.push_back(eval(*item, scope));
        for (const auto& [k, v] : e.keywords) a.keyword.emplace_back(k, eval(*v, scope));
        return a;
    }

    Value eval_filter(const Expr& e, const ScopePtr& scope, const Value* block_input) {
        Value input = e.a ? (e.a->kind == Expr::Kind::Filter && block_input ? eval_filter(*e.a, scope, block_input)
                                                                            : eval(*e.a, scope))
                          : *block_input;
        CallArgs a = args_of(e, scope);
        try {
            return apply_filter(e.name, input, a);
        } catch (const ValueError& err) {
            template_error(e.line, e.column, "filter '" + e.name + "': " + err.message);
        }
    }

    Value eval_expr(const Expr& e, const ScopePtr& scope) {
        switch (e.kind) {
        case Expr::Kind::Literal: {
            Value v;
            v.kind = Value::Kind::Json;
            v.json = std::shared_ptr<const Json>(std::shared_ptr<const Json>(), &e.literal);  // the AST outlives the render
            return v;
        }
        case Expr::Kind::Name: return lookup(scope, e.name);
        case Expr::Kind::List:
        case Expr::Kind::Tuple: {
            Json out = Json::array();
            for (const auto& item : e.items) out.push_back(to_json(eval(*item, scope)));
            return Value(std::move(out));
        }
        case Expr::Kind::Dict: {
            Json out = Json::object();
            for (size_t i = 0; i + 1 < e.items.size(); i += 2) {
                Value k = eval(*e.items[i], scope);
                out[k.is_string() ? k.str() : to_str(k)] = to_json(eval(*e.items[i + 1], scope));
            }
            return Value(std::move(out));
        }
        case Expr::Kind::GetAttr: return get_attr(eval(*e.a, scope), e.name);
        case Expr::Kind::GetItem: {
            Value obj = eval(*e.a, scope);
            return get_item(obj, eval(*e.b, scope));
        }
        case Expr::Kind::Slice: {
            Value obj = eval(*e.a, scope);
            Value parts[3];
            for (int i = 0; i < 3; ++i)
                if (e.items[static_cast<size_t>(i)]) parts[i] = eval(*e.items[static_cast<size_t>(i)], scope);
            return slice(obj, parts[0], parts[1], parts[2]);
        }
        case Expr::Kind::Call: {
            Value callee = eval(*e.a, scope);
            if (callee.is_undefined()) fail_undefined(callee);
            if (callee.kind != Value::Kind::Callable) fail("'" + type_name(callee) + "' object is not callable");
            CallArgs a = args_of(e, scope);
            a.what = callee.callable->name;
            return callee.callable->fn(a);
        }
        case Expr::Kind::Filter: return eval_filter(e, scope, nullptr);
        case Expr::Kind::Test: {
            Value input = eval(*e.a, scope);
            CallArgs a = args_of(e, scope);
            const bool r = apply_test(e.name, input, a);
            return Value(Json(e.negated ? !r : r));
        }
        case Expr::Kind::Unary: {
            Value v = eval(*e.a, scope);
            if (e.name == "not") return Value(Json(!truthy(v)));
            if (v.is_undefined()) fail_undefined(v);
            if (!v.is_number()) fail("bad operand type for unary " + e.name + ": '" + type_name(v) + "'");
            if (e.name == "+") return v.is_float() ? v : Value(Json(as_int(v)));
            if (v.is_float()) return number(-v.j().get<double>());
            const int64_t i = as_int(v);
            if (i == std::numeric_limits<int64_t>::min()) fail("integer overflow");
            return Value(Json(-i));
        }
        case Expr::Kind::Binary: {
            if (e.name == "and") {
                Value l = eval(*e.a, scope);
                return truthy(l) ? eval(*e.b, scope) : l;
            }
            if (e.name == "or") {
                Value l = eval(*e.a, scope);
                return truthy(l) ? l : eval(*e.b, scope);
            }
            Value l = eval(*e.a, scope);
            Value r = eval(*e.b, scope);
            return arithmetic(e.name, l, r);
        }
        case Expr::Kind::Compare: {
            Value left = eval(*e.a, scope);
            for (size_t i = 0; i < e.ops.size(); ++i) {
                Value right = eval(*e.items[i], scope);
                const std::string& op = e.ops[i];
                bool ok;
                if (op == "==") ok = equals(left, right);
                else if (op == "!=") ok = !equals(left, right);
                else if (op == "in") ok = contains(right, left);
                else if (op == "not in") ok = !contains(right, left);
                else {
                    const int c = compare(left, right, op.c_str());
                    ok = op == "<" ? c < 0 : op == "<=" ? c <= 0 : op == ">" ? c > 0 : c >= 0;
                }
                if (!ok) return Value(Json(false));
                left = std::move(right);
            }
            return Value(Json(true));
        }
        case Expr::Kind::Cond:
            if (truthy(eval(*e.a, scope))) return eval(*e.b, scope);
            if (e.c) return eval(*e.c, scope);
            return Value::undefined("the inline if-expression on line " + std::to_string(e.line) +
                                    " evaluated to false and no else section was defined.");
        }
        return Value();
    }

    Value arithmetic(const std::string& op, const Value& l, const Value& r) {
        const size_t limit = limits_.max_output_bytes;
        if (op == "~") {
            std::string s = to_str(l);
            const std::string t = to_str(r);
            check_size(s.size() + t.size(), limit);
            return Value(Json(s + t));
        }
        if (l.is_undefined()) fail_undefined(l);
        if (r.is_undefined()) fail_undefined(r);
        auto unsupported = [&]() -> Value {
            fail("unsupported operand type(s) for " + op + ": '" + type_name(l) + "' and '" + type_name(r) + "'");
        };
        if (op == "+") {
            if (l.is_string() && r.is_string()) {
                check_size(l.str().size() + r.str().size(), limit);
                return Value(Json(l.str() + r.str()));
            }
            if (l.is_list() && r.is_list()) {
                check_size(l.j().size() + r.j().size(), limit / 16);
                Json out = l.j();
                for (const auto& x : r.j()) out.push_back(x);
                return Value(std::move(out));
            }
        }
        if (op == "*" && (l.is_string() || l.is_list() || r.is_string() || r.is_list())) {
            const Value& seq = l.is_string() || l.is_list() ? l : r;
            const Value& count = &seq == &l ? r : l;
            if (!(count.is_int() || count.is_bool())) return unsupported();
            const int64_t n = std::max<int64_t>(0, as_int(count));
            const size_t unit = seq.is_string() ? seq.str().size() : seq.j().size() * 16;
            if (unit && static_cast<uint64_t>(n) > limit / unit) check_size(limit + 1, limit);
            if (seq.is_string()) {
                std::string out;
                for (int64_t i = 0; i < n; ++i) out += seq.str();
                return Value(Json(out));
            }
            Json out = Json::array();
            for (int64_t i = 0; i < n; ++i)
                for (const auto& x : seq.j()) out.push_back(x);
            return Value(std::move(out));
        }
        if (!l.is_number() || !r.is_number()) {
            if (op == "%" && l.is_string()) fail("unsupported construct: printf-style '%' formatting");
            return unsupported();
        }
        const bool floats = l.is_float() || r.is_float();
        if (op == "/") {
            const double d = as_double(r);
            if (d == 0) fail("division by zero");
            return number(as_double(l) / d);
        }
        if (op == "**") {
            if (!floats && as_int(r) >= 0) {
                const int64_t base = as_int(l), exp = as_int(r);
                if (exp == 0) return Value(Json(1));
                if (base == 0 || base == 1) return Value(Json(base));
                if (base == -1) return Value(Json(exp % 2 ? -1 : 1));
                int64_t result = 1;
                for (int64_t i = 0; i < exp; ++i)  // |base| >= 2 overflows within 64 steps
                    if (!checked_mul(result, base, result)) fail("integer overflow");
                return Value(Json(result));
            }
            return number(std::pow(as_double(l), as_double(r)));
        }
        if (floats) {
            const double x = as_double(l), y = as_double(r);
            if (op == "+") return number(x + y);
            if (op == "-") return number(x - y);
            if (op == "*") return number(x * y);
            if (y == 0) fail(op == "//" ? "float floor division by zero" : "float modulo");
            if (op == "//") return number(std::floor(x / y));
            double m = std::fmod(x, y);
            if (m != 0 && ((m < 0) != (y < 0))) m += y;  // Python: the sign of the divisor
            return number(m);
        }
        const int64_t x = as_int(l), y = as_int(r);
        int64_t out;
        if (op == "+") {
            if (!checked_add(x, y, out)) fail("integer overflow");
            return Value(Json(out));
        }
        if (op == "-") {
            if (__builtin_sub_overflow(x, y, &out)) fail("integer overflow");
            return Value(Json(out));
        }
        if (op == "*") {
            if (!checked_mul(x, y, out)) fail("integer overflow");
            return Value(Json(out));
        }
        if (y == 0) fail("integer division or modulo by zero");
        if (x == std::numeric_limits<int64_t>::min() && y == -1) fail("integer overflow");
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
            --q;
            m += y;
        }
        return Value(Json(op == "//" ? q : m));
    }
};

}  // namespace

std::string render(const Body& body, const Json& context, const RenderLimits& limits) {
    return Renderer(context, limits).run(body);
}

}  // namespace mosaic::genai::chat
