#include "schema/bytes.hpp"

#include <cctype>

namespace kbp::schema {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

// Every format of vocabulary.hpp has its bytes: a switch below that misses one fails the build.
#pragma GCC diagnostic error "-Wswitch"

std::optional<std::int64_t> row_bytes(const Format& format, std::int64_t d) {
    switch (format.id) {
        case FormatId::bf16:
        case FormatId::f16: return 2 * d;
        case FormatId::f32:
        case FormatId::i32:
        case FormatId::fx32: return 4 * d;
        case FormatId::i8:
        case FormatId::fp8_tensor:
        case FormatId::int8_static: return d;
        case FormatId::fp8_token:
        case FormatId::int8_token: return d + 4;
        case FormatId::fp8_channel:
        case FormatId::int8_channel: return d;  // the per-channel scales belong to the weight
        case FormatId::nvfp4_g16: return ceil_div(d, 2) + ceil_div(d, 16) + 4;
        case FormatId::mxfp4_g32: return ceil_div(d, 2) + ceil_div(d, 32);
        // MatMulNBits: an f32 scale per block of 128, 4-bit zero points packed two per byte.
        case FormatId::int4_b128: return ceil_div(d, 2) + 4 * ceil_div(d, 128) + ceil_div(ceil_div(d, 128), 2);
        // llama.cpp's Q8_0 (ggml's block_q8_0): 32 int8 codes and an f16 scale, 34 bytes per 32.
        case FormatId::int8_b32: return d + 2 * ceil_div(d, 32);
        // A weight's 128 x 128 blocks: a row of d carries its share of the block scales (weight_bytes is exact).
        case FormatId::fp8_b128: return d + ceil_div(4 * ceil_div(d, 128), 128);
        // Per-token-group FP8 (vLLM's per_token_group_quant_fp8): an f32 scale per 128 values.
        case FormatId::fp8_g128: return d + 4 * ceil_div(d, 128);
        // GPTQ / AWQ / compressed-tensors pack-quantized: codes two a byte, an f16 scale per group,
        // and for the asymmetric ones a 4-bit zero point per group (qzeros, packed eight an int32).
        case FormatId::int4_g128: return ceil_div(d, 2) + 2 * ceil_div(d, 128);
        case FormatId::int4_g128z: return ceil_div(d, 2) + 2 * ceil_div(d, 128) + ceil_div(ceil_div(d, 128), 2);
        case FormatId::int4_g32: return ceil_div(d, 2) + 2 * ceil_div(d, 32);
        case FormatId::int4_g32z: return ceil_div(d, 2) + 2 * ceil_div(d, 32) + ceil_div(ceil_div(d, 32), 2);
        // bitsandbytes' 4-bit: an f32 absmax per 64 codes, or with double quantization an 8-bit
        // absmax per 64 and an f32 scale per 256 absmaxes.
        case FormatId::nf4_b64: return ceil_div(d, 2) + 4 * ceil_div(d, 64);
        case FormatId::nf4_b64dq: return ceil_div(d, 2) + ceil_div(d, 64) + 4 * ceil_div(ceil_div(d, 64), 256);
        case FormatId::unknown: return std::nullopt;
    }
    return std::nullopt;
}

std::optional<std::int64_t> weight_bytes(const Format& format, std::int64_t rows, std::int64_t cols) {
    switch (format.id) {
        case FormatId::fp8_channel:
        case FormatId::int8_channel: return rows * cols + 4 * rows;
        case FormatId::nvfp4_g16: return rows * (ceil_div(cols, 2) + ceil_div(cols, 16)) + 4;
        case FormatId::fp8_b128: return rows * cols + 4 * ceil_div(rows, 128) * ceil_div(cols, 128);
        default: {
            auto r = row_bytes(format, cols);
            if (!r) return std::nullopt;
            return rows * *r;
        }
    }
}

std::vector<bool> nodes_in_expert_rows(const Blueprint& b) {
    // Edges grouped by reader (counting sort), so each node sees all its inputs.
    const std::size_t n = b.nodes.size();
    std::vector<std::uint32_t> first(n + 1, 0), by_reader(b.edges.size());
    for (const auto& e : b.edges)
        if (e.to >= 0 && static_cast<std::size_t>(e.to) < n) ++first[e.to + 1];
    for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (std::size_t k = 0; k < b.edges.size(); ++k) {
        auto to = b.edges[k].to;
        if (to >= 0 && static_cast<std::size_t>(to) < n) by_reader[fill[to]++] = static_cast<std::uint32_t>(k);
    }
    std::vector<bool> expert(n, false);
    // Edges run forward, so a node's inputs are settled before the node.
    for (std::size_t node = 0; node < n; ++node)
        for (auto k = first[node]; k < first[node + 1]; ++k) {
            const Edge& e = b.edges[by_reader[k]];
            if (e.from >= 0 && static_cast<std::size_t>(e.from) < node && edge_in_expert_rows(e, expert)) {
                expert[node] = true;
                break;
            }
        }
    return expert;
}

bool edge_in_expert_rows(const Edge& e, const std::vector<bool>& node_in_expert_rows) {
    if (e.rows) return e.rows->id == RowSpaceId::n_top_k;
    return e.from >= 0 && static_cast<std::size_t>(e.from) < node_in_expert_rows.size() &&
           node_in_expert_rows[e.from];
}

namespace {

template <class Lookup> class DimParser {
public:
    DimParser(std::string_view text, Lookup& lookup) : text_(text), lookup_(lookup) {}

    std::optional<std::int64_t> parse(std::string* error) {
        auto v = sum();
        skip();
        if (v && pos_ != text_.size()) {
            error_ = "unexpected '" + std::string(1, text_[pos_]) + "'";
            v.reset();
        }
        if (!v && error) *error = error_;
        return v;
    }

private:
    void skip() {
        while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
    }
    std::optional<std::int64_t> sum() {
        auto v = product();
        while (v) {
            skip();
            if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-')) break;
            char op = text_[pos_++];
            auto r = product();
            if (!r) return r;
            std::int64_t out;
            if (op == '+' ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out)) return overflow();
            v = out;
        }
        return v;
    }
    std::optional<std::int64_t> product() {
        auto v = atom();
        while (v) {
            skip();
            if (pos_ >= text_.size() || (text_[pos_] != '*' && text_[pos_] != '/')) break;
            char op = text_[pos_++];
            auto r = atom();
            if (!r) return r;
            if (op == '*') {
                std::int64_t out;
                if (__builtin_mul_overflow(*v, *r, &out)) return overflow();
                v = out;
            } else {
                if (*r == 0) {
                    error_ = "division by zero";
                    return std::nullopt;
                }
                v = *v / *r;
            }
        }
        return v;
    }
    std::optional<std::int64_t> atom() {
        skip();
        if (pos_ >= text_.size()) {
            error_ = "unexpected end";
            return std::nullopt;
        }
        char c = text_[pos_];
        if (c == '(') {
            // A dim is a short formula; deep nesting is corrupt input, not arithmetic.
            if (++depth_ > max_depth) {
                error_ = "parentheses nested deeper than " + std::to_string(max_depth);
                return std::nullopt;
            }
            ++pos_;
            auto v = sum();
            --depth_;
            skip();
            if (!v) return v;
            if (pos_ >= text_.size() || text_[pos_] != ')') {
                error_ = "missing ')'";
                return std::nullopt;
            }
            ++pos_;
            return v;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            std::int64_t v = 0;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_++] - '0', &v)) return overflow();
            }
            return v;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t start = pos_;
            while (pos_ < text_.size() &&
                   (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
                ++pos_;
            auto name = text_.substr(start, pos_ - start);
            auto v = lookup_(name);
            if (!v) error_ = "unknown symbol '" + std::string(name) + "'";
            return v;
        }
        error_ = "unexpected '" + std::string(1, c) + "'";
        return std::nullopt;
    }

    std::optional<std::int64_t> overflow() {
        error_ = "value overflows 64 bits";
        return std::nullopt;
    }

    static constexpr int max_depth = 64;
    std::string_view text_;
    Lookup& lookup_;
    std::size_t pos_ = 0;
    int depth_ = 0;
    std::string error_;
};

}  // namespace

std::optional<std::int64_t> eval_dim(std::string_view text, const std::vector<Symbol>& symbols,
                                     std::string* error) {
    auto lookup = [&](std::string_view name) -> std::optional<std::int64_t> {
        for (const auto& s : symbols)
            if (s.name == name) return s.value;
        return std::nullopt;
    };
    DimParser<decltype(lookup)> parser(text, lookup);
    return parser.parse(error);
}

}  // namespace kbp::schema
