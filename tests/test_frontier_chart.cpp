// kbp tune's frontier drawn by kbp render (exporters/frontier_chart.hpp): a real frontier's chart
// is well-formed SVG with a mark for every Pareto point, the base, the chosen point and the budget
// labelled, the same bytes every time, and a PNG of its size; the step line turns the way the
// budget reads; the frontier's JSON passes its published schema (schema/kbp-frontier-v1.schema.json)
// under kbp's own checker; a bad file is refused with its place (the same bad files python's
// jsonschema rejects, tests/CMakeLists.txt), and a file of another kind is said to be one.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "exporters/chart_svg.hpp"
#include "exporters/frontier_chart.hpp"
#include "exporters/text.hpp"
#include "planner/data_schema.hpp"
#include "planner/plan.hpp"
#include "schema/file_kind.hpp"
#include "support.hpp"
#include "tune/tune.hpp"

namespace {

using namespace kbp;
using exporters::Frontier;
using exporters::FrontierMeasure;
using exporters::FrontierPoint;

const std::string data = test::source_dir() + "/tests/data/frontier/";

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// What is wrong with `svg` as XML, or "": every tag closed in order, attribute values quoted, no
// '<' in text, every '&' an entity.
std::string xml_problem(const std::string& svg) {
    static const std::regex entity("^&(amp|lt|gt|quot|apos|#[0-9]+);");
    std::vector<std::string> open;
    std::size_t i = 0;
    while (i < svg.size()) {
        if (svg[i] == '&') {
            if (!std::regex_search(svg.substr(i, 8), entity)) return "a bare '&' at byte " + std::to_string(i);
            ++i;
            continue;
        }
        if (svg[i] != '<') {
            ++i;
            continue;
        }
        const auto end = svg.find('>', i);
        if (end == std::string::npos) return "a tag left open at byte " + std::to_string(i);
        const std::string tag = svg.substr(i + 1, end - i - 1);
        if (count(tag, "\"") % 2 != 0) return "an unbalanced quote in <" + tag + ">";
        if (tag.find('<') != std::string::npos) return "a '<' inside <" + tag + ">";
        if (tag.front() == '/') {
            if (open.empty() || open.back() != tag.substr(1)) return "</" + tag.substr(1) + "> closes " + (open.empty() ? "nothing" : open.back());
            open.pop_back();
        } else if (tag.back() != '/' && tag.front() != '?') {
            open.push_back(tag.substr(0, tag.find_first_of(" \n")));
        }
        i = end + 1;
    }
    return open.empty() ? "" : "<" + open.back() + "> never closed";
}

// The number of circles inside <g class="points">.
std::size_t point_marks(const std::string& svg) {
    const auto from = svg.find("<g class=\"points\"");
    if (from == std::string::npos) return 0;
    const auto to = svg.find("</g>", from);
    return count(svg.substr(from, to - from), "<circle");
}

}  // namespace

TEST_CASE("kbp render draws a real kbp tune frontier: every point, the base, the choice and the budget", "[frontier][cli]") {
    test::TempDir dir;
    const std::string frontier = dir.file("frontier.json"), svg_path = dir.file("chart.svg");
    auto tuned = test::kbp_run(dir, "tune " + test::llama_arg() +
                                        " --target h100 --candidates fp8-dynamic,w4a16-int4 --budget sensitivity=6 -o " +
                                        test::quote(dir.file("plan.json")) + " --frontier " + test::quote(frontier));
    INFO(test::show(tuned));
    REQUIRE(tuned.exit == 0);
    auto render = test::kbp_run(dir, "render " + test::quote(frontier) + " -o " + test::quote(svg_path));
    INFO(test::show(render));
    REQUIRE(render.exit == 0);
    CHECK(render.err.empty());
    const std::string svg = test::slurp(svg_path);
    const auto doc = nlohmann::json::parse(test::slurp(frontier));

    CHECK(xml_problem(svg).empty());
    CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"480\"", 0) == 0);
    REQUIRE(doc["points"].size() > 100);
    CHECK(point_marks(svg) == doc["points"].size());
    CHECK(count(svg, "<polyline") == 1);
    // The heading names the axes, the subtitle the budget and the objective; the axes their units.
    CHECK_THAT(svg, Catch::Contains(">Pareto frontier: tokens/s by sensitivity</text>"));
    CHECK_THAT(svg, Catch::Contains(">kbp tune: budget sensitivity=6, objective time; " +
                                    exporters::grouped(static_cast<std::int64_t>(doc["points"].size())) + " Pareto points</text>"));
    CHECK_THAT(svg, Catch::Contains(">sensitivity (summed score, 0 = lossless)</text>") && Catch::Contains(">tokens/s</text>"));
    CHECK_THAT(svg, Catch::Contains(">budget: sensitivity ≤ 6</text>") && Catch::Contains("stroke-dasharray"));
    // The base, the chosen point and the bits-only allocation: each named beside its mark (marks
    // in one place share a name), their figures in the key.
    REQUIRE(doc.contains("bits_only"));
    std::multiset<std::string> names;
    static const std::regex tag("class=\"tag\">([^<]*)</text>");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
        const std::string text = (*it)[1];
        for (std::size_t from = 0; from <= text.size();) {
            const auto comma = text.find(", ", from);
            names.insert(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
            from = comma == std::string::npos ? text.size() + 1 : comma + 2;
        }
    }
    CHECK(names == std::multiset<std::string>{"base", "bits-only", "chosen"});
    auto figures = [&](const char* point) {
        char s[96];
        std::snprintf(s, sizeof s, "%.1f tokens/s, sensitivity %.4g", doc[point]["tokens_s"].get<double>(), doc[point]["sensitivity"].get<double>());
        return std::string(s);
    };
    CHECK_THAT(svg, Catch::Contains(">base (uniform): " + figures("base") + "</text>") && Catch::Contains(">chosen: " + figures("chosen") + "</text>"));
    CHECK_THAT(svg, Catch::Contains(">bits-only (the same effective bits by score per bit): " + figures("bits_only") + "</text>"));
    CHECK(count(svg, "<rect x=") >= 2 + 2);  // the ground, the shade, the key's box; the bits-only square (and in the key)
    CHECK(count(svg, "fill=\"#8e24aa\"") == 2);
    // Readable text: nothing under 11 px.
    static const std::regex size("font-size=\"([0-9.]+)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), size); it != std::sregex_iterator(); ++it) CHECK(std::stod((*it)[1]) >= 11);

    // The same file gives the same bytes, in the CLI and in the library.
    auto again = test::kbp_run(dir, "render " + test::quote(frontier) + " -o " + test::quote(dir.file("again.svg")));
    REQUIRE(again.exit == 0);
    CHECK(test::slurp(dir.file("again.svg")) == svg);
    auto read = exporters::read_frontier(test::slurp(frontier), frontier);
    REQUIRE(read);
    CHECK(exporters::frontier_chart_svg(*read) == svg);
    // --title replaces the heading; the subtitle still names the budget.
    auto titled = exporters::frontier_chart_svg(*read, "Llama & friends");
    CHECK_THAT(titled, Catch::Contains(">Llama &amp; friends</text>") && Catch::Contains("budget sensitivity=6"));

    // PNG: the same chart through Graphviz's cairo renderer, 800 x 480 pixels.
    auto png = test::kbp_run(dir, "render " + test::quote(frontier) + " -o " + test::quote(dir.file("chart.png")));
    INFO(test::show(png));
    REQUIRE(png.exit == 0);
    const std::string image = test::slurp(dir.file("chart.png"));
    REQUIRE(image.size() > 24);
    CHECK(image.substr(0, 8) == "\x89PNG\r\n\x1a\n");
    auto be32 = [&](std::size_t at) {
        return (static_cast<unsigned>(static_cast<unsigned char>(image[at])) << 24) | (static_cast<unsigned>(static_cast<unsigned char>(image[at + 1])) << 16) |
               (static_cast<unsigned>(static_cast<unsigned char>(image[at + 2])) << 8) | static_cast<unsigned>(static_cast<unsigned char>(image[at + 3]));
    };
    CHECK(be32(16) == 800);
    CHECK(be32(20) == 480);
}

TEST_CASE("the frontier's step line turns the way its budget reads", "[frontier]") {
    auto point = [](double tokens_s, double sensitivity) {
        FrontierPoint p;
        p.tokens_s = tokens_s;
        p.time_us = 1e6 / tokens_s;
        p.sensitivity = sensitivity;
        p.memory_bytes = 1e9;
        p.effective_bits = 8;
        return p;
    };
    Frontier f;
    f.budget = "sensitivity=2";
    f.budget_kind = FrontierMeasure::sensitivity;
    f.limit = 2;
    f.objective = FrontierMeasure::time;
    f.points = {point(100, 0), point(200, 2), point(300, 4)};  // x: sensitivity 0, 2, 4; y: tokens/s
    f.base = f.points[0];
    f.chosen = f.planned = f.points[1];
    // Scales: x 0..5 over 684 px from 84 (136.8 px a unit), y 0..400 over 352 px up from 416.
    auto polyline = [](const std::string& svg) {
        auto from = svg.find("<polyline points=\"") + 18;
        return svg.substr(from, svg.find('"', from) - from);
    };
    const std::string capped = exporters::frontier_chart_svg(f);
    CHECK(xml_problem(capped).empty());
    CHECK(point_marks(capped) == 3);
    // At most x: the best within x is the last point left of it, level until the next point.
    CHECK(polyline(capped) == "84.0,328.0 357.6,328.0 357.6,240.0 631.2,240.0 631.2,152.0");
    CHECK_THAT(capped, Catch::Contains("<line x1=\"357.6\" y1=\"64.0\" x2=\"357.6\" y2=\"416.0\" stroke=\"#c62828\""));
    CHECK_THAT(capped, Catch::Contains(">budget: sensitivity ≤ 2</text>"));
    auto key_lines = [](const std::string& svg) {
        const auto from = svg.find("<g class=\"key\">");
        return count(svg.substr(from, svg.find("</g>", from) - from), "<text");
    };
    CHECK(key_lines(capped) == 2);  // base and choice: no bits-only allocation in this file
    f.bits_only = point(150, 1);
    CHECK(key_lines(exporters::frontier_chart_svg(f)) == 3);
    f.bits_only.reset();

    // At least x tokens/s (objective sensitivity): the best is the first point right of x, so the
    // line steps first. x: tokens/s 100, 200, 300 (0..400); y: sensitivity 0..5.
    f.budget = "tokens_s=150";
    f.budget_kind = FrontierMeasure::tokens_s;
    f.limit = 150;
    f.objective = FrontierMeasure::sensitivity;
    const std::string floored = exporters::frontier_chart_svg(f);
    CHECK(polyline(floored) == "255.0,416.0 255.0,275.2 426.0,275.2 426.0,134.4 597.0,134.4");
    CHECK_THAT(floored, Catch::Contains(">budget: tokens/s ≥ 150</text>") && Catch::Contains(">Pareto frontier: sensitivity by tokens/s</text>"));
    // Shaded below the floor: from the axis to the budget's line.
    CHECK_THAT(floored, Catch::Contains("<rect x=\"84.0\" y=\"64.0\" width=\"256.5\" height=\"352.0\""));

    // A memory budget far past the points: the points keep the width, the label says where it is.
    f.budget = "memory=4000GB";
    f.budget_kind = FrontierMeasure::memory;
    f.limit = 4e12;
    f.objective = FrontierMeasure::time;
    f.chosen = f.planned = f.base;
    const std::string loose = exporters::frontier_chart_svg(f);
    CHECK_THAT(loose, Catch::Contains(">budget: memory ≤ 4000GB (past the right edge)</text>"));
    CHECK(count(loose, "stroke-dasharray") == 0);
    // Base and choice in one place: one name for both.
    CHECK_THAT(loose, Catch::Contains(">chosen, base</text>"));
}

TEST_CASE("kbp tune's frontier JSON passes its published schema, for every budget kind", "[frontier][schema]") {
    const auto schema = nlohmann::ordered_json::parse(test::slurp(test::source_dir() + "/schema/kbp-frontier-v1.schema.json"));
    CHECK_FALSE(planner::unsupported_in_schema(schema));  // within the subset kbp's checker reads
    auto planner = planner::Planner::load(std::nullopt);
    REQUIRE(planner);
    for (const char* budget : {"sensitivity=0.1", "effective_bits=14", "memory=0.26GB", "tokens_s=1000"}) {
        INFO(budget);
        tune::TuneRequest request;
        request.base.config_path = test::source_dir() + "/tests/configs/four-layer-llama.json";
        request.base.target = "h100";
        request.candidates = {"fp8-dynamic", "w4a16-int4"};
        request.sensitivity = data + "down_scores.json";
        request.context = 2048;
        request.budget = *tune::parse_budget(budget);
        if (request.budget.kind == tune::Measure::tokens_s) request.objective = tune::Measure::memory;
        auto r = tune::tune(*planner, request);
        INFO((r ? std::string() : r.error().text()));
        REQUIRE(r);
        const std::string json = tune::frontier_json(*r);
        auto problem = planner::check_schema(nlohmann::ordered_json::parse(json), schema);
        INFO((problem ? problem->pointer + ": " + problem->message : std::string()));
        CHECK_FALSE(problem);
        CHECK(schema::file_kind(json) == schema::FileKind::frontier);
        CHECK(exporters::chart_kind(json.substr(0, exporters::chart_head_bytes)) == exporters::ChartKind::frontier);
        auto read = exporters::read_frontier(json, "f.json");
        INFO((read ? std::string() : read.error().text()));
        REQUIRE(read);
        CHECK(read->points.size() == r->frontier.size());
        CHECK(read->chosen.tokens_s == Approx(r->estimated.tokens_s).epsilon(1e-6));
        CHECK(read->limit == Approx(r->budget.value));
        CHECK(xml_problem(exporters::frontier_chart_svg(*read)).empty());
    }
    // The bundled valid file and every bad one: as kbp's checker sees them too.
    CHECK_FALSE(planner::check_schema(nlohmann::ordered_json::parse(test::slurp(data + "valid.json")), schema));
    CHECK(planner::check_schema(nlohmann::ordered_json::parse(test::slurp(data + "bad/point_negative.json")), schema));
}

TEST_CASE("read_frontier refuses a bad file with its place", "[frontier][errors]") {
    auto refusal = [](const std::string& path) {
        auto r = exporters::read_frontier(test::slurp(path), path);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::invalid_input);
        return r.error().text();
    };
    REQUIRE(exporters::read_frontier(test::slurp(data + "valid.json"), "valid.json"));
    const std::string b = data + "bad/";
    const std::string budget = ": /budget: expected \"KIND=VALUE\": memory=SIZE (40GB), effective_bits=N, sensitivity=X or tokens_s=N, found ";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"schema_v2.json", ": /schema: expected \"kbp-frontier/v1\", found \"kbp-frontier/v2\""},
        {"schema_missing.json", ": /schema: missing (\"kbp-frontier/v1\")"},
        {"unknown_member.json", ": /pionts: unknown member 'pionts' (did you mean 'points'?)"},
        {"budget_kind.json", budget + "\"bits=4\""},
        {"budget_value.json", budget + "\"memory=forty\""},
        {"budget_number.json", budget + "0.1"},
        {"objective_bits.json", ": /objective: expected \"time\", \"memory\" or \"sensitivity\", found \"effective_bits\""},
        {"points_empty.json", ": /points: expected a non-empty array of the frontier's points"},
        {"points_missing.json", ": /points: missing"},
        {"point_negative.json", ": /points/2/tokens_s: expected a number, at least 0, found -1"},
        {"point_string.json", ": /chosen/time_us: expected a number, at least 0, found \"fast\""},
        {"point_member.json", ": /points/0/tokens_per_s: unknown member 'tokens_per_s' (did you mean 'tokens_s'?)"},
        {"point_missing_member.json", ": /base/sensitivity: missing (a number, at least 0)"},
        {"point_array.json",
         ": /planned: expected an object {\"time_us\", \"tokens_s\", \"memory_bytes\", \"effective_bits\", \"sensitivity\"}"},
        {"bits_only_null.json",
         ": /bits_only: expected an object {\"time_us\", \"tokens_s\", \"memory_bytes\", \"effective_bits\", \"sensitivity\"}"},
    };
    for (const auto& [file, expected] : cases) {
        INFO(file);
        CHECK(refusal(b + file) == b + file + expected);
    }

    // Broken JSON at its line and column; a file of another kind said to be one.
    test::TempDir dir;
    const std::string broken = dir.file("broken.json");
    test::spit(broken, "{\"schema\": \"kbp-frontier/v1\",\n \"budget\": \"sensitivity=1\",}\n");
    CHECK(refusal(broken) == broken + ":2:28: syntax error while parsing object key - unexpected '}'; expected string literal");
    CHECK(refusal(test::seed_path()) == test::seed_path() + ": /: this is a kbp plan (kbp-graph/v2), not a Pareto frontier (kbp-frontier/v1, from kbp tune --frontier)");
    const std::string scores = data + "down_scores.json";
    CHECK(refusal(scores) == scores + ": /: this is a sensitivity file (kbp-sensitivity/v1), not a Pareto frontier (kbp-frontier/v1, from kbp tune --frontier)");

    // Through kbp render: exit 2, the same line, nothing written; a frontier where a plan belongs
    // is said to be one.
    auto render = test::kbp_run(dir, "render " + test::quote(broken) + " -o " + test::quote(dir.file("out.svg")));
    CHECK(render.exit == 2);
    CHECK(render.err == "kbp render: error: " + broken + ":2:28: syntax error while parsing object key - unexpected '}'; expected string literal\n");
    CHECK_FALSE(std::ifstream(dir.file("out.svg")).good());
    auto wrong = test::kbp_run(dir, "render " + test::quote(b + "point_negative.json") + " -o " + test::quote(dir.file("out.png")));
    CHECK(wrong.exit == 2);
    CHECK(wrong.err == "kbp render: error: " + b + "point_negative.json: /points/2/tokens_s: expected a number, at least 0, found -1\n");
    CHECK_FALSE(std::ifstream(dir.file("out.png")).good());
    auto sensitivity = test::kbp_run(dir, "render " + test::quote(scores) + " -o " + test::quote(dir.file("out.svg")));
    CHECK(sensitivity.exit == 2);
    CHECK_THAT(sensitivity.err, Catch::Contains("this is a sensitivity file (kbp-sensitivity/v1), not a kbp plan"));
    auto check = test::kbp_run(dir, "check " + test::quote(data + "valid.json"));
    CHECK(check.exit == 2);
    CHECK_THAT(check.err, Catch::Contains("this is a Pareto frontier (kbp-frontier/v1, from kbp tune --frontier), not a kbp plan (kbp-graph/v2): kbp render draws it as a chart"));
}
