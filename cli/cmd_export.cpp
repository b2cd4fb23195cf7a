// kbp export / kbp render: pictures and graph files of a plan. Parses options, loads and
// validates the plan, and hands it to kbp_exporters (view -> DOT / JSON / Model Explorer / image).
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "exporters/dot.hpp"
#include "exporters/json_views.hpp"
#include "exporters/model_explorer.hpp"
#include "exporters/chart_svg.hpp"
#include "exporters/frontier_chart.hpp"
#include "exporters/render.hpp"
#include "exporters/sweep_chart.hpp"
#include "exporters/stage.hpp"
#include "exporters/view.hpp"
#include "planner/catalog.hpp"
#include "planner/export_quant.hpp"
#include "schema/file_io.hpp"
#include "schema/names.hpp"
#include "schema/sha256.hpp"

namespace kbp::cli {
namespace {

namespace ex = kbp::exporters;

const std::vector<OptionSpec> view_specs{
    {"--output", "-o", true}, {"--view", "", true},  {"--layers", "", true}, {"--block", "", true},
    {"--color", "", true},    {"--title", "", true}, {"--no-legend", ""},
};

// "samples/glm-5.3-flash/decode.plan.json" -> "glm-5.3-flash/decode.plan.json".
std::string default_title(const std::string& file) {
    if (file == "-") return "";
    auto last = file.find_last_of('/');
    if (last == std::string::npos || last == 0) return file;
    auto before = file.find_last_of('/', last - 1);
    return before == std::string::npos ? file : file.substr(before + 1);
}

// The spellings of an option's values, from the exporters' own names: kinds 0..last.
template <class E> std::vector<std::string> names_of(E last, std::string_view (*name)(E)) {
    std::vector<std::string> out;
    for (int i = 0; i <= static_cast<int>(last); ++i) out.emplace_back(name(static_cast<E>(i)));
    return out;
}
template <class E, std::size_t N> std::vector<std::string> names_of(const E (&all)[N], std::string_view (*name)(E)) {
    std::vector<std::string> out;
    for (E e : all) out.emplace_back(name(e));
    return out;
}

struct Parsed {
    ex::ViewOptions view;
    ex::DotOptions dot;
};

// The options every export shares. Reports a usage error and returns nullopt when one is wrong.
std::optional<Parsed> parse_view_options(const char* command, const Args& args, const schema::Blueprint& b,
                                         const std::string& file, int& code) {
    Parsed p;
    if (auto v = args.value("--view")) {
        auto kind = ex::parse_view_kind(*v);
        if (!kind) {
            code = usage_error(command, "unknown view '" + *v + "'" +
                                            schema::name_hint(*v, names_of(ex::ViewKind::collapsed, ex::view_kind_name), "views"));
            return std::nullopt;
        }
        p.view.kind = *kind;
    }
    if (auto c = args.value("--color")) {
        auto by = ex::parse_color_by(*c);
        if (!by) {
            code = usage_error(command, "unknown colour mode '" + *c + "'" +
                                            schema::name_hint(*c, names_of(ex::all_color_by, ex::color_by_name), "colour modes"));
            return std::nullopt;
        }
        p.dot.color = *by;
    }
    if (auto l = args.value("--layers")) {
        auto layers = ex::parse_layer_list(*l, static_cast<std::int64_t>(b.layers.size()));
        if (!layers) {
            code = usage_error(command, layers.error().message);
            return std::nullopt;
        }
        p.view.layers = std::move(*layers);
    }
    p.view.block = args.value("--block").value_or("");
    p.dot.title = args.value("--title").value_or(default_title(file));
    p.dot.legend = !args.flag("--no-legend");
    return p;
}

// Loads FILE, requires it valid, and gives it flat lists. nullopt + exit code on failure.
std::optional<schema::Blueprint> load_plan(const std::string& file, int& code) {
    auto b = load_valid(file, code);
    if (!b) return std::nullopt;
    if (auto s = ex::ensure_flat(*b); !s) {
        code = report(s.error().with_context(file));
        return std::nullopt;
    }
    return b;
}

int view_error(const char* command, const Error& e) {
    if (e.code == ErrorCode::usage) return usage_error(command, e.message);
    return report(e);
}

// kbp export stage PLAN --out DIR: the plan as a compile stage's input (exporters/stage.hpp).
int export_stage(const Args& args) {
    int code = 0;
    for (const char* view_only : {"--output", "--view", "--layers", "--block", "--color", "--title", "--no-legend"})
        if (args.value(view_only) || args.flag(view_only))
            return usage_error("export", std::string("export stage writes a folder (--out DIR) and takes no ") + view_only);
    auto out = args.value("--out");
    if (!out) return usage_error("export", "export stage needs --out DIR (the stage goes to DIR/<stage>/<tag>/)");
    const std::string& file = args.positional[1];
    auto b = load_plan(file, code);
    if (!b) return code;
    auto bytes = read_file(file);
    if (!bytes) return report(bytes.error());
    auto r = ex::export_stage(*b, {file, schema::sha256_hex(*bytes)}, *out, args.flag("--force"));
    if (!r) return report(r.error());
    const char* what = r->action == ex::StageAction::unchanged ? "unchanged (nothing rewritten)"
                       : r->action == ex::StageAction::built   ? "built"
                                                               : "rebuilt";
    std::cerr << "kbp export stage: " << r->dir << ": " << what << (r->reason.empty() ? "" : ": " + r->reason) << "\n";
    return 0;
}

// kbp export quant PLAN --to FORM [-o FILE] [--catalog DIR]: the plan's precision as a
// quantizer's or engine's config (planner/export_quant.hpp), written whole or not at all.
int export_quant(const Args& args) {
    for (const char* view_only : {"--view", "--layers", "--block", "--color", "--title", "--no-legend", "--out", "--force"})
        if (args.value(view_only) || args.flag(view_only))
            return usage_error("export", std::string("export quant writes a quantization config (--to FORM -o FILE) and takes no ") + view_only);
    const auto forms = planner::quant_form_names();
    auto to = args.value("--to");
    if (!to) return usage_error("export", "export quant needs --to " + schema::quoted_names(forms));
    auto form = planner::parse_quant_form(*to);
    if (!form) return usage_error("export", "unknown quantization form '" + *to + "'" + schema::name_hint(*to, forms, "forms"));
    int code = 0;
    const std::string& file = args.positional[1];
    auto b = load_plan(file, code);
    if (!b) return code;
    auto catalog = planner::Catalog::load(args.value("--catalog"));
    if (!catalog) return report(catalog.error());
    auto out = planner::export_quant(*b, *form, *catalog, file);
    if (!out) return report(out.error());
    if (auto s = write_file_atomic(args.value("--output").value_or("-"), out->text); !s) return report(s.error());
    std::cerr << "kbp export quant: " << out->summary << "\n";
    return 0;
}

}  // namespace

int run_export(int argc, char** argv) {
    int code = 0;
    auto specs = view_specs;
    specs.push_back({"--out", "", true});
    specs.push_back({"--force", ""});
    specs.push_back({"--to", "", true});
    specs.push_back({"--catalog", "", true});
    auto args = parse_command("export", argc, argv, specs, 2, 2, code);
    if (!args) return code;
    const std::string& what = args->positional[0];
    if (what == "quant") return export_quant(*args);
    if (args->value("--to") || args->value("--catalog"))
        return usage_error("export", "--to and --catalog belong to export quant; export " + what + " takes neither");
    if (what == "stage") return export_stage(*args);
    if (args->value("--out") || args->flag("--force"))
        return usage_error("export", "--out and --force belong to export stage; export " + what + " writes -o OUT");
    if (what != "dot" && what != "json" && what != "model-explorer")
        return usage_error("export", "unknown export format '" + what + "'" +
                                         schema::name_hint(what, std::vector<std::string>{"dot", "json", "model-explorer", "stage", "quant"}, "formats"));
    if (what == "model-explorer" && args->value("--view").value_or("flat") != "flat")
        return usage_error("export", "model-explorer writes the flat view (namespaces fold layers, blocks and groups)");
    const std::string& file = args->positional[1];
    auto b = load_plan(file, code);
    if (!b) return code;
    auto p = parse_view_options("export", *args, *b, file, code);
    if (!p) return code;
    auto view = ex::build_view(*b, p->view);
    if (!view) return view_error("export", view.error());

    Result<std::string> text = std::string();
    if (what == "dot") text = ex::export_dot(*view, p->dot);
    else if (what == "json") text = ex::export_view_json(*view);
    else text = ex::export_model_explorer(*view, {.color = p->dot.color, .label = p->dot.title.empty() ? "kbp" : p->dot.title});
    if (!text) return view_error("export", text.error());
    if (auto s = write_file_atomic(args->value("--output").value_or("-"), *text); !s) return report(s.error());
    return 0;
}

// A cost sweep (kbp stats --cost --sweep ... --json) and a tune frontier (kbp tune --frontier)
// are drawn as charts, not laid out: the exit code, or -1 when `file` is neither.
int render_chart(const Args& args, const std::string& file, ex::ImageFormat format) {
    // Only the head is read to tell: a plan is then read once, by load_plan.
    const ex::ChartKind kind = ex::chart_kind(read_file_head(file, ex::chart_head_bytes));
    if (kind == ex::ChartKind::none) return -1;
    auto text = read_file(file);
    if (!text) return report(text.error());
    const std::string title = args.value("--title").value_or("");
    Result<std::string> image = std::string();
    if (kind == ex::ChartKind::sweep) {
        image = ex::sweep_chart_svg(*text, file, title);
    } else {
        auto frontier = ex::read_frontier(*text, file);
        if (!frontier) return report(frontier.error());
        image = ex::frontier_chart_svg(*frontier, title);
    }
    if (!image) return report(image.error());
    if (format == ex::ImageFormat::png) {
        auto png = ex::svg_to_png(*image);
        if (!png) return report(png.error().with_context(file));
        image = std::move(*png);
    }
    if (auto s = write_file_atomic(*args.value("--output"), *image); !s) return report(s.error());
    return 0;
}

int run_render(int argc, char** argv) {
    int code = 0;
    auto specs = view_specs;
    specs.push_back({"--format", "", true});
    specs.push_back({"--force", ""});
    auto args = parse_command("render", argc, argv, specs, 1, 1, code);
    if (!args) return code;
    auto out = args->value("--output");
    if (!out) return usage_error("render", "missing -o OUT.svg or -o OUT.png");
    std::optional<ex::ImageFormat> format;
    if (auto f = args->value("--format")) {
        format = ex::parse_image_format(*f);
        if (!format) return usage_error("render", "unknown image format '" + *f + "'" + schema::name_hint(*f, std::vector<std::string>{"svg", "png"}, "formats"));
    } else {
        format = ex::image_format_for_path(*out);
        if (!format) return usage_error("render", "cannot tell the image format of '" + *out + "' (use .svg or .png, or --format)");
    }
    const std::string& file = args->positional[0];
    if (auto chart = render_chart(*args, file, *format); chart >= 0) return chart;
    auto b = load_plan(file, code);
    if (!b) return code;
    auto p = parse_view_options("render", *args, *b, file, code);
    if (!p) return code;
    auto view = ex::build_view(*b, p->view);
    if (!view) return view_error("render", view.error());

    ex::RenderOptions options{.format = *format, .force = args->flag("--force")};
    auto estimate = ex::estimate_render(*view, options);
    if (estimate.too_large && !options.force) {
        std::cerr << "kbp render: warning: " << estimate.advice << "; --force lays it out anyway\n";
        return report(make_error(ErrorCode::unsupported, file,
                                 "not laid out: " + std::to_string(estimate.nodes) + " nodes is more than " +
                                     std::to_string(options.max_nodes) + " without --force"));
    }
    if (estimate.slow) std::cerr << "kbp render: note: " << estimate.advice << "\n";
    auto image = ex::render_view(*view, p->dot, options);
    if (!image) return report(image.error().with_context(file));
    if (auto s = write_file_atomic(*out, *image); !s) return report(s.error());
    return 0;
}

}  // namespace kbp::cli
