// The catalog loaded once: a Planner's plans read the files it loaded (shared, not copied or
// re-checked), every arm it plans is byte for byte the plan a fresh catalog gives, and each
// "re:" pattern is compiled once for the process.
#include <catch2/catch.hpp>

#include "planner/plan.hpp"
#include "planner/regex_cache.hpp"
#include "schema/writer.hpp"

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
