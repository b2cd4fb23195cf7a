// The plan diff as a library: equal plans, the decode vs multi_seq 64 changes checked against
// what the two plans say when read directly, a field the diff has never heard of, symmetry and
// byte-stable reports.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "diff/diff.hpp"
#include "planner/plan.hpp"
#include "schema/stats.hpp"
#include "support.hpp"

using namespace kbp;
using diff::ChangeKind;

namespace {

const diff::ItemChange* find_item(const std::vector<diff::ItemChange>& items, const std::string& key) {
    for (const auto& i : items)
        if (i.key == key) return &i;
    return nullptr;
}

const diff::FieldChange* find_field(const diff::ItemChange& item, const std::string& field) {
    for (const auto& f : item.fields)
        if (f.field == field) return &f;
    return nullptr;
}

std::set<std::string> keys_with(const std::vector<diff::ItemChange>& items, ChangeKind status) {
    std::set<std::string> out;
    for (const auto& i : items)
        if (i.status == status) out.insert(i.key);
    return out;
}

std::set<std::string> changed_with_field(const std::vector<diff::ItemChange>& items, const std::string& field) {
    std::set<std::string> out;
    for (const auto& i : items)
        if (i.status == ChangeKind::changed && find_field(i, field)) out.insert(i.key);
    return out;
}

std::int64_t total(const diff::PlanDiff& d, const std::string& name, bool after) {
    for (const auto& t : d.totals)
        if (t.name == name) return after ? t.after : t.before;
    FAIL("no total " << name);
    return -1;
}

}  // namespace

TEST_CASE("diff: a plan against itself and against the planner's decode plan is equal", "[diff]") {
    auto same = diff::diff_plans(test::seed(), test::seed());
    CHECK(same.equal());
    CHECK(same.nodes.empty());
    CHECK(same.groups.empty());
    CHECK(same.edges.empty());
    CHECK(same.plan.empty());
    REQUIRE(same.totals.size() == 9);
    for (const auto& t : same.totals) CHECK_FALSE(t.moved());
    CHECK(total(same, "nodes", false) == static_cast<std::int64_t>(test::seed_nodes));
    // kbp's planner reproduces the seed's decode plan: nothing differs but the symbols it adds,
    // which the diff compares only when both plans list them.
    auto planned = diff::diff_plans(test::seed(), test::glm_plan("decode", 1));
    INFO(diff::diff_text(planned, "seed", "planned", 10));
    CHECK(planned.equal());
}

TEST_CASE("diff: decode vs multi_seq 64 reports what the planner changed", "[diff]") {
    const auto& a = test::glm_plan("decode", 1);
    const auto& b = test::glm_plan("multi_seq", 64);
    auto d = diff::diff_plans(a, b);
    REQUIRE_FALSE(d.equal());

    // Added and removed nodes are the ids only one plan has.
    std::set<std::string> ids_a, ids_b;
    for (const auto& n : a.nodes) ids_a.insert(n.id);
    for (const auto& n : b.nodes) ids_b.insert(n.id);
    std::set<std::string> only_b, only_a;
    std::set_difference(ids_b.begin(), ids_b.end(), ids_a.begin(), ids_a.end(), std::inserter(only_b, only_b.end()));
    std::set_difference(ids_a.begin(), ids_a.end(), ids_b.begin(), ids_b.end(), std::inserter(only_a, only_a.end()));
    CHECK(keys_with(d.nodes, ChangeKind::added) == only_b);
    CHECK(keys_with(d.nodes, ChangeKind::removed) == only_a);
    CHECK_FALSE(only_b.empty());

    // The quantization points: the planner adds act_quant nodes for the 64-row arm's quantized
    // activations; every added node is one, and the total moved by their number.
    std::int64_t inserted_a = 0, inserted_b = 0;
    for (const auto& n : a.nodes) inserted_a += n.inserted;
    for (const auto& n : b.nodes) inserted_b += n.inserted;
    CHECK(total(d, "quant_points", false) == inserted_a);
    CHECK(total(d, "quant_points", true) == inserted_b);
    CHECK(inserted_b > inserted_a);
    std::map<std::string, const schema::Node*> by_id_a, by_id_b;
    for (const auto& n : a.nodes) by_id_a[n.id] = &n;
    for (const auto& n : b.nodes) by_id_b[n.id] = &n;
    for (const auto& id : only_b) CHECK(by_id_b[id]->inserted);
    CHECK(static_cast<std::int64_t>(only_b.size() - only_a.size()) == inserted_b - inserted_a);

    // Formats, kernels and group rules: the nodes whose fields differ when read directly are
    // exactly those the diff reports with that field.
    std::set<std::string> activation, kernel, rule;
    for (const auto& [id, na] : by_id_a) {
        auto it = by_id_b.find(id);
        if (it == by_id_b.end()) continue;
        const auto* nb = it->second;
        if (na->precision.activation != nb->precision.activation) activation.insert(id);
        if (na->kernel != nb->kernel) kernel.insert(id);
        if (a.groups[static_cast<std::size_t>(na->group)].rule != b.groups[static_cast<std::size_t>(nb->group)].rule) rule.insert(id);
    }
    CHECK_FALSE(activation.empty());
    CHECK(changed_with_field(d.nodes, "precision/activation") == activation);
    CHECK(changed_with_field(d.nodes, "kernel") == kernel);
    CHECK(changed_with_field(d.nodes, "group/rule") == rule);

    // One change read in full: the 64-row arm feeds layer 0's q projection NVFP4 activations.
    const auto* q = find_item(d.nodes, "l0.kda.q");
    REQUIRE(q);
    const auto* f = find_field(*q, "precision/activation");
    REQUIRE(f);
    CHECK(diff::shown_value(f->before) == std::string(by_id_a["l0.kda.q"]->precision.activation->name()));
    CHECK(diff::shown_value(f->after) == std::string(by_id_b["l0.kda.q"]->precision.activation->name()));
    CHECK(q->index_a == by_id_a["l0.kda.q"]->order);
    CHECK(q->index_b == by_id_b["l0.kda.q"]->order);

    // Groups match by their first node; launches and bytes are the plans' own statistics.
    std::set<std::string> first_a, first_b;
    for (const auto& g : a.groups) first_a.insert(a.nodes[static_cast<std::size_t>(g.nodes.front())].id);
    for (const auto& g : b.groups) first_b.insert(b.nodes[static_cast<std::size_t>(g.nodes.front())].id);
    std::set<std::string> new_groups;
    std::set_difference(first_b.begin(), first_b.end(), first_a.begin(), first_a.end(), std::inserter(new_groups, new_groups.end()));
    CHECK(keys_with(d.groups, ChangeKind::added) == new_groups);
    CHECK_FALSE(new_groups.empty());
    auto sa = schema::compute_stats(a), sb = schema::compute_stats(b);
    CHECK(total(d, "launches", false) == sa.launches);
    CHECK(total(d, "launches", true) == sb.launches);
    CHECK(total(d, "bytes_between_kernels", true) == sb.bytes_between_kernels);
    REQUIRE(d.plan.size() == 2);  // the arm's mode and rows; symbols agree
    CHECK(d.plan[1].field == "arm/rows");
    CHECK(d.plan[1].after == "64");

    // Reversed, every addition is a removal.
    auto r = diff::diff_plans(b, a);
    CHECK(keys_with(r.nodes, ChangeKind::removed) == only_b);
    CHECK(diff::count(r.nodes).changed == diff::count(d.nodes).changed);
    CHECK(diff::count(r.groups).added == diff::count(d.groups).removed);

    // Items follow b's order, each removed item before the next item a and b share.
    std::int64_t last = -1;
    for (const auto& item : d.nodes)
        if (item.index_b) {
            CHECK(*item.index_b > last);
            last = *item.index_b;
        }
}

TEST_CASE("diff: a field the diff does not know is compared like any other", "[diff]") {
    schema::Blueprint b = test::seed();
    auto& node = b.nodes[100];
    node.extras.push_back({"custom_op", schema::JsonValue("glm_fused_thing")});
    node.extras.push_back({"template_args", schema::JsonValue(schema::JsonObject{{"tile", schema::JsonValue(std::int64_t{64})}})});
    b.edges[7].bytes_per_token = *b.edges[7].bytes_per_token + 2;
    auto d = diff::diff_plans(test::seed(), b);
    REQUIRE_FALSE(d.equal());
    const auto* item = find_item(d.nodes, node.id);
    REQUIRE(item);
    const auto* custom = find_field(*item, "custom_op");
    REQUIRE(custom);
    CHECK(custom->before.empty());
    CHECK(custom->after == "\"glm_fused_thing\"");
    const auto* tile = find_field(*item, "template_args/tile");
    REQUIRE(tile);
    CHECK(tile->after == "64");
    // One edge changed, and the bytes its ends read and write with it.
    REQUIRE(d.edges.size() == 1);
    CHECK(d.edges[0].fields.size() == 1);
    CHECK(d.edges[0].fields[0].field == "bytes_per_token");
    const auto& e = b.edges[7];
    CHECK(d.edges[0].key == e.id + ": " + b.nodes[static_cast<std::size_t>(e.from)].id + " -> " + b.nodes[static_cast<std::size_t>(e.to)].id);
    CHECK(find_field(*find_item(d.nodes, b.nodes[static_cast<std::size_t>(e.from)].id), "bytes_out"));
    CHECK(find_field(*find_item(d.nodes, b.nodes[static_cast<std::size_t>(e.to)].id), "bytes_in"));
    CHECK(total(d, "bytes_between_kernels", true) - total(d, "bytes_between_kernels", false) == (e.fused ? 0 : 2));
}

TEST_CASE("diff: reports are the same bytes every time and name the totals that moved", "[diff]") {
    const auto& a = test::glm_plan("decode", 1);
    const auto& b = test::glm_plan("multi_seq", 64);
    auto d1 = diff::diff_plans(a, b);
    auto d2 = diff::diff_plans(a, b);
    CHECK(diff::diff_json(d1, a, b, "a.json", "b.json") == diff::diff_json(d2, a, b, "a.json", "b.json"));
    auto text = diff::diff_text(d1, "a.json", "b.json", 5);
    CHECK(text.find("quantization points") != std::string::npos);
    CHECK(text.find("kernel launches") != std::string::npos);
    CHECK(text.find("host steps") == std::string::npos);  // did not move
    CHECK(text.find("more (--max-items 0 lists all)") != std::string::npos);
    auto all = diff::diff_text(d1, "a.json", "b.json", 0);
    CHECK(all.find("more (--max-items") == std::string::npos);
    CHECK(std::count(all.begin(), all.end(), '\n') > std::count(text.begin(), text.end(), '\n'));
}

TEST_CASE("diff: the report lists a change made the same way in several layers once, with its layers", "[diff][fold]") {
    auto changed = [](std::string key, std::vector<diff::FieldChange> fields) {
        return diff::ItemChange{ChangeKind::changed, std::move(key), 0, 0, std::move(fields)};
    };
    diff::PlanDiff d;
    d.totals.push_back({"launches", 10, 12});
    const diff::FieldChange kernel{"kernel", "\"gemv::bf16\"", "\"fp8_gemv::rowscale\""};
    d.nodes = {
        changed("embed.tok", {kernel}),
        changed("l3.attn.o", {kernel, {"group/members", "[\"l3.attn.o\"]", "[\"l3.attn.a_quant\",\"l3.attn.o\"]"}}),
        changed("l5.attn.o", {kernel, {"group/members", "[\"l5.attn.o\"]", "[\"l5.attn.a_quant\",\"l5.attn.o\"]"}}),
        changed("l6.attn.o", {kernel, {"group/members", "[\"l6.attn.o\"]", "[\"l6.attn.a_quant\",\"l6.attn.o\"]"}}),
        // Another kernel in layer 7: a change of its own.
        changed("l7.attn.o", {{"kernel", "\"gemv::bf16\"", "\"w4a16::gemv\""}, {"group/members", "[\"l7.attn.o\"]", "[\"l7.attn.a_quant\",\"l7.attn.o\"]"}}),
        // A kernel whose name holds "l2." is not a layer.
        changed("head.lm", {{"kernel", "\"gemv::bf16\"", "\"gemv::l2.norm\""}}),
        {ChangeKind::added, "l3.attn.a_quant", std::nullopt, 3, {}},
        {ChangeKind::added, "l4.attn.a_quant", std::nullopt, 4, {}},
        {ChangeKind::added, "l5.attn.a_quant", std::nullopt, 5, {}},
    };
    // An edge to the next layer: ids relative to the edge's first layer.
    d.edges = {{ChangeKind::added, "l3.out: l3.mlp.down -> l4.attn.norm", std::nullopt, 1, {}},
               {ChangeKind::added, "l9.out: l9.mlp.down -> l10.attn.norm", std::nullopt, 2, {}}};
    auto text = diff::diff_text(d, "a", "b", 0);
    INFO(text);
    CHECK(text.find("  ~ l*.attn.o  in 3 layers: 3, 5, 6\n"
                    "      kernel: gemv::bf16 -> fp8_gemv::rowscale\n"
                    "      group/members: [\"l*.attn.o\"] -> [\"l*.attn.a_quant\",\"l*.attn.o\"]\n") != std::string::npos);
    CHECK(text.find("  ~ l7.attn.o\n      kernel: gemv::bf16 -> w4a16::gemv\n") != std::string::npos);
    CHECK(text.find("  ~ embed.tok\n") != std::string::npos);
    CHECK(text.find("  ~ head.lm\n      kernel: gemv::bf16 -> gemv::l2.norm\n") != std::string::npos);
    CHECK(text.find("  + l*.attn.a_quant (added)  in 3 layers: 3-5\n") != std::string::npos);
    CHECK(text.find("  + l*.out: l*.mlp.down -> l*+1.attn.norm (added)  in 2 layers: 3, 9\n") != std::string::npos);
    // The counts are the items', not the lines'.
    CHECK(text.find("nodes: 3 added, 0 removed, 6 changed\n") != std::string::npos);
    // --max-items counts what is listed.
    CHECK(diff::diff_text(d, "a", "b", 2).find("... and 3 more") != std::string::npos);
    // Layer by layer, as before.
    auto each = diff::diff_text(d, "a", "b", 0, false);
    CHECK(each.find("  ~ l5.attn.o\n") != std::string::npos);
    CHECK(each.find("l*") == std::string::npos);
}

TEST_CASE("diff: the folded report of two arms accounts for every changed item", "[diff][fold]") {
    const auto& a = test::glm_plan("decode", 1);
    const auto& b = test::glm_plan("multi_seq", 64);
    auto d = diff::diff_plans(a, b);
    auto text = diff::diff_text(d, "a", "b", 0);
    // Every listed entry stands for its layers' items (or one item): together, all of them.
    std::size_t items = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.size() < 4 || line[0] != ' ' || line[1] != ' ' || (line[2] != '+' && line[2] != '-' && line[2] != '~')) continue;
        auto in = line.find("  in ");
        items += in == std::string::npos ? 1 : std::stoul(line.substr(in + 5));
    }
    CHECK(items == d.nodes.size() + d.groups.size() + d.edges.size());
    const auto each = diff::diff_text(d, "a", "b", 0, false);
    CHECK(std::count(text.begin(), text.end(), '\n') < std::count(each.begin(), each.end(), '\n'));
}

TEST_CASE("diff: two engines' plans of one model say first that the engine differs, then what it launches", "[diff][engines]") {
    auto plan_with = [](const char* engine) {
        planner::PlanRequest r;
        r.config_path = test::source_dir() + "/samples/llama-3.1-8b/config.json";
        r.target = "h100";
        r.engine = engine;
        auto p = planner::make_plan(r);
        REQUIRE(p.ok());
        return std::move(p->blueprint);
    };
    const auto sglang = plan_with("sglang"), vllm = plan_with("vllm");
    auto d = diff::diff_plans(sglang, vllm);
    REQUIRE_FALSE(d.equal());
    REQUIRE_FALSE(d.plan.empty());
    CHECK(d.plan.front().field == "made_with/engine");
    CHECK(diff::shown_value(d.plan.front().before) == "sglang");
    CHECK(diff::shown_value(d.plan.front().after) == "vllm");
    const auto launches = std::find_if(d.totals.begin(), d.totals.end(), [](const diff::Total& t) { return t.name == "launches"; });
    REQUIRE(launches != d.totals.end());
    CHECK(launches->before == schema::compute_stats(sglang).launches);
    CHECK(launches->after == schema::compute_stats(vllm).launches);
    CHECK(launches->moved());
    // The seed is not kbp's plan: what it was made with is not compared.
    auto seed_vs_kbp = diff::diff_plans(test::seed(), test::glm_plan("decode", 1));
    CHECK(std::none_of(seed_vs_kbp.plan.begin(), seed_vs_kbp.plan.end(), [](const diff::FieldChange& f) { return f.field.rfind("made_with/", 0) == 0; }));
}
