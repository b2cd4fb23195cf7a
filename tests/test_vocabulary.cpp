// Each vocabulary has one list (schema/vocabulary.hpp); the data files that name the same values
// must say the same. A failure names both places, so whoever added a value to one knows where the
// other wants it. (The palette's colours and schema/bytes.cpp's sizes fail the build instead.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "exporters/palette.hpp"
#include "schema/bytes.hpp"
#include "cli_runner.hpp"
#include "schema/names.hpp"
#include "support.hpp"
#include "viewer/model/colouring.hpp"

namespace {

using kbp::test::OJson;
namespace schema = kbp::schema;

const std::string root = KBP_SOURCE_DIR;

template <class E> std::set<std::string> known_names() {
    std::set<std::string> out;
    for (auto name : schema::name_table<E>().subspan(1)) out.emplace(name);
    return out;
}

// The names in `a` that `b` lacks, one a line: "  'ssm_scan'".
std::string missing(const std::set<std::string>& a, const std::set<std::string>& b) {
    std::string out;
    for (const auto& n : a)
        if (!b.count(n)) out += "  '" + n + "'\n";
    return out;
}

// Every name `pattern`'s first group matches in kbp's own C++ sources (not the tests').
std::set<std::string> names_the_sources_read(const std::regex& pattern) {
    std::set<std::string> out;
    for (const char* dir : {"planner", "cost", "schema", "exporters", "tune", "cli", "diff", "viewer"}) {
        if (!std::filesystem::exists(root + "/" + dir)) continue;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root + "/" + dir)) {
            const auto ext = entry.path().extension();
            if (ext != ".cpp" && ext != ".hpp") continue;
            const std::string text = kbp::test::slurp(entry.path().string());
            for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) out.insert((*it)[1].str());
        }
    }
    return out;
}

std::set<std::string> keys_of(const OJson& object) {
    std::set<std::string> out;
    for (const auto& [k, _] : object.items()) out.insert(k);
    return out;
}

}  // namespace

TEST_CASE("vocabulary: the planner's ops are the ops of kbp-graph/v2", "[vocabulary][ops]") {
    std::set<std::string> data;
    for (const auto& entry : std::filesystem::directory_iterator(root + "/planner/data/ops")) {
        const OJson file = OJson::parse(kbp::test::slurp(entry.path().string()));
        for (const auto& [name, _] : file["ops"].items()) data.insert(name);
    }
    const auto ops = known_names<schema::OpId>();
    INFO("ops of planner/data/ops/*.json that schema/vocabulary.hpp's KBP_OPS lacks (add them there):\n" << missing(data, ops));
    INFO("ops of schema/vocabulary.hpp's KBP_OPS that no planner/data/ops/*.json defines (say there what each does):\n" << missing(ops, data));
    CHECK(data == ops);
}

TEST_CASE("vocabulary: every format is described, sized and coloured", "[vocabulary][formats]") {
    std::set<std::string> described;
    const OJson explained = OJson::parse(kbp::test::slurp(root + "/planner/data/explain/formats.json"));
    for (const auto& [name, _] : explained.items()) described.insert(name);
    std::set<std::string> formats;
    for (auto id : schema::known_formats) {
        schema::Format f{id, {}};
        formats.insert(std::string(schema::format_doc_name(f)));
        INFO(f.name());
        CHECK(schema::row_bytes(f, 4096).has_value());           // schema/bytes.cpp
        CHECK(kbp::exporters::format_bits(f) < 64);             // exporters/palette.cpp
        CHECK(schema::Format::parse(f.name() == "fx32" ? "fx32/f?" : f.name()).id == id);
    }
    INFO("formats of schema/vocabulary.hpp's KBP_FORMATS that planner/data/explain/formats.json does not describe:\n" << missing(formats, described));
    INFO("entries of planner/data/explain/formats.json that are no format of schema/vocabulary.hpp's KBP_FORMATS:\n" << missing(described, formats));
    CHECK(described == formats);
}

TEST_CASE("vocabulary: block types are the architectures' block names, kept as written", "[vocabulary][blocks]") {
    // No closed list: a block an architecture adds (Nemotron-H's mamba) is its plan's block_type.
    std::set<std::string> blocks;
    for (const auto& entry : std::filesystem::directory_iterator(root + "/planner/data/architectures")) {
        const OJson architecture = OJson::parse(kbp::test::slurp(entry.path().string()));
        // A file that extends another may give no blocks of its own.
        const OJson own = architecture.value("blocks", OJson::object());
        for (const auto& [name, _] : own.items()) blocks.insert(name);
    }
    CHECK(blocks.count("mamba"));
    schema::Node n;
    n.block_type = "mamba";
    CHECK(n.block_type == "mamba");
}

TEST_CASE("vocabulary: the viewer's colour modes begin with the palette's, named alike", "[vocabulary][palette]") {
    namespace ex = kbp::exporters;
    REQUIRE(std::size(kbp::viewer::all_color_modes) > std::size(ex::all_color_by));
    for (std::size_t i = 0; i < std::size(ex::all_color_by); ++i) {
        auto mode = kbp::viewer::all_color_modes[i];
        REQUIRE(kbp::viewer::palette_mode(mode) == ex::all_color_by[i]);
        CHECK(kbp::viewer::color_mode_name(mode) == ex::color_by_name(ex::all_color_by[i]));
        CHECK(ex::parse_color_by(ex::color_by_name(ex::all_color_by[i])) == ex::all_color_by[i]);
    }
    for (std::size_t i = std::size(ex::all_color_by); i < std::size(kbp::viewer::all_color_modes); ++i) {
        auto mode = kbp::viewer::all_color_modes[i];
        CHECK_FALSE(kbp::viewer::palette_mode(mode).has_value());
        CHECK_FALSE(ex::parse_color_by(kbp::viewer::color_mode_name(mode)).has_value());
        CHECK(kbp::viewer::parse_color_mode(kbp::viewer::color_mode_name(mode)) == mode);
    }
    CHECK(ex::color_by_names() == "precision, family, compute, where, state");
    // The help text is prose: it must still list every mode.
    std::string modes;
    for (auto by : ex::all_color_by) modes += (modes.empty() ? "" : "|") + std::string(ex::color_by_name(by));
    kbp::test::TempDir dir;
    INFO("cli/commands.cpp's help of kbp export must list exporters/palette.hpp's KBP_COLOR_BY modes as --color " << modes);
    CHECK_THAT(kbp::test::kbp_run(dir, "help export").out, Catch::Contains("--color " + modes));
}

TEST_CASE("vocabulary: the symbols and point knobs kbp's C++ reads by name are declared in the schemas", "[vocabulary][schema]") {
    // A symbol an architecture defines under one of these names means what the C++ makes of it
    // (top_k: the experts a token reads); the schemas say so, and a name the C++ starts reading
    // without declaring it fails here.
    const OJson architectures = OJson::parse(kbp::test::slurp(root + "/planner/data/schemas/architectures.schema.json"));
    const OJson kernels = OJson::parse(kbp::test::slurp(root + "/planner/data/schemas/kernels.schema.json"));
    const std::set<std::string> symbols_read = names_the_sources_read(std::regex(R"re(symbol\("([a-z_]+)"\))re"));
    const std::set<std::string> symbols_declared = keys_of(architectures.at("properties").at("symbols").at("properties"));
    REQUIRE(symbols_read.count("top_k"));
    INFO("read by the C++, not declared in architectures.schema.json /properties/symbols/properties:\n" << missing(symbols_read, symbols_declared));
    CHECK(missing(symbols_read, symbols_declared).empty());
    INFO("declared, never read:\n" << missing(symbols_declared, symbols_read));
    CHECK(missing(symbols_declared, symbols_read).empty());

    const std::set<std::string> points_read = names_the_sources_read(std::regex(R"re(point\.find\("([a-z_]+)"\))re"));
    std::set<std::string> points_declared = keys_of(architectures.at("$defs").at("op").at("properties").at("point").at("properties"));
    for (const auto& k : keys_of(kernels.at("$defs").at("point").at("properties"))) points_declared.insert(k);
    points_declared.insert({"weight_n", "weight_k"});  // set from an op's weight_shape, refused as a point's own name
    REQUIRE(points_read.count("bias"));
    INFO("read by the C++, not declared in an op's or a kernel row's point:\n" << missing(points_read, points_declared));
    CHECK(missing(points_read, points_declared).empty());
    INFO("declared, never read:\n" << missing(points_declared, points_read));
    CHECK(missing(points_declared, points_read).empty());
}

TEST_CASE("vocabulary: the fields tensor parallelism splits are data, each one a config field some architecture reads", "[vocabulary][tp]") {
    const OJson fields = OJson::parse(kbp::test::slurp(root + "/planner/data/vocabulary/config-fields.json"));
    const OJson& tp = fields.at("tensor_parallel");
    std::set<std::string> split;
    for (const auto& s : tp.at("splits")) split.insert(s.at("field").get<std::string>());
    CHECK(split.count("num_key_value_heads"));
    CHECK(tp.at("splits").at(0).value("replicate", false));  // the kv heads: the one field that may be replicated, reported first
    // Each names a field some architecture's symbols read (a misspelt field would split nothing).
    std::string all_architectures;
    for (const auto& entry : std::filesystem::directory_iterator(root + "/planner/data/architectures"))
        all_architectures += kbp::test::slurp(entry.path().string());
    for (const auto& f : split) {
        INFO(f);
        CHECK(all_architectures.find("\"" + f) != std::string::npos);
    }
}
