#include "viewer/model/math_text.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>

namespace kbp::viewer {
namespace {

// Commands that stand for one character (or a word), without arguments.
const std::map<std::string, std::string, std::less<>>& symbols() {
    static const std::map<std::string, std::string, std::less<>> table{
        // Greek (TeX's \epsilon and \phi drawn as the text forms people read).
        {"alpha", "α"}, {"beta", "β"}, {"gamma", "γ"}, {"delta", "δ"}, {"epsilon", "ε"}, {"varepsilon", "ε"}, {"zeta", "ζ"},
        {"eta", "η"}, {"theta", "θ"}, {"vartheta", "ϑ"}, {"iota", "ι"}, {"kappa", "κ"}, {"lambda", "λ"}, {"mu", "μ"}, {"nu", "ν"},
        {"xi", "ξ"}, {"pi", "π"}, {"rho", "ρ"}, {"sigma", "σ"}, {"tau", "τ"}, {"upsilon", "υ"}, {"phi", "φ"}, {"varphi", "φ"},
        {"chi", "χ"}, {"psi", "ψ"}, {"omega", "ω"}, {"Gamma", "Γ"}, {"Delta", "Δ"}, {"Theta", "Θ"}, {"Lambda", "Λ"}, {"Xi", "Ξ"},
        {"Pi", "Π"}, {"Sigma", "Σ"}, {"Upsilon", "Υ"}, {"Phi", "Φ"}, {"Psi", "Ψ"}, {"Omega", "Ω"}, {"ell", "ℓ"},
        // Relations and arrows.
        {"in", "∈"}, {"notin", "∉"}, {"ni", "∋"}, {"le", "≤"}, {"leq", "≤"}, {"ge", "≥"}, {"geq", "≥"}, {"ne", "≠"}, {"neq", "≠"},
        {"approx", "≈"}, {"equiv", "≡"}, {"sim", "∼"}, {"simeq", "≃"}, {"propto", "∝"}, {"ll", "≪"}, {"gg", "≫"}, {"subset", "⊂"},
        {"subseteq", "⊆"}, {"supset", "⊃"}, {"supseteq", "⊇"}, {"to", "→"}, {"rightarrow", "→"}, {"leftarrow", "←"},
        {"gets", "←"}, {"mapsto", "↦"}, {"Rightarrow", "⇒"}, {"Leftarrow", "⇐"}, {"implies", "⇒"}, {"iff", "⇔"},
        {"leftrightarrow", "↔"}, {"mid", "∣"}, {"parallel", "∥"}, {"perp", "⊥"},
        // Operators.
        {"cdot", "·"}, {"times", "×"}, {"div", "÷"}, {"pm", "±"}, {"mp", "∓"}, {"odot", "⊙"}, {"oplus", "⊕"}, {"otimes", "⊗"},
        {"oslash", "⊘"}, {"circ", "∘"}, {"ast", "∗"}, {"star", "⋆"}, {"lor", "∨"}, {"land", "∧"}, {"wedge", "∧"}, {"vee", "∨"},
        {"neg", "¬"}, {"lnot", "¬"}, {"setminus", "∖"}, {"cup", "∪"}, {"cap", "∩"}, {"partial", "∂"}, {"nabla", "∇"},
        {"sum", "∑"}, {"prod", "∏"}, {"int", "∫"}, {"bigcup", "⋃"}, {"bigcap", "⋂"},
        // Others.
        {"infty", "∞"}, {"forall", "∀"}, {"exists", "∃"}, {"emptyset", "∅"}, {"varnothing", "∅"}, {"top", "⊤"}, {"bot", "⊥"},
        {"dots", "…"}, {"ldots", "…"}, {"cdots", "⋯"}, {"vdots", "⋮"}, {"ddots", "⋱"}, {"langle", "⟨"}, {"rangle", "⟩"},
        {"lfloor", "⌊"}, {"rfloor", "⌋"}, {"lceil", "⌈"}, {"rceil", "⌉"}, {"vert", "|"}, {"lvert", "|"}, {"rvert", "|"},
        {"Vert", "‖"}, {"lVert", "‖"}, {"rVert", "‖"}, {"prime", "′"}, {"angle", "∠"}, {"checkmark", "✓"}, {"dagger", "†"},
        {"lbrace", "{"}, {"rbrace", "}"}, {"backslash", "\\"}, {"colon", ":"},
        // Spacing (\, \: \; and \! are handled with the other one-character commands).
        {"quad", "  "}, {"qquad", "    "}, {"enspace", " "}, {"thinspace", " "},
        // Named functions, upright.
        {"max", "max"}, {"min", "min"}, {"log", "log"}, {"ln", "ln"}, {"lg", "lg"}, {"exp", "exp"}, {"sin", "sin"}, {"cos", "cos"},
        {"tan", "tan"}, {"tanh", "tanh"}, {"sinh", "sinh"}, {"cosh", "cosh"}, {"arg", "arg"}, {"lim", "lim"}, {"sup", "sup"},
        {"inf", "inf"}, {"det", "det"}, {"dim", "dim"}, {"ker", "ker"}, {"gcd", "gcd"}, {"Pr", "Pr"}, {"deg", "deg"},
        {"bmod", " mod "}, {"mod", " mod "},
        // Style switches and sizes that draw nothing.
        {"displaystyle", ""}, {"textstyle", ""}, {"scriptstyle", ""}, {"limits", ""}, {"nolimits", ""}, {"big", ""}, {"Big", ""},
        {"bigg", ""}, {"Bigg", ""}, {"bigl", ""}, {"bigr", ""}, {"Bigl", ""}, {"Bigr", ""}, {"biggl", ""}, {"biggr", ""},
        {"Biggl", ""}, {"Biggr", ""}, {"bigm", ""}, {"Bigm", ""}, {"left", ""}, {"right", ""}, {"middle", ""},
    };
    return table;
}

// Combining marks for accents (drawn over the character before them).
const std::map<std::string, std::string, std::less<>>& accents() {
    static const std::map<std::string, std::string, std::less<>> table{
        {"hat", "\u0302"},   {"widehat", "\u0302"}, {"tilde", "\u0303"},     {"widetilde", "\u0303"}, {"bar", "\u0304"},
        {"vec", "\u20D7"},   {"dot", "\u0307"},     {"ddot", "\u0308"},      {"check", "\u030C"},     {"breve", "\u0306"},
        {"acute", "\u0301"}, {"grave", "\u0300"},   {"overline", "\u0305"},  {"underline", "\u0332"},
    };
    return table;
}

const std::map<std::string, std::string, std::less<>> superscripts{
    {"0", "⁰"}, {"1", "¹"}, {"2", "²"}, {"3", "³"}, {"4", "⁴"}, {"5", "⁵"}, {"6", "⁶"}, {"7", "⁷"}, {"8", "⁸"}, {"9", "⁹"},
    {"+", "⁺"}, {"-", "⁻"}, {"−", "⁻"}, {"=", "⁼"}, {"(", "⁽"}, {")", "⁾"}, {"a", "ᵃ"}, {"b", "ᵇ"}, {"c", "ᶜ"}, {"d", "ᵈ"},
    {"e", "ᵉ"}, {"f", "ᶠ"}, {"g", "ᵍ"}, {"h", "ʰ"}, {"i", "ⁱ"}, {"j", "ʲ"}, {"k", "ᵏ"}, {"l", "ˡ"}, {"m", "ᵐ"}, {"n", "ⁿ"},
    {"o", "ᵒ"}, {"p", "ᵖ"}, {"r", "ʳ"}, {"s", "ˢ"}, {"t", "ᵗ"}, {"u", "ᵘ"}, {"v", "ᵛ"}, {"w", "ʷ"}, {"x", "ˣ"}, {"y", "ʸ"},
    {"z", "ᶻ"}, {"A", "ᴬ"}, {"B", "ᴮ"}, {"D", "ᴰ"}, {"E", "ᴱ"}, {"G", "ᴳ"}, {"H", "ᴴ"}, {"I", "ᴵ"}, {"J", "ᴶ"}, {"K", "ᴷ"},
    {"L", "ᴸ"}, {"M", "ᴹ"}, {"N", "ᴺ"}, {"O", "ᴼ"}, {"P", "ᴾ"}, {"R", "ᴿ"}, {"T", "ᵀ"}, {"U", "ᵁ"}, {"V", "ⱽ"}, {"W", "ᵂ"},
    {"⊤", "ᵀ"}, {"β", "ᵝ"}, {"γ", "ᵞ"}, {"δ", "ᵟ"}, {"θ", "ᶿ"}, {"φ", "ᵠ"}, {"χ", "ᵡ"}, {"′", "′"}, {"*", "*"}, {"∗", "*"},
};

const std::map<std::string, std::string, std::less<>> subscripts{
    {"0", "₀"}, {"1", "₁"}, {"2", "₂"}, {"3", "₃"}, {"4", "₄"}, {"5", "₅"}, {"6", "₆"}, {"7", "₇"}, {"8", "₈"}, {"9", "₉"},
    {"+", "₊"}, {"-", "₋"}, {"−", "₋"}, {"=", "₌"}, {"(", "₍"}, {")", "₎"}, {"a", "ₐ"}, {"e", "ₑ"}, {"h", "ₕ"}, {"i", "ᵢ"},
    {"j", "ⱼ"}, {"k", "ₖ"}, {"l", "ₗ"}, {"m", "ₘ"}, {"n", "ₙ"}, {"o", "ₒ"}, {"p", "ₚ"}, {"r", "ᵣ"}, {"s", "ₛ"}, {"t", "ₜ"},
    {"u", "ᵤ"}, {"v", "ᵥ"}, {"x", "ₓ"}, {"β", "ᵦ"}, {"γ", "ᵧ"}, {"ρ", "ᵨ"}, {"φ", "ᵩ"}, {"χ", "ᵪ"}, {",", ","},
};

const std::map<char, std::string> blackboard{{'R', "ℝ"}, {'N', "ℕ"}, {'Z', "ℤ"}, {'Q', "ℚ"}, {'C', "ℂ"}, {'P', "ℙ"}};
const std::map<char, std::string> calligraphic{{'B', "ℬ"}, {'E', "ℰ"}, {'F', "ℱ"}, {'H', "ℋ"}, {'I', "ℐ"},
                                               {'L', "ℒ"}, {'M', "ℳ"}, {'R', "ℛ"}};

std::size_t utf8_length(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

std::vector<std::string> code_points(std::string_view s) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = std::min(utf8_length(static_cast<unsigned char>(s[i])), s.size() - i);
        out.emplace_back(s.substr(i, n));
        i += n;
    }
    return out;
}

// Characters that make a fraction's part need brackets ("a+b" over "c" is (a+b)/c).
bool needs_brackets(std::string_view s) {
    for (std::string_view op : {" ", "+", "-", "−", "·", "×", "/", ",", "±"})
        if (s.find(op) != std::string_view::npos) return true;
    return false;
}

std::string bracketed(const std::string& s) { return needs_brackets(s) ? "(" + s + ")" : s; }

// A script as Unicode super- or subscripts, when each character has one (spaces dropped).
std::optional<std::string> as_script(std::string_view content, bool super) {
    const auto& table = super ? superscripts : subscripts;
    std::string out;
    for (const auto& cp : code_points(content)) {
        if (cp == " " || cp == "\u2009") continue;
        auto it = table.find(cp);
        if (it == table.end()) return std::nullopt;
        out += it->second;
    }
    if (out.empty() || out == ",") return std::nullopt;
    return out;
}

std::string script(const std::string& content, bool super) {
    if (auto s = as_script(content, super)) return *s;
    return super ? (code_points(content).size() == 1 ? "^" + content : "^(" + content + ")") : "[" + content + "]";
}

class Converter {
public:
    Converter(std::string_view tex, std::vector<std::string>& unknown) : s_(tex), unknown_(unknown) {}

    std::string all() { return sequence(false); }

private:
    std::string_view s_;
    std::size_t i_ = 0;
    std::vector<std::string>& unknown_;
    bool upright_ = false;  // inside \mathrm and the like: '-' stays a hyphen

    bool at_end() const { return i_ >= s_.size(); }
    static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
    void skip_spaces() {
        while (!at_end() && is_space(s_[i_])) ++i_;
    }

    std::string command_name() {  // after the backslash
        std::size_t start = i_;
        if (!at_end() && std::isalpha(static_cast<unsigned char>(s_[i_]))) {
            while (!at_end() && std::isalpha(static_cast<unsigned char>(s_[i_]))) ++i_;
            if (!at_end() && s_[i_] == '*') ++i_;  // \operatorname*
        } else if (!at_end()) {
            ++i_;
        }
        return std::string(s_.substr(start, i_ - start));
    }

    // A group's text, verbatim (\text{...}).
    std::string raw_group() {
        skip_spaces();
        if (at_end() || s_[i_] != '{') return {};
        int depth = 0;
        std::size_t start = ++i_;
        for (; !at_end(); ++i_) {
            if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
                ++i_;
                continue;
            }
            if (s_[i_] == '{') ++depth;
            if (s_[i_] == '}' && depth-- == 0) break;
        }
        std::string text(s_.substr(start, i_ - start));
        if (!at_end()) ++i_;
        return text;
    }

    // One argument: a group, a command, or a character.
    std::string argument() {
        skip_spaces();
        if (at_end()) return {};
        if (s_[i_] == '{') {
            ++i_;
            return sequence(true);
        }
        if (s_[i_] == '\\') {
            ++i_;
            return command(command_name());
        }
        std::size_t n = utf8_length(static_cast<unsigned char>(s_[i_]));
        std::string c(s_.substr(i_, n));
        i_ += n;
        return c == "-" && !upright_ ? "−" : c;
    }

    std::string upright_argument() {
        bool was = upright_;
        upright_ = true;
        std::string a = argument();
        upright_ = was;
        return a;
    }

    std::string environment(const std::string& name) {
        // Cells up to \end{name}: '\t' between columns, '\v' between rows (set by sequence).
        std::string body = sequence(false, name);
        std::vector<std::vector<std::string>> rows(1);
        std::string cell;
        auto trim = [](std::string t) {
            while (!t.empty() && t.back() == ' ') t.pop_back();
            std::size_t k = t.find_first_not_of(' ');
            return k == std::string::npos ? std::string() : t.substr(k);
        };
        for (char c : body) {
            if (c == '\t' || c == '\v') {
                rows.back().push_back(trim(cell));
                cell.clear();
                if (c == '\v') rows.emplace_back();
            } else {
                cell += c;
            }
        }
        rows.back().push_back(trim(cell));
        if (rows.size() > 1 && rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
        bool matrix = name.find("matrix") != std::string::npos;
        std::string out;
        if (matrix) {
            std::string open = name == "bmatrix" ? "[" : name == "vmatrix" ? "|" : name == "matrix" ? "" : "(";
            std::string close = name == "bmatrix" ? "]" : name == "vmatrix" ? "|" : name == "matrix" ? "" : ")";
            out = open;
            for (std::size_t r = 0; r < rows.size(); ++r) {
                if (r) out += "; ";
                for (std::size_t c = 0; c < rows[r].size(); ++c) out += (c ? ", " : "") + rows[r][c];
            }
            return out + close;
        }
        // cases: "value,  condition" a row; aligned and the rest: the cells joined at their '&'.
        bool cases = name == "cases";
        out = cases ? "{" : "";
        for (const auto& row : rows) {
            out += "\n    ";
            for (std::size_t c = 0; c < row.size(); ++c) out += (c == 0 ? "" : cases ? ",  " : " ") + row[c];
        }
        return out + "\n";
    }

    std::string command(const std::string& name) {
        if (name.size() == 1 && !std::isalpha(static_cast<unsigned char>(name[0]))) {
            switch (name[0]) {
                case ',':
                case ':':
                case ';':
                case ' ': return " ";
                case '!': return "";
                case '\\': return "\v";
                case '|': return "‖";
                default: return name;  // \{ \} \_ \& \% \# \$
            }
        }
        if (auto it = symbols().find(name); it != symbols().end()) {
            if (name == "left" || name == "right" || name == "middle") {
                skip_spaces();
                if (!at_end() && s_[i_] == '.') ++i_;  // \left. draws no bracket
            }
            return it->second;
        }
        if (auto it = accents().find(name); it != accents().end()) {
            auto base = code_points(argument());
            std::string out;
            for (std::size_t k = 0; k < base.size(); ++k) {
                out += base[k];
                // An over/underline marks every character; the others the last.
                if (name == "overline" || name == "underline" || k + 1 == base.size()) out += it->second;
            }
            return out;
        }
        if (name == "frac" || name == "tfrac" || name == "dfrac") {
            std::string num = argument(), den = argument();
            return bracketed(num) + "/" + bracketed(den);
        }
        if (name == "binom") {
            std::string n = argument(), k = argument();
            return "C(" + n + ", " + k + ")";
        }
        if (name == "sqrt") {
            std::string degree;
            skip_spaces();
            if (!at_end() && s_[i_] == '[') {
                std::size_t close = s_.find(']', i_);
                degree = std::string(s_.substr(i_ + 1, close - i_ - 1));
                i_ = close == std::string_view::npos ? s_.size() : close + 1;
            }
            std::string root = degree == "3" ? "∛" : degree == "4" ? "∜" : degree.empty() ? "√" : script(degree, true) + "√";
            return root + bracketed(argument());
        }
        if (name == "mathbb") {
            std::string a = argument();
            std::string out;
            for (char c : a) out += blackboard.count(c) ? blackboard.at(c) : std::string(1, c);
            return out;
        }
        if (name == "mathcal" || name == "mathscr") {
            std::string a = argument();
            std::string out;
            for (char c : a) out += calligraphic.count(c) ? calligraphic.at(c) : std::string(1, c);
            return out;
        }
        if (name == "text" || name == "textrm" || name == "textit" || name == "textbf" || name == "texttt" || name == "mbox" ||
            name == "textnormal") {
            // Verbatim, but for escaped characters (\_ in "rope\_theta").
            std::string raw = raw_group(), out;
            for (std::size_t k = 0; k < raw.size(); ++k) {
                if (raw[k] == '\\' && k + 1 < raw.size() && !std::isalpha(static_cast<unsigned char>(raw[k + 1]))) ++k;
                out += raw[k];
            }
            return out;
        }
        if (name == "mathrm" || name == "mathit" || name == "mathbf" || name == "mathsf" || name == "mathtt" ||
            name == "boldsymbol" || name == "operatorname" || name == "operatorname*") {
            return upright_argument();
        }
        if (name == "pmod") return " (mod " + argument() + ")";
        if (name == "not") return argument() + "\u0338";
        if (name == "begin") return environment(raw_group());
        if (name == "end") return {};  // an \end without its \begin
        unknown_.push_back("\\" + name);
        return name;
    }

    // Up to the end, a closing brace (in_group) or \end{env}.
    std::string sequence(bool in_group, const std::string& env = "") {
        std::string out;
        auto space = [&] {
            if (!out.empty() && out.back() != ' ' && out.back() != '\n') out += ' ';
        };
        while (!at_end()) {
            char c = s_[i_];
            if (is_space(c)) {
                skip_spaces();
                space();
                continue;
            }
            if (c == '}') {
                ++i_;
                if (in_group) return out;
                continue;  // an unmatched brace draws nothing
            }
            if (c == '{') {
                ++i_;
                out += sequence(true);
                continue;
            }
            if (c == '^' || c == '_') {
                ++i_;
                while (!out.empty() && out.back() == ' ') out.pop_back();
                out += script(argument(), c == '^');
                continue;
            }
            if (c == '&') {
                ++i_;
                out += '\t';
                continue;
            }
            if (c == '~') {
                ++i_;
                out += ' ';
                continue;
            }
            if (c == '\'') {
                ++i_;
                out += "′";
                continue;
            }
            if (c == '\\') {
                ++i_;
                std::string name = command_name();
                if (name == "end") {
                    std::string closed = raw_group();
                    if (closed == env) return out;
                    continue;
                }
                std::string drawn = command(name);
                if (drawn == " ") space();  // \, \; and "\ " as one space, like the source's
                else out += drawn;
                continue;
            }
            std::size_t n = utf8_length(static_cast<unsigned char>(c));
            std::string cp(s_.substr(i_, n));
            i_ += n;
            out += cp == "-" && !upright_ ? "−" : cp;
        }
        return out;
    }
};

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        // Stray markers of rows outside an environment read as breaks.
        std::replace(line.begin(), line.end(), '\v', ' ');
        std::replace(line.begin(), line.end(), '\t', ' ');
        if (line.find_first_not_of(' ') != std::string::npos) {
            // A line that only continues after a block ("..., \qquad M = ...") starts flush.
            if (!lines.empty() && line.rfind("    ", 0) != 0) line = line.substr(line.find_first_not_of(' '));
            lines.push_back(std::move(line));
        }
        start = end + 1;
    }
    return lines;
}

}  // namespace

MathText math_text(std::string_view tex) {
    MathText m;
    Converter c(tex, m.unknown);
    m.lines = split_lines(c.all());
    // A formula that is all one block (\begin{aligned} ... \end{aligned}) needs no indent.
    bool indented = !m.lines.empty();
    for (const auto& l : m.lines) indented = indented && l.rfind("    ", 0) == 0;
    if (indented)
        for (auto& l : m.lines) l.erase(0, 4);
    return m;
}

MathText prose_text(std::string_view text) {
    MathText m;
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '$') {
            out += '$';
            i += 2;
            continue;
        }
        if (text[i] != '$') {
            out += text[i++];
            continue;
        }
        bool display = i + 1 < text.size() && text[i + 1] == '$';
        std::size_t open = i + (display ? 2 : 1);
        std::size_t close = text.find(display ? "$$" : "$", open);
        if (close == std::string_view::npos) {  // a lone dollar: money, not maths
            out += text[i++];
            continue;
        }
        Converter c(text.substr(open, close - open), m.unknown);
        auto lines = split_lines(c.all());
        for (std::size_t k = 0; k < lines.size(); ++k) {
            std::string line = lines[k];
            if (k) line = line.substr(std::min(line.size(), line.find_first_not_of(' ')));
            out += (k == 0 ? "" : k == 1 ? " " : "; ") + line;
        }
        i = close + (display ? 2 : 1);
    }
    m.lines.push_back(std::move(out));
    return m;
}

}  // namespace kbp::viewer
