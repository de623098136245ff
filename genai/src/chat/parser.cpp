#include "chat/parser.hpp"

#include "chat/builtins.hpp"
#include "chat/error.hpp"

#include <cerrno>
#include <cstdlib>
#include <set>

namespace mosaic::genai::chat {
namespace {

using K = Token::Kind;

// Hostile templates must not exhaust the stack: `((((...` or `{% if %}` nested thousands deep.
constexpr int kMaxNesting = 200;

class Parser {
public:
    explicit Parser(const std::vector<Token>& tokens) : t_(tokens) {}

    Body parse_template() {
        Body body = statements({}, nullptr);
        return body;
    }

private:
    const std::vector<Token>& t_;
    size_t i_ = 0;
    int depth_ = 0;
    int loops_ = 0;  // enclosing for loops, for break/continue

    struct Guard {
        Parser& p;
        explicit Guard(Parser& parser, const Token& at) : p(parser) {
            if (++p.depth_ > kMaxNesting) template_error(at.line, at.column, "template nested too deeply");
        }
        ~Guard() { --p.depth_; }
    };

    // A chain built in a loop (a + b + c, a.b.c, x|f|g) is as deep as it is long: each link counts
    // as a level of nesting until the chain ends, so that evaluating and freeing the tree, which
    // recurse, stay within kMaxNesting.
    struct Chain {
        Parser& p;
        int saved;
        explicit Chain(Parser& parser) : p(parser), saved(parser.depth_) {}
        void link(const Token& at) {
            if (++p.depth_ > kMaxNesting) template_error(at.line, at.column, "expression nested too deeply");
        }
        ~Chain() { p.depth_ = saved; }
    };

    const Token& cur() const { return t_[i_]; }
    const Token& peek(size_t k = 1) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
    void next() {
        if (i_ + 1 < t_.size()) ++i_;
    }
    [[noreturn]] void error_at(const Token& t, const std::string& message) const {
        template_error(t.line, t.column, message);
    }
    static std::string describe(const Token& t) {
        switch (t.kind) {
        case K::End: return "end of template";
        case K::BlockEnd: return "end of statement block";
        case K::VarEnd: return "end of print statement";
        case K::Data: return "template data";
        case K::String: return "string";
        default: return "'" + t.text + "'";
        }
    }
    bool is_op(const char* op) const { return cur().kind == K::Operator && cur().text == op; }
    bool is_name(const char* name) const { return cur().kind == K::Name && cur().text == name; }
    bool skip_op(const char* op) {
        if (!is_op(op)) return false;
        next();
        return true;
    }
    bool skip_name(const char* name) {
        if (!is_name(name)) return false;
        next();
        return true;
    }
    void expect_op(const char* op) {
        if (!skip_op(op)) error_at(cur(), std::string("expected '") + op + "', got " + describe(cur()));
    }
    std::string expect_name() {
        if (cur().kind != K::Name) error_at(cur(), "expected a name, got " + describe(cur()));
        std::string n = cur().text;
        next();
        return n;
    }
    void expect_block_end() {
        if (cur().kind != K::BlockEnd) error_at(cur(), "expected end of statement block, got " + describe(cur()));
        next();
    }

    ExprPtr node(Expr::Kind kind, const Token& at) {
        auto e = std::make_unique<Expr>();
        e->kind = kind;
        e->line = at.line;
        e->column = at.column;
        return e;
    }

    // ---- statements ----

    // Parses until a `{% name %}` in `ends`, leaving the stream at that name; `opener` for messages.
    Body statements(const std::set<std::string>& ends, const Token* opener) {
        Body body;
        while (true) {
            const Token& t = cur();
            if (t.kind == K::End) {
                if (!opener) return body;
                std::string want;
                for (const auto& e : ends) want += (want.empty() ? "'" : " or '") + e + "'";
                error_at(*opener, "unexpected end of template: the '" + opener->text + "' block is not closed (expected " +
                                      want + ")");
            }
            if (t.kind == K::Data) {
                auto s = std::make_unique<Stmt>();
                s->kind = Stmt::Kind::Text;
                s->line = t.line;
                s->column = t.column;
                s->text = t.text;
                body.push_back(std::move(s));
                next();
            } else if (t.kind == K::VarBegin) {
                next();
                auto s = std::make_unique<Stmt>();
                s->kind = Stmt::Kind::Output;
                s->line = cur().line;
                s->column = cur().column;
                s->expr = tuple(true, {});
                if (cur().kind != K::VarEnd) error_at(cur(), "expected end of print statement, got " + describe(cur()));
                next();
                body.push_back(std::move(s));
            } else if (t.kind == K::BlockBegin) {
                const Token& name = peek();
                if (name.kind == K::Name && ends.count(name.text)) {
                    next();
                    return body;
                }
                next();
                body.push_back(statement());
            } else {
                error_at(t, "unexpected " + describe(t));
            }
        }
    }

    std::unique_ptr<Stmt> stmt(Stmt::Kind kind, const Token& at) {
        auto s = std::make_unique<Stmt>();
        s->kind = kind;
        s->line = at.line;
        s->column = at.column;
        return s;
    }

    std::unique_ptr<Stmt> statement() {
        const Token tag = cur();
        Guard guard(*this, tag);
        if (tag.kind != K::Name) error_at(tag, "tag name expected, got " + describe(tag));
        const std::string& n = tag.text;
        next();
        if (n == "if") return parse_if(tag);
        if (n == "for") return parse_for(tag);
        if (n == "set") return parse_set(tag);
        if (n == "macro") return parse_macro(tag);
        if (n == "with") return parse_with(tag);
        if (n == "break" || n == "continue") {
            if (loops_ == 0) error_at(tag, "'" + n + "' outside of a loop");
            auto s = stmt(n == "break" ? Stmt::Kind::Break : Stmt::Kind::Continue, tag);
            expect_block_end();
            return s;
        }
        if (n == "print") {
            auto s = stmt(Stmt::Kind::Output, tag);
            s->expr = tuple(true, {});
            expect_block_end();
            return s;
        }
        if (n == "generation") {  // transformers' AssistantTracker: renders its body
            auto s = stmt(Stmt::Kind::Block, tag);
            expect_block_end();
            s->body = statements({"endgeneration"}, &tag);
            next();
            expect_block_end();
            return s;
        }
        static const std::set<std::string> unsupported = {"block", "extends", "include", "import", "from",
                                                          "call", "filter", "autoescape", "do", "trans"};
        if (unsupported.count(n)) error_at(tag, "unsupported construct '{% " + n + " %}'");
        static const std::set<std::string> ends = {"endif", "endfor", "endmacro", "endset", "endwith", "else",
                                                   "elif", "endraw", "endgeneration"};
        if (ends.count(n)) error_at(tag, "unexpected '" + n + "' (no open block expects it)");
        error_at(tag, "unknown tag '" + n + "'");
    }

    std::unique_ptr<Stmt> parse_if(const Token& tag) {
        auto s = stmt(Stmt::Kind::If, tag);
        while (true) {
            s->conditions.push_back(tuple(false, {}));
            expect_block_end();
            s->bodies.push_back(statements({"elif", "else", "endif"}, &tag));
            const std::string which = cur().text;
            next();
            if (which == "elif") continue;
            if (which == "else") {
                expect_block_end();
                s->else_body = statements({"endif"}, &tag);
                next();
            }
            expect_block_end();
            return s;
        }
    }

    std::vector<std::string> assign_targets(bool allow_attr, std::string* attr) {
        std::vector<std::string> names;
        const bool paren = skip_op("(");
        names.push_back(expect_name());
        if (allow_attr && is_op(".")) {
            next();
            *attr = expect_name();
            return names;
        }
        while (skip_op(",")) {
            if (cur().kind != K::Name) break;
            names.push_back(expect_name());
        }
        if (paren) expect_op(")");
        for (const auto& n : names)
            if (n == "true" || n == "false" || n == "none" || n == "True" || n == "False" || n == "None" || n == "loop")
                if (n != "loop") error_at(cur(), "can't assign to '" + n + "'");
        return names;
    }

    std::unique_ptr<Stmt> parse_for(const Token& tag) {
        auto s = stmt(Stmt::Kind::For, tag);
        s->targets = assign_targets(false, nullptr);
        if (!skip_name("in")) error_at(cur(), "expected 'in' in for loop, got " + describe(cur()));
        s->expr = tuple(false, {"recursive"});
        if (skip_name("if")) s->filter = expression(true);
        if (is_name("recursive")) error_at(cur(), "unsupported construct 'recursive' loops");
        expect_block_end();
        ++loops_;
        s->body = statements({"endfor", "else"}, &tag);
        --loops_;
        const bool has_else = cur().text == "else";
        next();
        if (has_else) {
            expect_block_end();
            s->else_body = statements({"endfor"}, &tag);
            next();
        }
        expect_block_end();
        return s;
    }

    std::unique_ptr<Stmt> parse_set(const Token& tag) {
        auto s = stmt(Stmt::Kind::Set, tag);
        s->targets = assign_targets(true, &s->target_attr);
        if (skip_op("=")) {
            s->expr = tuple(true, {});
            expect_block_end();
            return s;
        }
        if (s->targets.size() != 1 || !s->target_attr.empty()) error_at(cur(), "expected '=' in set");
        s->kind = Stmt::Kind::SetBlock;
        if (is_op("|")) s->filter = filters(nullptr);
        expect_block_end();
        s->body = statements({"endset"}, &tag);
        next();
        expect_block_end();
        return s;
    }

    std::unique_ptr<Stmt> parse_macro(const Token& tag) {
        auto s = stmt(Stmt::Kind::Macro, tag);
        s->text = expect_name();
        expect_op("(");
        while (!is_op(")")) {
            if (!s->targets.empty()) expect_op(",");
            if (is_op(")")) break;
            s->targets.push_back(expect_name());
            s->defaults.push_back(skip_op("=") ? expression(true) : nullptr);
        }
        next();
        expect_block_end();
        const int loops = loops_;
        loops_ = 0;
        s->body = statements({"endmacro"}, &tag);
        loops_ = loops;
        next();
        if (cur().kind == K::Name && cur().text == s->text) next();
        expect_block_end();
        return s;
    }

    std::unique_ptr<Stmt> parse_with(const Token& tag) {
        auto s = stmt(Stmt::Kind::With, tag);
        while (cur().kind != K::BlockEnd) {
            if (!s->targets.empty()) expect_op(",");
            s->targets.push_back(expect_name());
            expect_op("=");
            s->defaults.push_back(expression(true));
        }
        expect_block_end();
        s->body = statements({"endwith"}, &tag);
        next();
        expect_block_end();
        return s;
    }

    // ---- expressions ----

    bool tuple_end(const std::set<std::string>& extra) const {
        if (cur().kind == K::VarEnd || cur().kind == K::BlockEnd || is_op(")")) return true;
        return cur().kind == K::Name && extra.count(cur().text);
    }

    ExprPtr tuple(bool with_cond, const std::set<std::string>& extra_end, bool explicit_paren = false) {
        const Token at = cur();
        std::vector<ExprPtr> items;
        bool is_tuple = false;
        while (true) {
            if (!items.empty()) expect_op(",");
            if (tuple_end(extra_end)) break;
            items.push_back(expression(with_cond));
            if (is_op(",")) is_tuple = true;
            else break;
        }
        if (!is_tuple) {
            if (!items.empty()) return std::move(items[0]);
            if (!explicit_paren) error_at(at, "expected an expression, got " + describe(at));
        }
        auto e = node(Expr::Kind::Tuple, at);
        e->items = std::move(items);
        return e;
    }

    ExprPtr expression(bool with_cond) { return with_cond ? cond() : or_expr(); }

    ExprPtr cond() {
        ExprPtr e = or_expr();
        Chain chain(*this);
        while (is_name("if")) {
            chain.link(cur());
            const Token at = cur();
            next();
            auto c = node(Expr::Kind::Cond, at);
            c->a = or_expr();
            c->b = std::move(e);
            if (skip_name("else")) c->c = cond();
            e = std::move(c);
        }
        return e;
    }

    ExprPtr binary(const Token& at, const std::string& op, ExprPtr l, ExprPtr r) {
        auto e = node(Expr::Kind::Binary, at);
        e->name = op;
        e->a = std::move(l);
        e->b = std::move(r);
        return e;
    }

    ExprPtr or_expr() {
        ExprPtr e = and_expr();
        Chain chain(*this);
        while (is_name("or")) {
            chain.link(cur());
            const Token at = cur();
            next();
            e = binary(at, "or", std::move(e), and_expr());
        }
        return e;
    }

    ExprPtr and_expr() {
        ExprPtr e = not_expr();
        Chain chain(*this);
        while (is_name("and")) {
            chain.link(cur());
            const Token at = cur();
            next();
            e = binary(at, "and", std::move(e), not_expr());
        }
        return e;
    }

    ExprPtr not_expr() {
        if (is_name("not")) {
            const Token at = cur();
            Guard guard(*this, at);
            next();
            auto e = node(Expr::Kind::Unary, at);
            e->name = "not";
            e->a = not_expr();
            return e;
        }
        return compare();
    }

    ExprPtr compare() {
        const Token at = cur();
        ExprPtr first = math1();
        ExprPtr e;
        Chain chain(*this);
        while (true) {
            chain.link(cur());
            std::string op;
            if (cur().kind == K::Operator &&
                (cur().text == "==" || cur().text == "!=" || cur().text == "<" || cur().text == "<=" ||
                 cur().text == ">" || cur().text == ">=")) {
                op = cur().text;
                next();
            } else if (is_name("in")) {
                op = "in";
                next();
            } else if (is_name("not") && peek().kind == K::Name && peek().text == "in") {
                op = "not in";
                next();
                next();
            } else {
                break;
            }
            if (!e) {
                e = node(Expr::Kind::Compare, at);
                e->a = std::move(first);
            }
            e->ops.push_back(op);
            e->items.push_back(math1());
        }
        return e ? std::move(e) : std::move(first);
    }

    ExprPtr math1() {
        ExprPtr e = concat();
        Chain chain(*this);
        while (is_op("+") || is_op("-")) {
            chain.link(cur());
            const Token at = cur();
            next();
            e = binary(at, at.text, std::move(e), concat());
        }
        return e;
    }

    ExprPtr concat() {
        ExprPtr e = math2();
        Chain chain(*this);
        while (is_op("~")) {
            chain.link(cur());
            const Token at = cur();
            next();
            e = binary(at, "~", std::move(e), math2());
        }
        return e;
    }

    ExprPtr math2() {
        ExprPtr e = pow();
        Chain chain(*this);
        while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
            chain.link(cur());
            const Token at = cur();
            next();
            e = binary(at, at.text, std::move(e), pow());
        }
        return e;
    }

    ExprPtr pow() {
        ExprPtr e = unary(true);
        Chain chain(*this);
        while (is_op("**")) {
            chain.link(cur());
            const Token at = cur();
            next();
            e = binary(at, "**", std::move(e), unary(true));
        }
        return e;
    }

    ExprPtr unary(bool with_filter) {
        const Token at = cur();
        Guard guard(*this, at);
        ExprPtr e;
        if (is_op("-") || is_op("+")) {
            next();
            e = node(Expr::Kind::Unary, at);
            e->name = at.text;
            e->a = unary(false);
        } else {
            e = primary();
        }
        e = postfix(std::move(e));
        if (with_filter) e = filter_expr(std::move(e));
        return e;
    }

    ExprPtr primary() {
        const Token at = cur();
        Guard guard(*this, at);
        if (at.kind == K::Name) {
            next();
            auto e = node(Expr::Kind::Literal, at);
            if (at.text == "true" || at.text == "True") e->literal = true;
            else if (at.text == "false" || at.text == "False") e->literal = false;
            else if (at.text == "none" || at.text == "None") e->literal = nullptr;
            else {
                e->kind = Expr::Kind::Name;
                e->name = at.text;
            }
            return e;
        }
        if (at.kind == K::String) {
            std::string s;
            while (cur().kind == K::String) {  // adjacent literals concatenate, as in Python
                s += cur().text;
                next();
            }
            auto e = node(Expr::Kind::Literal, at);
            e->literal = s;
            return e;
        }
        if (at.kind == K::Integer) {
            next();
            errno = 0;
            long long v = std::strtoll(at.text.c_str(), nullptr, 10);
            if (errno) error_at(at, "integer literal too large");
            auto e = node(Expr::Kind::Literal, at);
            e->literal = static_cast<int64_t>(v);
            return e;
        }
        if (at.kind == K::Float) {
            next();
            auto e = node(Expr::Kind::Literal, at);
            e->literal = std::strtod(at.text.c_str(), nullptr);
            return e;
        }
        if (is_op("(")) {
            next();
            ExprPtr e = tuple(true, {}, true);
            expect_op(")");
            return e;
        }
        if (is_op("[")) {
            next();
            auto e = node(Expr::Kind::List, at);
            while (!is_op("]")) {
                if (!e->items.empty()) expect_op(",");
                if (is_op("]")) break;
                e->items.push_back(expression(true));
            }
            next();
            return e;
        }
        if (is_op("{")) {
            next();
            auto e = node(Expr::Kind::Dict, at);
            while (!is_op("}")) {
                if (!e->items.empty()) expect_op(",");
                if (is_op("}")) break;
                e->items.push_back(expression(true));
                expect_op(":");
                e->items.push_back(expression(true));
            }
            next();
            return e;
        }
        error_at(at, "unexpected " + describe(at));
    }

    ExprPtr postfix(ExprPtr e) {
        Chain chain(*this);
        while (true) {
            chain.link(cur());
            const Token at = cur();
            if (is_op(".")) {
                next();
                if (cur().kind == K::Name) {
                    auto g = node(Expr::Kind::GetAttr, at);
                    g->name = cur().text;
                    g->a = std::move(e);
                    e = std::move(g);
                    next();
                } else if (cur().kind == K::Integer) {
                    auto g = node(Expr::Kind::GetItem, at);
                    g->a = std::move(e);
                    g->b = node(Expr::Kind::Literal, cur());
                    g->b->literal = static_cast<int64_t>(std::strtoll(cur().text.c_str(), nullptr, 10));
                    e = std::move(g);
                    next();
                } else {
                    error_at(cur(), "expected a name after '.', got " + describe(cur()));
                }
            } else if (is_op("[")) {
                next();
                e = subscript(at, std::move(e));
            } else if (is_op("(")) {
                e = call(std::move(e));
            } else {
                return e;
            }
        }
    }

    ExprPtr subscript(const Token& at, ExprPtr target) {
        ExprPtr start, stop, step;
        bool is_slice = false;
        if (!is_op(":")) start = expression(true);
        if (skip_op(":")) {
            is_slice = true;
            if (!is_op("]") && !is_op(":")) stop = expression(true);
            if (skip_op(":") && !is_op("]")) step = expression(true);
        }
        if (is_op(",")) error_at(cur(), "unsupported construct: tuple subscripts");
        expect_op("]");
        if (!is_slice) {
            auto g = node(Expr::Kind::GetItem, at);
            g->a = std::move(target);
            g->b = std::move(start);
            return g;
        }
        auto s = node(Expr::Kind::Slice, at);
        s->a = std::move(target);
        s->items.push_back(std::move(start));
        s->items.push_back(std::move(stop));
        s->items.push_back(std::move(step));
        return s;
    }

    void call_args(Expr& e) {
        expect_op("(");
        bool first = true;
        while (!is_op(")")) {
            if (!first) expect_op(",");
            first = false;
            if (is_op(")")) break;
            if (is_op("*") || is_op("**")) error_at(cur(), "unsupported construct: *args / **kwargs in calls");
            if (cur().kind == K::Name && peek().kind == K::Operator && peek().text == "=") {
                std::string key = cur().text;
                next();
                next();
                e.keywords.emplace_back(key, expression(true));
            } else {
                if (!e.keywords.empty()) error_at(cur(), "positional argument follows keyword argument");
                e.items.push_back(expression(true));
            }
        }
        next();
    }

    ExprPtr call(ExprPtr callee) {
        auto e = node(Expr::Kind::Call, cur());
        e->a = std::move(callee);
        call_args(*e);
        return e;
    }

    std::string dotted_name() {
        std::string n = expect_name();
        while (is_op(".") && peek().kind == K::Name) {
            next();
            n += "." + expect_name();
        }
        return n;
    }

    // `|f(args)|g` applied to `e` (null for a filtered set block).
    ExprPtr filters(ExprPtr e) {
        Chain chain(*this);
        while (is_op("|")) {
            chain.link(cur());
            next();
            const Token at = cur();
            auto f = node(Expr::Kind::Filter, at);
            f->name = dotted_name();
            if (!find_filter(f->name)) error_at(at, "unknown filter '" + f->name + "'");
            f->a = std::move(e);
            if (is_op("(")) call_args(*f);
            e = std::move(f);
        }
        return e;
    }

    ExprPtr filter_expr(ExprPtr e) {
        Chain chain(*this);
        while (true) {
            chain.link(cur());
            if (is_op("|")) {
                e = filters(std::move(e));
            } else if (is_name("is")) {
                next();
                const bool negated = skip_name("not");
                const Token at = cur();
                auto t = node(Expr::Kind::Test, at);
                t->name = dotted_name();
                if (!find_test(t->name)) error_at(at, "unknown test '" + t->name + "'");
                t->negated = negated;
                t->a = std::move(e);
                if (is_op("(")) {
                    call_args(*t);
                } else if ((cur().kind == K::Name || cur().kind == K::String || cur().kind == K::Integer ||
                            cur().kind == K::Float || is_op("[") || is_op("{")) &&
                           !is_name("else") && !is_name("or") && !is_name("and")) {
                    if (is_name("is")) error_at(cur(), "You cannot chain multiple tests with is");
                    t->items.push_back(postfix(primary()));
                }
                e = std::move(t);
            } else if (is_op("(")) {
                e = call(std::move(e));
            } else {
                return e;
            }
        }
    }
};

}  // namespace

Body parse(const std::vector<Token>& tokens) { return Parser(tokens).parse_template(); }

}  // namespace mosaic::genai::chat
