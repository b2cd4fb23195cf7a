// The colour modes read apart: the categorical fills (kernel families, compute, state roles) and
// the format fills are compared by CIEDE2000 under normal vision and under the protanopia and
// deuteranopia simulations of Machado, Oliveira and Fernandes (IEEE TVCG 15(6), 2009, severity
// 1.0); `bytes` counts a kernel's weights, `bound` tells the kernels a decode step waits on from
// the many that cost little. The colour science is written here again (not taken from
// scripts/palette.py, which made the palette) so that the test checks the table, not itself.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "exporters/palette.hpp"
#include "viewer_support.hpp"

using namespace kbp;
using namespace kbp::viewer;

namespace {

struct Lab {
    double l, a, b;
};
using Matrix = std::array<std::array<double, 3>, 3>;
const std::map<std::string, Matrix> visions{
    {"normal", {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {"protanopia", {{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}}},
    {"deuteranopia", {{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}}},
};

double to_linear(int c) {
    double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

// sRGB "#rrggbb" as seen with `vision`, in CIELAB (D65).
Lab lab_of(std::string_view hex, const Matrix& vision) {
    auto byte = [&](std::size_t i) { return std::stoi(std::string(hex.substr(i, 2)), nullptr, 16); };
    std::array<double, 3> rgb{to_linear(byte(1)), to_linear(byte(3)), to_linear(byte(5))}, seen{};
    for (std::size_t i = 0; i < 3; ++i) seen[i] = std::clamp(vision[i][0] * rgb[0] + vision[i][1] * rgb[1] + vision[i][2] * rgb[2], 0.0, 1.0);
    double x = (0.4124564 * seen[0] + 0.3575761 * seen[1] + 0.1804375 * seen[2]) / 0.95047;
    double y = 0.2126729 * seen[0] + 0.7151522 * seen[1] + 0.0721750 * seen[2];
    double z = (0.0193339 * seen[0] + 0.1191920 * seen[1] + 0.9503041 * seen[2]) / 1.08883;
    auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

// CIEDE2000 (Sharma, Wu, Dalal 2005).
double ciede2000(Lab p, Lab q) {
    constexpr double pi = 3.14159265358979323846;
    auto rad = [](double deg) { return deg * pi / 180; };
    auto deg = [](double r) { return r * 180 / pi; };
    double cbar = (std::hypot(p.a, p.b) + std::hypot(q.a, q.b)) / 2;
    double g = 0.5 * (1 - std::sqrt(std::pow(cbar, 7) / (std::pow(cbar, 7) + std::pow(25.0, 7))));
    double a1 = (1 + g) * p.a, a2 = (1 + g) * q.a;
    double c1 = std::hypot(a1, p.b), c2 = std::hypot(a2, q.b);
    auto hue = [&](double b, double a) { return a == 0 && b == 0 ? 0.0 : std::fmod(deg(std::atan2(b, a)) + 360, 360); };
    double h1 = hue(p.b, a1), h2 = hue(q.b, a2);
    double dh = 0;
    if (c1 * c2 != 0) {
        dh = h2 - h1;
        if (dh > 180) dh -= 360;
        else if (dh < -180) dh += 360;
    }
    double d_l = q.l - p.l, d_c = c2 - c1, d_h = 2 * std::sqrt(c1 * c2) * std::sin(rad(dh / 2));
    double lbar = (p.l + q.l) / 2, cbarp = (c1 + c2) / 2;
    double hbar = c1 * c2 == 0 ? h1 + h2 : std::abs(h1 - h2) <= 180 ? (h1 + h2) / 2 : (h1 + h2 + (h1 + h2 < 360 ? 360 : -360)) / 2;
    double t = 1 - 0.17 * std::cos(rad(hbar - 30)) + 0.24 * std::cos(rad(2 * hbar)) + 0.32 * std::cos(rad(3 * hbar + 6)) -
               0.20 * std::cos(rad(4 * hbar - 63));
    double dtheta = 30 * std::exp(-std::pow((hbar - 275) / 25, 2));
    double rc = 2 * std::sqrt(std::pow(cbarp, 7) / (std::pow(cbarp, 7) + std::pow(25.0, 7)));
    double sl = 1 + 0.015 * std::pow(lbar - 50, 2) / std::sqrt(20 + std::pow(lbar - 50, 2));
    double sc = 1 + 0.045 * cbarp, sh = 1 + 0.015 * cbarp * t;
    double rt = -std::sin(rad(2 * dtheta)) * rc;
    return std::sqrt(std::pow(d_l / sl, 2) + std::pow(d_c / sc, 2) + std::pow(d_h / sh, 2) + rt * (d_c / sc) * (d_h / sh));
}

// The smallest CIEDE2000 difference of two fills over normal vision, protanopia and deuteranopia.
double apart(std::string_view x, std::string_view y) {
    double least = 1e9;
    for (const auto& [name, m] : visions) least = std::min(least, ciede2000(lab_of(x, m), lab_of(y, m)));
    return least;
}

}  // namespace

TEST_CASE("viewer colours: CIEDE2000 of the published pairs", "[viewer][colour]") {
    // Sharma, Wu, Dalal (2005), table 1, pairs 1, 7 and 17.
    CHECK(ciede2000({50, 2.6772, -79.7751}, {50, 0, -82.7485}) == Approx(2.0425).margin(1e-4));
    CHECK(ciede2000({50, 0, 0}, {50, -1, 2}) == Approx(2.3669).margin(1e-4));
    CHECK(ciede2000({50, 2.5, 0}, {73, 25, -18}) == Approx(27.1492).margin(1e-4));
    // Deuteranopia folds red onto green: a pair far apart in normal vision comes close.
    CHECK(ciede2000(lab_of("#d62728", visions.at("normal")), lab_of("#2ca02c", visions.at("normal"))) > 40);
    CHECK(apart("#d62728", "#2ca02c") < 15);
}

TEST_CASE("viewer colours: every two categorical fills stay apart under red-green colour blindness", "[viewer][colour]") {
    auto fills = exporters::category_fills();
    REQUIRE(fills.size() >= 24);  // the seed has 21 kernel families
    double least = 1e9;
    std::string pair;
    for (std::size_t i = 0; i < fills.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            double d = apart(fills[i], fills[j]);
            if (d < least) least = d, pair = std::string(fills[i]) + " " + std::string(fills[j]);
        }
        // Nor close to "none" (#f0f0f0) or the white canvas.
        CHECK(apart(fills[i], "#f0f0f0") >= 5);
        CHECK(apart(fills[i], "#ffffff") >= 5);
    }
    INFO(pair);
    CHECK(least >= 5);
    // The first twelve (most plans' families) further apart.
    least = 1e9;
    for (std::size_t i = 0; i < 12; ++i)
        for (std::size_t j = 0; j < i; ++j) least = std::min(least, apart(fills[i], fills[j]));
    CHECK(least >= 7.5);

    // The seed's families all take a fill of their own.
    Document doc(test::seed(), "seed");
    Colouring family(doc, ColorMode::family);
    std::set<Rgba> distinct;
    for (const auto& e : family.legend()) distinct.insert(e.fill);
    CHECK(family.legend().size() >= 20);
    CHECK(distinct.size() == family.legend().size());
}

TEST_CASE("viewer colours: f32 and the int8 formats read apart, also under colour blindness", "[viewer][colour]") {
    auto f32 = exporters::format_color(schema::Format::parse("f32")).fill;
    for (const char* int8 : {"int8/token", "int8/channel", "int8/static", "int8/b32", "i8"}) {
        INFO(int8);
        CHECK(apart(f32, exporters::format_color(schema::Format::parse(int8)).fill) >= 10);
    }
}

TEST_CASE("viewer colours: bytes counts all a kernel moves, weights included", "[viewer][colour]") {
    Document doc(test::seed(), "seed");
    doc.estimate_cost();
    REQUIRE(doc.cost());
    Colouring bytes(doc, ColorMode::bytes);
    CHECK(bytes.note().empty());
    auto fill_of = [&](std::string_view key) {
        for (const auto& e : bytes.legend())
            if (e.key == key) return e.fill;
        FAIL("no legend entry " << key);
        return Rgba{};
    };
    // The step's heaviest kernel (the routed experts' GEMV, its weights tens of MiB) in the top
    // class, a norm in the lowest: before, both were coloured by their activations alone.
    const auto& groups = doc.cost()->groups;
    std::size_t heaviest = 0;
    for (std::size_t g = 0; g < groups.size(); ++g)
        if (groups[g].weight_bytes > groups[heaviest].weight_bytes) heaviest = g;
    REQUIRE(groups[heaviest].weight_bytes >= 64.0 * 1024 * 1024);
    std::size_t heavy_op = 0, norm = static_cast<std::size_t>(doc.find_node("l3.dsa.q_a_norm"));
    while (doc.plan().nodes[heavy_op].group != static_cast<std::int64_t>(heaviest)) ++heavy_op;
    INFO(doc.plan().nodes[heavy_op].id);
    CHECK(*kernel_bytes(doc, heavy_op) >= groups[heaviest].weight_bytes);
    CHECK(bytes.fill(heavy_op) == fill_of(">= 64 MiB"));
    CHECK(*kernel_bytes(doc, norm) < 64 * 1024);
    CHECK(bytes.fill(norm) == fill_of("< 64 KiB"));
    std::int64_t total = 0;
    for (const auto& e : bytes.legend()) total += e.ops;
    CHECK(total == static_cast<std::int64_t>(test::seed_nodes));
    CHECK(bytes.legend().size() >= 4);

    // Without a roofline the activations are all it knows, and it says so.
    schema::Blueprint untargeted = test::seed();
    untargeted.provenance->planner_header = schema::JsonValue(nullptr);
    Document no_target(std::move(untargeted), "no target");
    Colouring activations(no_target, ColorMode::bytes);
    CHECK(activations.note().find("activations only") != std::string::npos);
}

TEST_CASE("viewer colours: bound shades a decode step by the share of time its kernels take", "[viewer][colour]") {
    Document doc(test::seed(), "seed");
    doc.estimate_cost();
    REQUIRE(doc.cost());
    Colouring bound(doc, ColorMode::bound);
    CHECK(bound.note().empty());
    // At decode nearly every kernel is memory-bound: the hue alone would paint the plan one blue.
    // Shaded by time, at least three fills each hold 5 % of the ops.
    std::map<Rgba, std::int64_t> ops;
    for (std::size_t n = 0; n < doc.plan().nodes.size(); ++n) ++ops[bound.fill(n)];
    int visible = 0;
    for (const auto& [fill, count] : ops) visible += count * 20 >= static_cast<std::int64_t>(doc.plan().nodes.size());
    CHECK(visible >= 3);
    // The darkest tier's kernels take at least half the step's time, the palest at most a fifth.
    double total = 0;
    std::map<std::string, double> time_by_tier;
    const auto& groups = doc.cost()->groups;
    std::set<std::int64_t> counted;
    for (std::size_t n = 0; n < doc.plan().nodes.size(); ++n) {
        auto g = doc.plan().nodes[n].group;
        if (!counted.insert(g).second) continue;
        for (const auto& e : bound.legend())
            if (e.fill == bound.fill(n)) time_by_tier[e.key.substr(e.key.find("·"))] += groups[static_cast<std::size_t>(g)].time_us;
    }
    for (const auto& g : groups) total += g.time_us;
    CHECK(time_by_tier["· top 50 % of time"] >= 0.5 * total);
    CHECK(time_by_tier["· last 20 %"] <= 0.2 * total);
    std::int64_t listed = 0;
    for (const auto& e : bound.legend()) listed += e.ops;
    CHECK(listed == static_cast<std::int64_t>(doc.plan().nodes.size()));
}
