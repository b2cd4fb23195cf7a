// The writer's string escapes (schema/json_text.cpp checks a name 8 bytes at a time): every
// length around the word size, every byte that must be escaped at every position, and random
// text, each written exactly as nlohmann::json::dump() writes it (the format's reference).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "schema/json_text.hpp"

using kbp::schema::JsonText;

namespace {

std::string written(const std::string& s) {
    JsonText w(false);
    w.string(s);
    return std::string(w.view());
}

std::string reference(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

TEST_CASE("json text: a byte that needs escaping is found at every position of every length", "[writer]") {
    const std::string specials = std::string("\"\\\b\f\n\r\t\x01\x1f", 9);
    for (std::size_t length = 0; length <= 24; ++length) {
        const std::string plain(length, 'a');
        REQUIRE(written(plain) == reference(plain));
        for (std::size_t at = 0; at < length; ++at)
            for (char special : specials) {
                std::string s = plain;
                s[at] = special;
                INFO("length " << length << ", byte " << static_cast<int>(special) << " at " << at);
                REQUIRE(written(s) == reference(s));
            }
    }
}

TEST_CASE("json text: bytes next to the escaped ones are written verbatim (space, '!', '#', '[', ']', DEL, UTF-8)", "[writer]") {
    for (const std::string s : {" ", "!", "#", "[", "]", "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80 !#[]\x7f \xc3\xa9 12345678"})
        REQUIRE(written(s) == reference(s));
}

TEST_CASE("json text: random text is escaped as nlohmann escapes it", "[writer]") {
    std::mt19937 rng(20261205);
    // ASCII with control bytes, quotes and backslashes weighted up, and whole UTF-8 sequences.
    const std::string alphabet = std::string("\"\\\n\t\x01\x1f\x20\x21\x22\x5b\x5c\x5d\x7e\x7f", 14) + "abcdefghijklmnop.:_/";
    const std::string multibyte[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    for (int round = 0; round < 2000; ++round) {
        std::string s;
        const auto length = std::uniform_int_distribution<int>(0, 40)(rng);
        for (int i = 0; i < length; ++i) {
            if (std::uniform_int_distribution<int>(0, 9)(rng) == 0)
                s += multibyte[std::uniform_int_distribution<int>(0, 2)(rng)];
            else
                s += alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
        }
        INFO("round " << round);
        REQUIRE(written(s) == reference(s));
    }
}
