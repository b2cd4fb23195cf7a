// The planner's data records (planner/kernel_records.hpp, fusion_records.hpp, target_records.hpp,
// recipe_records.hpp) against their JSON Schemas (planner/data/schemas/): each record's table has a field for every
// member its schema object lists, in the schema's order, and no other; the members the schema
// requires are the table's required ones; and each member's C++ type reads the JSON type the
// schema gives it. The walk goes from the file's root through every member whose type is a record (or a list,
// map, optional or variant of records), so a member added to a schema at any depth without its
// record member fails here, and so does a record member the schema does not have.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "planner/catalog.hpp"
#include "planner/data_records.hpp"
#include "support.hpp"

using namespace kbp;
using namespace kbp::planner;
using kbp::test::OJson;

namespace {

const OJson& schema_of(const std::string& kind) {
    static std::map<std::string, OJson> parsed;
    auto [it, fresh] = parsed.try_emplace(kind);
    if (fresh) it->second = OJson::parse(test::slurp(test::source_dir() + "/planner/data/schemas/" + kind + ".schema.json"));
    return it->second;
}

// The schema `s` stands for in `doc`: a "$ref" followed to its definition.
const OJson& resolved(const OJson& doc, const OJson& s) {
    if (!s.is_object() || !s.contains("$ref")) return s;
    const std::string ref = s.at("$ref").get<std::string>();  // "#/$defs/row"
    REQUIRE(ref.rfind("#/", 0) == 0);
    return resolved(doc, doc.at(OJson::json_pointer(ref.substr(1))));
}

// The JSON types a schema admits ("string", "integer", ...); empty when it says nothing of them.
std::set<std::string> json_types(const OJson& doc, const OJson& schema) {
    const OJson& s = resolved(doc, schema);
    std::set<std::string> out;
    auto of_value = [](const OJson& v) -> std::string {
        return v.is_string() ? "string" : v.is_boolean() ? "boolean" : v.is_number_integer() ? "integer" : v.is_number() ? "number"
                                      : v.is_null()    ? "null"
                                      : v.is_array()   ? "array"
                                                       : "object";
    };
    if (auto t = s.find("type"); t != s.end()) {
        if (t->is_string()) out.insert(t->get<std::string>());
        else
            for (const auto& x : *t) out.insert(x.get<std::string>());
    } else if (auto c = s.find("const"); c != s.end()) {
        out.insert(of_value(*c));
    } else if (auto e = s.find("enum"); e != s.end()) {
        for (const auto& x : *e) out.insert(of_value(x));
    } else if (auto any = s.find("anyOf"); any != s.end()) {
        for (const auto& branch : *any)
            for (const auto& t : json_types(doc, branch)) out.insert(t);
    }
    return out;
}

template <class T> struct Walk;

template <class F> constexpr bool is_optional_member = record_reader::is_optional<typename F::member_type>::value;

template <class T> std::vector<std::string> table_members() {
    std::vector<std::string> out;
    schema::for_each_field<T>([&](const auto& f) { out.emplace_back(f.json); });
    return out;
}

template <class T> std::vector<std::string> table_required() {
    std::vector<std::string> out;
    schema::for_each_field<T>([&](const auto& f) {
        if (schema::schema_required(f.presence)) out.emplace_back(f.json);
    });
    std::sort(out.begin(), out.end());
    return out;
}

// Checks that the C++ type T reads what `schema` (at `where` in `doc`) describes, and walks on.
template <class T> void walk(const OJson& doc, const OJson& schema, const std::string& where) {
    INFO(where);
    Walk<T>::check(doc, resolved(doc, schema), where);
}

// A scalar: the schema admits its JSON type (or says nothing of types) and has no members.
void scalar(const OJson& doc, const OJson& s, const std::string& type) {
    CHECK_FALSE(s.contains("properties"));
    const auto types = json_types(doc, s);
    CHECK((types.empty() || types.count(type) || (type == "integer" && types.count("number"))));
}

template <class T> struct Walk {
    static void check(const OJson& doc, const OJson& s, const std::string& where) {
        if constexpr (std::is_same_v<T, std::string>) scalar(doc, s, "string");
        else if constexpr (std::is_same_v<T, bool>) scalar(doc, s, "boolean");
        else if constexpr (std::is_same_v<T, std::int64_t>) scalar(doc, s, "integer");
        else if constexpr (std::is_same_v<T, double>) scalar(doc, s, "number");
        else if constexpr (std::is_same_v<T, Json>) {
            // Free-form: a family's knobs, read as written.
        } else {
            static_assert(schema::Described<T>, "a record member's type the test does not know");
            REQUIRE(s.contains("properties"));
            std::vector<std::string> properties;
            for (const auto& [name, value] : s.at("properties").items()) properties.push_back(name);
            CHECK(properties == table_members<T>());  // the same members, in the schema's order
            auto required = s.value("required", std::vector<std::string>{});
            std::sort(required.begin(), required.end());
            CHECK(required == table_required<T>());
            schema::for_each_field<T>([&](const auto& f) {
                using F = std::decay_t<decltype(f)>;
                const std::string name(f.json);
                if (!s.at("properties").contains(name)) return;  // reported above
                // An optional member is either left out (Presence::optional) or not the schema's
                // required one; a required one is never Presence::optional.
                if (f.presence == Presence::optional) CHECK(is_optional_member<F>);
                walk<typename F::member_type>(doc, s.at("properties").at(name), where + "/properties/" + name);
            });
        }
    }
};

// Null, or the schema without null: the branch of an anyOf that is not {"type": "null"}.
template <class T> struct Walk<std::optional<T>> {
    static void check(const OJson& doc, const OJson& s, const std::string& where) {
        if (auto any = s.find("anyOf"); any != s.end()) {
            std::vector<const OJson*> others;
            for (const auto& branch : *any)
                if (json_types(doc, branch) != std::set<std::string>{"null"}) others.push_back(&branch);
            if (others.size() == 1) return walk<T>(doc, *others.front(), where + "/anyOf");
        }
        walk<T>(doc, s, where);
    }
};
template <class T> struct Walk<std::vector<T>> {
    static void check(const OJson& doc, const OJson& s, const std::string& where) {
        CHECK(json_types(doc, s).count("array"));
        REQUIRE(s.contains("items"));
        walk<T>(doc, s.at("items"), where + "/items");
    }
};
template <class T> struct Walk<Keyed<T>> {
    static void check(const OJson& doc, const OJson& s, const std::string& where) { Walk<std::map<std::string, T>>::check(doc, s, where); }
};
template <class T, std::size_t N> struct Walk<std::array<T, N>> {
    static void check(const OJson& doc, const OJson& s, const std::string& where) {
        CHECK(s.value("minItems", 0) == N);
        CHECK(s.value("maxItems", 0) == N);
        Walk<std::vector<T>>::check(doc, s, where);
    }
};
template <class T> struct Walk<std::map<std::string, T>> {
    static void check(const OJson& doc, const OJson& s, const std::string& where) {
        CHECK(json_types(doc, s).count("object"));
        CHECK_FALSE(s.contains("properties"));
        REQUIRE(s.contains("additionalProperties"));
        walk<T>(doc, s.at("additionalProperties"), where + "/additionalProperties");
    }
};

// The JSON type each alternative reads.
template <class T> std::string json_type_of() {
    if constexpr (std::is_same_v<T, std::string>) return "string";
    else if constexpr (std::is_same_v<T, std::int64_t>) return "integer";
    else if constexpr (std::is_same_v<T, bool>) return "boolean";
    else if constexpr (schema::Described<T>) return "object";
    else return "array";  // the variants hold lists besides
}

// One alternative per branch of the schema's anyOf, told apart by JSON type.
template <class... T> struct Walk<std::variant<T...>> {
    static void check(const OJson& doc, const OJson& s, const std::string& where) {
        REQUIRE(s.contains("anyOf"));
        const OJson& any = s.at("anyOf");
        CHECK(any.size() == sizeof...(T));
        auto alternative = [&]<class A>(A*) {
            const std::string type = json_type_of<A>();
            INFO("the alternative read from " << type);
            auto branch = std::find_if(any.begin(), any.end(), [&](const OJson& b) { return json_types(doc, b).count(type) > 0; });
            REQUIRE(branch != any.end());
            walk<A>(doc, *branch, where + "/anyOf/" + std::to_string(branch - any.begin()));
        };
        (alternative(static_cast<T*>(nullptr)), ...);
    }
};

}  // namespace

TEST_CASE("data records: each kind's record tables follow its schema member by member", "[planner][records]") {
    walk<KernelCatalog>(schema_of("kernels"), schema_of("kernels"), "kernels.schema.json#");
    walk<FusionCatalog>(schema_of("fusion"), schema_of("fusion"), "fusion.schema.json#");
    walk<TargetRecord>(schema_of("targets"), schema_of("targets"), "targets.schema.json#");
    walk<RecipeRecord>(schema_of("recipes"), schema_of("recipes"), "recipes.schema.json#");
    walk<RecipePart>(schema_of("recipes-parts"), schema_of("recipes-parts"), "recipes-parts.schema.json#");
}

TEST_CASE("data records: every shipped kernel, fusion, target and recipe file is read once, as its records", "[planner][records]") {
    auto loaded = Catalog::load(std::nullopt);
    REQUIRE(loaded.ok());
    for (const DataFile* f : loaded->all("kernels")) {
        INFO(f->origin);
        REQUIRE(f->kernel_catalog);
        CHECK(f->kernel_catalog->name == f->json.at("name"));
        REQUIRE(f->kernel_catalog->table.size() == f->json.at("table").size());
        for (std::size_t r = 0; r < f->kernel_catalog->table.size(); ++r) CHECK(f->kernel_catalog->table[r].json == &f->json.at("table")[r]);
        CHECK(f->kernel_catalog->instances.size() == f->json.at("instances").size());
    }
    for (const DataFile* f : loaded->all("fusion")) {
        INFO(f->origin);
        REQUIRE(f->fusion_catalog);
        CHECK(f->fusion_catalog->rules.size() == f->json.at("rules").size());
    }
    for (const DataFile* f : loaded->all("recipes")) {
        INFO(f->origin);
        REQUIRE(f->recipe_record);
        CHECK(f->recipe_record->entries.size() == f->json.at("entries").size());
        CHECK(f->recipe_record->settings.size() == f->json.value("settings", OJson::object()).size());
    }
    for (const DataFile* f : loaded->all("recipes/parts")) {
        INFO(f->origin);
        REQUIRE(f->recipe_part);
        CHECK(f->recipe_part->entries.size() == f->json.at("entries").size());
    }
    for (const DataFile* f : loaded->all("targets")) {
        INFO(f->origin);
        REQUIRE(f->target_record);
        CHECK(f->target_record->formats.size() == f->json.at("formats").size());
        // A figure written null is unknown, as one left out.
        CHECK(f->target_record->memory_bandwidth_gbps.has_value() == (f->json.contains("memory_bandwidth_gbps") && !f->json["memory_bandwidth_gbps"].is_null()));
    }
    // Every plan from this catalog reads these records: a share holds the same ones.
    Catalog share = loaded->share();
    CHECK(share.all("kernels").front()->kernel_catalog == loaded->all("kernels").front()->kernel_catalog);
}

TEST_CASE("data records: null, absent and a value are told apart where a member may be null", "[planner][records]") {
    const Json spec = Json::parse(R"({"kernel": null, "family": "gemm", "fraction_bits": {"rule": "range", "total": "{bits}", "cap": 30}})");
    MemberSpec m;
    REQUIRE(read_record(spec, m, "f.json", "/rules/0/members").ok());
    REQUIRE(m.kernel.has_value());  // present: the member's kernel is cleared
    CHECK_FALSE(m.kernel->has_value());
    CHECK_FALSE(m.compute.has_value());  // absent: left as the kernel row made it
    CHECK(m.family == "gemm");
    REQUIRE(m.fraction_bits);
    CHECK(std::get<std::string>(*m.fraction_bits->total) == "{bits}");
    CHECK(std::get<std::int64_t>(*m.fraction_bits->cap) == 30);
    CHECK_FALSE(m.fraction_bits->headroom);
}

TEST_CASE("data records: a value its record member cannot hold is a build problem, located", "[planner][records]") {
    // The schema would refuse this file first; the reader's own word is for a table and a schema
    // that disagree, and it says where.
    KernelBudget budget;
    auto read = read_record(Json::parse(R"({"point": "reserved_ext", "limit_bytes": true, "setting": "kv"})"), budget, "k.json", "/budgets/0");
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().text() ==
          "k.json: /budgets/0/limit_bytes: the value's type is not its record member's (a kbp build problem: the record's table and its schema disagree)");
}
