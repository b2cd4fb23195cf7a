// printable(): the filter every error message goes through (schema/message_text.hpp).
#include <catch2/catch.hpp>

#include "schema/diagnostic.hpp"
#include "schema/message_text.hpp"
#include "schema/result.hpp"

using kbp::printable;

TEST_CASE("message text: ordinary text, UTF-8 included, comes back unchanged", "[message_text]") {
    for (std::string text : {"", "unknown op 'matmull' (did you mean 'matmul'?)", "layers 3-7 · bf16 → fp8 × 2", "a\"b'c"})
        CHECK(printable(text) == text);
}

TEST_CASE("message text: control characters, C1 controls and stray bytes are shown escaped", "[message_text]") {
    CHECK(printable("id 'x\x1b[31mred\x1b[0m'") == "id 'x\\x1b[31mred\\x1b[0m'");
    CHECK(printable("a\nb\rc\td\x07\x7f") == "a\\x0ab\\x0dc\\x09d\\x07\\x7f");
    CHECK(printable("csi \xc2\x9b" "31m") == "csi \\u009b31m");       // U+009B, the 8-bit CSI
    CHECK(printable("bad \xff\xfe utf8 \xc3") == "bad \\xff\\xfe utf8 \\xc3");
    CHECK(printable("overlong \xc0\xaf") == "overlong \\xc0\\xaf");
    CHECK(printable(std::string("nul \0 byte", 10)) == "nul \\x00 byte");
}

TEST_CASE("message text: a long value is cut, with its length", "[message_text]") {
    std::string id(52428800, 'A');
    std::string shown = printable("id '" + id + "' does not start with its block 'l0.kda.'");
    CHECK(shown == "id '" + std::string(kbp::max_shown_value_bytes / 2, 'A') + "…(52,428,800 bytes)' does not start with its block 'l0.kda.'");
    // At the limit: kept whole.
    std::string fits(kbp::max_shown_value_bytes, 'b');
    CHECK(printable("'" + fits + "'") == "'" + fits + "'");
    // A cut never splits a UTF-8 character: after "x", the last byte kept would start an 'é'
    // (two bytes), so the cut steps back one.
    std::string accents;
    for (int i = 0; i < 600; ++i) accents += "\xc3\xa9";
    CHECK(printable("x" + accents) == "x" + accents.substr(0, kbp::max_shown_value_bytes / 2 - 2) + "…(1,201 bytes)");
}

TEST_CASE("message text: errors and diagnostics print through it", "[message_text]") {
    kbp::Error e{kbp::ErrorCode::invalid_input, "plan\x1b.json: /nodes/5/id", "id '\x1b]0;t\x07'"};
    CHECK(e.text() == "plan\\x1b.json: /nodes/5/id: id '\\x1b]0;t\\x07'");
    kbp::schema::Diagnostics d;
    d.add("/nodes/5/id", "id '" + std::string(5000, 'z') + "'");
    REQUIRE(d.items().size() == 1);
    CHECK(d.items()[0].message == "id '" + std::string(kbp::max_shown_value_bytes / 2, 'z') + "…(5,000 bytes)'");
}
