// The catalog loaded once: a Planner's plans read the files it loaded (shared, not copied or
// re-checked), every arm it plans is byte for byte the plan a fresh catalog gives, and each
// "re:" pattern is compiled once for the process.
#include <catch2/catch.hpp>

#include <filesystem>

#include "planner/plan.hpp"
#include "planner/regex_cache.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

namespace {

using namespace kbp::planner;

PlanRequest glm(const char* arm, std::int64_t rows) {
    PlanRequest r;
    r.config_path = std::string(KBP_SOURCE_DIR) + "/samples/glm-5.3-flash/config.json";
    r.arm = arm;
    r.rows = rows;
    r.command = "kbp plan (test)";
    return r;
}

std::string bytes_of(kbp::Result<PlanOutput> p) {
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return kbp::schema::write_blueprint(p->blueprint, {.pretty = false});
}

}  // namespace

TEST_CASE("catalog: a share reads the loaded files in place", "[planner][catalog]") {
    auto loaded = Catalog::load(std::nullopt);
    REQUIRE(loaded.ok());
    Catalog a = loaded->share(), b = loaded->share();
    REQUIRE_FALSE(loaded->all("kernels").empty());
    CHECK(a.all("kernels") == loaded->all("kernels"));  // the very same DataFile objects
    CHECK(b.all("recipes") == loaded->all("recipes"));
    // A file read by path belongs to the share that read it.
    auto config = a.file("configs", std::string(KBP_SOURCE_DIR) + "/samples/llama-3.1-8b/config.json");
    REQUIRE(config.ok());
    CHECK((*config)->name == "config");
    CHECK(b.all("configs").empty());
}

TEST_CASE("catalog: the recipes made for a target are those that serve the architecture", "[planner][catalog]") {
    auto names = [](const std::vector<const DataFile*>& files) {
        std::vector<std::string> out;
        for (const DataFile* f : files) out.push_back(f->name);
        return out;
    };
    auto is_qc_u = [](const std::string& t) { return t == "qc-u"; };
    auto is_chimera = [](const std::string& t) { return t.rfind("qc-", 0) == 0; };
    auto embedded = Catalog::load(std::nullopt);
    REQUIRE(embedded.ok());
    CHECK(names(recipes_made_for(*embedded, is_qc_u, "llama")) == std::vector<std::string>{"chimera-w4a16"});
    CHECK(recipes_made_for(*embedded, is_qc_u, "qwen3").empty());  // chimera-w4a16 lists llama alone

    // Two more: one for qwen3 on QC-U, one that lists no architectures (it serves every one) on QC-N.
    kbp::test::TempDir dir;
    std::filesystem::create_directories(dir.file("recipes"));
    auto chimera = nlohmann::ordered_json::parse(kbp::test::slurp(std::string(KBP_SOURCE_DIR) + "/planner/data/recipes/chimera-w4a16.json"));
    auto for_qwen3 = chimera, for_any = chimera;
    for_qwen3["name"] = "chimera-qwen3";
    for_qwen3["architectures"] = {"qwen3"};
    for_any["name"] = "chimera-any";
    for_any["target"] = "qc-n";
    for_any.erase("architectures");
    kbp::test::spit(dir.file("recipes/chimera-qwen3.json"), for_qwen3.dump(2));
    kbp::test::spit(dir.file("recipes/chimera-any.json"), for_any.dump(2));
    auto extended = Catalog::load(dir.path());
    INFO((extended ? std::string() : extended.error().text()));
    REQUIRE(extended.ok());
    CHECK(names(recipes_made_for(*extended, is_qc_u, "qwen3")) == std::vector<std::string>{"chimera-qwen3"});
    CHECK(names(recipes_made_for(*extended, is_chimera, "qwen3")) == std::vector<std::string>{"chimera-any", "chimera-qwen3"});
    CHECK(names(recipes_made_for(*extended, is_chimera, "llama")) == std::vector<std::string>{"chimera-any", "chimera-w4a16"});
    CHECK(recipes_made_for(*extended, [](const std::string& t) { return t == "h100"; }, "llama").empty());
}

TEST_CASE("planner: one catalog plans every arm as a fresh catalog does", "[planner][catalog]") {
    auto planner = Planner::load(std::nullopt);
    REQUIRE(planner.ok());
    for (const auto& [arm, rows] : standard_arms()) {
        INFO(arm << " " << rows);
        CHECK(bytes_of(planner->plan(glm(arm, rows))) == bytes_of(make_plan(glm(arm, rows))));
    }
    // Planning again with the same planner gives the same bytes (nothing a plan reads by path
    // stays behind in the planner's catalog).
    CHECK(bytes_of(planner->plan(glm("decode", 1))) == bytes_of(planner->plan(glm("decode", 1))));
    auto why = planner->why(glm("decode", 1), "l3.moe.xn_quant");
    REQUIRE(why.ok());
    CHECK(*why == *why_node(glm("decode", 1), "l3.moe.xn_quant"));
}

TEST_CASE("regex cache: each pattern compiled once, a bad one says why", "[planner][catalog]") {
    const CompiledRegex& first = compiled_regex("l[0-9]+\\.moe\\..*");
    CHECK(&first == &compiled_regex("l[0-9]+\\.moe\\..*"));
    REQUIRE(first.regex);
    CHECK(std::regex_match("l3.moe.gate", *first.regex));
    const CompiledRegex& bad = compiled_regex("(unclosed");
    CHECK_FALSE(bad.regex);
    CHECK_FALSE(bad.problem.empty());
}
