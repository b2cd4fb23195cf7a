#include "exporters/text.hpp"

#include <cstdio>

namespace kbp::exporters {
namespace {

// "\x1b": a byte shown as text, for control characters no label should carry raw.
void append_hex(std::string& out, unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
}

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

}  // namespace

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 8);
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default:
                // No control characters in XML 1.0: shown as \x1b (a backslash is plain text here).
                if (is_control(static_cast<unsigned char>(c))) append_hex(out, static_cast<unsigned char>(c));
                else out += c;
        }
    }
    return out;
}

std::string label_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 4);
    for (char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (is_control(static_cast<unsigned char>(c))) {
            out += '\\';  // shown as the text \x1b: the escaped backslash, then x1b
            append_hex(out, static_cast<unsigned char>(c));
        } else out += c;
    }
    return out;
}

std::string dot_name(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (char c : name) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (is_control(static_cast<unsigned char>(c))) append_hex(out, static_cast<unsigned char>(c));
        else out += c;
    }
    return out;
}

std::string bytes_text(std::int64_t bytes) {
    char buf[32];
    if (bytes < 1024) {
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    } else {
        double v = static_cast<double>(bytes) / 1024.0;
        const char* unit = "KiB";
        if (v >= 1024.0) {
            v /= 1024.0;
            unit = "MiB";
        }
        if (v >= 100.0 || v == static_cast<double>(static_cast<std::int64_t>(v)))
            std::snprintf(buf, sizeof buf, "%.0f %s", v, unit);
        else
            std::snprintf(buf, sizeof buf, "%.1f %s", v, unit);
    }
    return buf;
}

std::string grouped(std::int64_t value) {
    std::string digits = std::to_string(value < 0 ? -value : value);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return value < 0 ? "-" + out : out;
}

std::string precision_signature(const schema::Precision& p, std::string_view written) {
    std::string in;
    if (p.weight) in = std::string(p.weight->name()) + " × ";
    if (p.activation) in += p.activation->name();
    else if (p.weight) in.resize(in.size() - std::string_view(" × ").size());
    std::string out = p.output ? schema::formats_name(*p.output) : std::string(written);
    if (in.empty() && out.empty()) return "—";
    if (in.empty()) return "→ " + out;
    if (out.empty()) return in + " → —";
    return in + " → " + out;
}

std::string precision_signature(const schema::Node& n) {
    if (n.precision.output || !n.state) return precision_signature(n.precision);
    // An op that writes no tensor writes its state: kv_write's "bf16 → kv cache fp8".
    std::string written;
    for (const auto& role : *n.state) {
        if (role.action.id == schema::StateActionId::read) continue;
        const std::string name(role.state.name());
        const bool cache = name == "kv" || name == "latent" || name == "index" || name == "k" || name == "v";
        written = name + (cache ? " cache" : " state");
        for (const char* key : {"kv_dtype", "state_dtype"})
            if (const auto* dtype = n.point.find(key); dtype && dtype->is_string()) written += " " + dtype->string();
        break;
    }
    return precision_signature(n.precision, written);
}

std::string local_name(const schema::Node& n) {
    if (!n.block.empty() && n.id.size() > n.block.size() + 1 && n.id.compare(0, n.block.size(), n.block) == 0 &&
        n.id[n.block.size()] == '.')
        return n.id.substr(n.block.size() + 1);
    return n.id;
}

std::vector<std::string> wrap(std::string_view text, std::string_view sep, std::size_t width) {
    std::vector<std::string> lines;
    std::string line;
    while (!text.empty()) {
        auto at = text.find(sep);
        std::string_view piece = text.substr(0, at == std::string_view::npos ? text.size() : at + sep.size());
        text.remove_prefix(piece.size());
        if (!line.empty() && line.size() + piece.size() > width) {
            lines.push_back(line);
            line.clear();
        }
        line += piece;
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

}  // namespace kbp::exporters
