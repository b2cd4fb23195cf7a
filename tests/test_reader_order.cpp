// The reader meets a record's members in its table's order (the order kbp writes) and reads each
// without a search; it keeps a memo per field of the spellings the records before held. Neither
// may change what is read: members in another order, an unknown member among known ones, a
// duplicate after the in-order pass, and a field whose spelling changes from one record to the
// next read as they always have.
#include <catch2/catch.hpp>

#include "schema/reader.hpp"
#include "support.hpp"

using namespace kbp;

namespace {

const std::string node100 =
    R"({"id":"l3.dsa.input_norm","order":100,"layer":3,"block":"l3.dsa","block_type":"dsa","kind":"deepseek_sparse_attention",)"
    R"("op":"rms_norm",)";

std::string replaced(std::string text, std::string_view from, std::string_view to) {
    std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("members out of the table's order read the same", "[reader][order]") {
    const schema::Blueprint& seed = test::seed();
    std::string text = replaced(test::seed_text(), node100,
                                R"({"op":"rms_norm","kind":"deepseek_sparse_attention","order":100,"id":"l3.dsa.input_norm",)"
                                R"("layer":3,"block_type":"dsa","block":"l3.dsa",)");
    auto b = schema::read_blueprint(text, "plan.json");
    REQUIRE(b);
    CHECK(*b == seed);
}

TEST_CASE("an unknown member among known ones is kept, the members after it read", "[reader][order]") {
    std::string text = replaced(test::seed_text(), node100, replaced(node100, R"("block":)", R"("x_hint":[1,2],"block":)"));
    auto b = schema::read_blueprint(text, "plan.json");
    REQUIRE(b);
    const schema::Node& n = b->nodes[100];
    REQUIRE(n.extras.size() == 1);
    CHECK(n.extras[0].first == "x_hint");
    schema::Node without = n;
    without.extras.clear();
    CHECK(without == test::seed().nodes[100]);
    for (std::size_t i = 0; i < b->nodes.size(); ++i)
        if (i != 100) CHECK(b->nodes[i] == test::seed().nodes[i]);
}

TEST_CASE("a duplicate member after the in-order pass is refused", "[reader][order]") {
    std::string text = replaced(test::seed_text(), node100, node100 + R"("id":"l3.dsa.again",)");
    auto b = schema::read_blueprint(text, "plan.json");
    REQUIRE_FALSE(b);
    CHECK(b.error().text().find("/nodes/100/id: duplicate member 'id'") != std::string::npos);
}

TEST_CASE("a field's spelling changing from one record to the next is read anew", "[reader][order]") {
    // Node 100's neighbours hold other families, blocks and ops: each read must give its own.
    const schema::Blueprint& seed = test::seed();
    std::string text = replaced(test::seed_text(), node100, replaced(replaced(node100, R"("op":"rms_norm")", R"("op":"l2_norm")"),
                                                                     R"("block_type":"dsa")", R"("block_type":"kda")"));
    auto b = schema::read_blueprint(text, "plan.json");
    REQUIRE(b);
    CHECK(b->nodes[100].op.kind.id == schema::OpId::l2_norm);
    CHECK(b->nodes[100].block_type == "kda");
    CHECK(b->nodes[99] == seed.nodes[99]);
    CHECK(b->nodes[101] == seed.nodes[101]);
    // Read again: the memos now hold the changed spellings, and the seed's must still come back.
    auto again = schema::read_blueprint(test::seed_text(), "plan.json");
    REQUIRE(again);
    CHECK(*again == seed);
}
