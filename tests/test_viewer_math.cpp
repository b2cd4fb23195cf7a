// The explain texts' maths as the inspector shows them (viewer/model/math_text.hpp): Unicode a
// person reads, never raw TeX, for every text in planner/data/explain/*.json.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "viewer/model/inspector.hpp"
#include "viewer/model/math_text.hpp"
#include "viewer_support.hpp"

using namespace kbp;
using namespace kbp::viewer;

namespace {

std::string joined(const MathText& m) {
    std::string out;
    for (const auto& l : m.lines) out += (out.empty() ? "" : "\n") + l;
    return out;
}

// What raw TeX would leave on screen.
std::string tex_left_in(const std::string& text) {
    for (std::string_view mark : {"\\", "$", "^{", "_{", "\t", "\v"})
        if (text.find(mark) != std::string::npos) return std::string(mark);
    return {};
}

}  // namespace

TEST_CASE("viewer maths: TeX becomes Unicode", "[viewer][math]") {
    CHECK(joined(prose_text("a key $k_s \\in \\mathbb{R}^{128}$ per token")) == "a key kₛ ∈ ℝ¹²⁸ per token");
    CHECK(joined(math_text("y_{tn} = \\sigma(x_{tk})\\, W_{nk}")) == "yₜₙ = σ(xₜₖ) Wₙₖ");
    CHECK(joined(math_text("K^{\\top}")) == "Kᵀ");
    CHECK(joined(math_text("\\sum_{k=0}^{K-1} x_k")) == "∑ₖ₌₀ᴷ⁻¹ xₖ");
    CHECK(joined(math_text("\\hat t = \\lceil x \\rceil")) == "t\u0302 = ⌈ x ⌉");
    CHECK(joined(math_text("\\frac{a+b}{2} \\le \\sqrt{d_h}")) == "(a+b)/2 ≤ √dₕ");
    // Without a Unicode script for every character: an index or a power in brackets.
    CHECK(joined(math_text("k_{p,c} = e^{g+q}")) == "k[p,c] = e^(g+q)");
    CHECK(joined(math_text("\\mathrm{bf16}^{V} - 1")) == "bf16ⱽ − 1");
    CHECK(joined(math_text("\\text{per-token scale}")) == "per-token scale");
    // Cases and aligned rows one a line, under their formula.
    auto cases = math_text("M_{ij} = \\begin{cases} 0 & j \\le i \\\\ -\\infty & \\text{otherwise} \\end{cases} \\quad (causal)");
    REQUIRE(cases.lines.size() == 4);
    CHECK(cases.lines[0] == "Mᵢⱼ = {");
    CHECK(cases.lines[1] == "    0,  j ≤ i");
    CHECK(cases.lines[2] == "    −∞,  otherwise");
    CHECK(cases.lines[3] == "(causal)");
    auto aligned = math_text("\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}");
    CHECK(aligned.lines == std::vector<std::string>{"a = b", "c = d"});
    CHECK(joined(math_text("\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}")) == "(a, b; c, d)");
    // In prose, a block's rows on one line.
    CHECK(joined(prose_text("so $f = \\begin{cases} 1 & x > 0 \\\\ 0 & x \\le 0 \\end{cases}$ holds")) == "so f = { 1,  x > 0; 0,  x ≤ 0 holds");
    // A command it does not know is named, so the test below can say which.
    auto odd = math_text("\\frobnicate x");
    CHECK(odd.unknown == std::vector<std::string>{"\\frobnicate"});
}

TEST_CASE("viewer maths: no TeX survives in any explain text", "[viewer][math]") {
    std::size_t texts = 0, with_tex = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() + "/planner/data/explain")) {
        if (entry.path().extension() != ".json") continue;
        auto json = nlohmann::json::parse(test::slurp(entry.path().string()));
        // Every string: `math` and `encode` members are formulas, the others prose with $...$.
        std::function<void(const nlohmann::json&, const std::string&, bool)> walk = [&](const nlohmann::json& j, const std::string& at,
                                                                                          bool formula) {
            if (j.is_object())
                for (const auto& [k, v] : j.items()) walk(v, at + "/" + k, k == "math" || k == "encode");
            else if (j.is_array())
                for (std::size_t i = 0; i < j.size(); ++i) walk(j[i], at + "/" + std::to_string(i), formula);
            else if (j.is_string()) {
                const auto& text = j.get_ref<const std::string&>();
                if (at.find("/$schema") != std::string::npos || at.find("/sources") != std::string::npos) return;
                ++texts;
                with_tex += text.find('\\') != std::string::npos || text.find('$') != std::string::npos;
                auto m = formula ? math_text(text) : prose_text(text);
                INFO(entry.path().filename().string() << at << ": " << text);
                CHECK(m.unknown.empty());
                for (const auto& line : m.lines) {
                    INFO(line);
                    CHECK(tex_left_in(line).empty());
                }
            }
        };
        walk(json, "", false);
    }
    CHECK(texts > 100);
    CHECK(with_tex > 100);
}

TEST_CASE("viewer maths: the inspector shows a family's maths as Unicode", "[viewer][math][inspector]") {
    Document doc(test::seed(), "seed");
    std::size_t shown = 0;
    for (const char* id : {"l3.dsa.q_a", "l3.dsa.q_a_norm", "l3.dsa.select", "l3.moe.experts_gate_up", "head.lm_head"}) {
        auto n = doc.find_node(id);
        if (n < 0) continue;
        auto text = inspector_text(inspect_node(doc, static_cast<std::size_t>(n)));
        INFO(id << "\n" << text);
        CHECK(text.find("\\mathbb") == std::string::npos);
        CHECK(text.find("\\begin") == std::string::npos);
        CHECK(text.find('$') == std::string::npos);
        shown += text.find("math:") != std::string::npos;
    }
    CHECK(shown >= 3);
}
