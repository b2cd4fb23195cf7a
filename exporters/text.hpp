// Small text helpers shared by the exporters: escaping for Graphviz labels, and the short
// spellings of bytes, formats and names that labels and legends use.
//
// Graphviz reads two kinds of label. An ordinary label is an "escString": `\n`, `\l`, `\N` ...
// are interpreted, so a backslash must be doubled. An HTML-like label (`<...>`) is XML: `&`, `<`,
// `>` and `"` must be entities. Names (node and subgraph ids) are quoted by cgraph's writer,
// which escapes `"` but not a backslash: a name ending in one would swallow its closing quote,
// so names go through dot_name first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::exporters {

// `&` `<` `>` `"` as entities; control characters shown as the text `\x1b`.
std::string html_escape(std::string_view text);

// A backslash doubled and a newline as `\n`, so Graphviz shows `text` as written; other control
// characters shown as the text `\x1b`.
std::string label_escape(std::string_view text);

// A node or subgraph name as cgraph is given it: a backslash doubled, a newline as `\n`, other
// control characters as `\x1b`; any other name unchanged. Distinct names stay distinct (every
// backslash in the result starts one of these), and Graphviz's parser reads the name back as
// this text.
std::string dot_name(std::string_view name);

// "132 B", "8 KiB", "16.5 KiB", "1.2 MiB": bytes per token, short.
std::string bytes_text(std::int64_t bytes);

// "39,128,916": an integer with thousands separators.
std::string grouped(std::int64_t value);

// The formats an op reads and writes, short: "nvfp4/g16 × bf16 → bf16" (weight × activation →
// output), "bf16 → fp8/token" without a weight, "—" when the node names none; `written` stands
// for an output the op does not have ("bf16 → —" when neither).
std::string precision_signature(const schema::Precision& p, std::string_view written = {});
// As above, for a node: one that writes no tensor shows the state it writes instead
// ("bf16 → kv cache fp8" for kv_write).
std::string precision_signature(const schema::Node& n);

// A node's name inside its block: "q_a" for "l3.dsa.q_a"; the whole id when it does not start
// with the block.
std::string local_name(const schema::Node& n);

// Splits `text` at `sep` boundaries into lines of at most `width` characters (a piece longer
// than `width` gets a line of its own).
std::vector<std::string> wrap(std::string_view text, std::string_view sep, std::size_t width);

}  // namespace kbp::exporters
