#include "planner/expr.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <vector>

namespace kbp::planner {
namespace {

struct Failure {
    std::string message;
};

class Parser {
public:
    // `checking`: only the syntax matters (expr_names): values never fail.
    Parser(std::string_view text, const Lookup& lookup, bool checking = false) : t_(text), lookup_(lookup), checking_(checking) {}

    std::int64_t parse() {
        auto v = logic_or();
        skip();
        if (p_ != t_.size()) throw Failure{"unexpected '" + std::string(1, t_[p_]) + "' at column " + std::to_string(p_ + 1)};
        return v;
    }

private:
    void skip() {
        while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
    }
    bool eat(std::string_view op) {
        skip();
        if (t_.substr(p_, op.size()) == op) {
            p_ += op.size();
            return true;
        }
        return false;
    }
    std::int64_t logic_or() {
        auto v = logic_and();
        while (eat("||")) {
            auto r = logic_and();
            v = (v || r) ? 1 : 0;
        }
        return v;
    }
    std::int64_t logic_and() {
        auto v = compare();
        while (eat("&&")) {
            auto r = compare();
            v = (v && r) ? 1 : 0;
        }
        return v;
    }
    std::int64_t compare() {
        auto v = sum();
        if (eat("==")) return v == sum();
        if (eat("!=")) return v != sum();
        if (eat("<=")) return v <= sum();
        if (eat(">=")) return v >= sum();
        if (eat("<")) return v < sum();
        if (eat(">")) return v > sum();
        return v;
    }
    std::int64_t sum() {
        auto v = product();
        while (true) {
            if (eat("+")) {
                if (__builtin_add_overflow(v, product(), &v) && !checking_) throw Failure{"value overflows 64 bits"};
            } else if (eat("-")) {
                if (__builtin_sub_overflow(v, product(), &v) && !checking_) throw Failure{"value overflows 64 bits"};
            } else {
                return v;
            }
        }
    }
    std::int64_t product() {
        auto v = unary();
        while (true) {
            skip();
            if (p_ < t_.size() && (t_[p_] == '*' || t_[p_] == '/' || t_[p_] == '%')) {
                char op = t_[p_++];
                auto r = unary();
                if (op == '*') {
                    if (__builtin_mul_overflow(v, r, &v) && !checking_) throw Failure{"value overflows 64 bits"};
                } else if (r == 0 || (v == INT64_MIN && r == -1)) {
                    if (!checking_) throw Failure{r == 0 ? "division by zero" : "value overflows 64 bits"};
                    v = 0;
                } else {
                    v = op == '/' ? v / r : v % r;
                }
            } else {
                return v;
            }
        }
    }
    std::int64_t unary() {
        if (eat("-")) {
            if (++depth_ > 64) throw Failure{"operators nested too deep"};
            auto v = unary();
            --depth_;
            if (v == INT64_MIN) {
                if (!checking_) throw Failure{"value overflows 64 bits"};
                return v;
            }
            return -v;
        }
        if (eat("!")) {
            if (++depth_ > 64) throw Failure{"operators nested too deep"};
            auto v = unary();
            --depth_;
            return v ? 0 : 1;
        }
        return atom();
    }
    std::int64_t atom() {
        skip();
        if (p_ >= t_.size()) throw Failure{"unexpected end of expression"};
        char c = t_[p_];
        if (c == '(') {
            if (++depth_ > 64) throw Failure{"parentheses nested too deep"};
            ++p_;
            auto v = logic_or();
            if (!eat(")")) throw Failure{"missing ')'"};
            --depth_;
            return v;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            std::int64_t v = 0;
            while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_])))
                if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, t_[p_++] - '0', &v))
                    throw Failure{"number overflows 64 bits"};
            return v;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            auto start = p_;
            while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_')) ++p_;
            auto name = t_.substr(start, p_ - start);
            skip();
            if (p_ < t_.size() && t_[p_] == '(') return call(name);
            auto v = lookup_(name);
            if (!v) throw Failure{"unknown name '" + std::string(name) + "'"};
            return *v;
        }
        throw Failure{"unexpected '" + std::string(1, c) + "' at column " + std::to_string(p_ + 1)};
    }

    // min(a, b), max(a, b): a sliding window or a sparse reader caps what it reads.
    std::int64_t call(std::string_view name) {
        if (name != "min" && name != "max") throw Failure{"unknown function '" + std::string(name) + "' (min, max)"};
        if (++depth_ > 64) throw Failure{"parentheses nested too deep"};
        ++p_;
        auto a = logic_or();
        if (!eat(",")) throw Failure{"missing ',' in " + std::string(name) + "(a, b)"};
        auto b = logic_or();
        if (!eat(")")) throw Failure{"missing ')'"};
        --depth_;
        return name == "min" ? std::min(a, b) : std::max(a, b);
    }

    std::string_view t_;
    const Lookup& lookup_;
    bool checking_ = false;
    std::size_t p_ = 0;
    int depth_ = 0;
};

}  // namespace

Result<std::vector<std::string>> expr_names(std::string_view text) {
    std::vector<std::string> names;
    Lookup record = [&](std::string_view name) -> std::optional<std::int64_t> {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
        return 1;
    };
    try {
        Parser(text, record, true).parse();
        return names;
    } catch (const Failure& f) {
        return make_error(ErrorCode::invalid_input, "", "'" + std::string(text) + "': " + f.message);
    }
}

Result<std::int64_t> eval_expr(std::string_view text, const Lookup& lookup) {
    try {
        return Parser(text, lookup).parse();
    } catch (const Failure& f) {
        return make_error(ErrorCode::invalid_input, "", "'" + std::string(text) + "': " + f.message);
    }
}

}  // namespace kbp::planner
