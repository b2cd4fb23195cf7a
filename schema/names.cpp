// The spelling tables of the format's vocabularies (listed once, with meanings, in vocabulary.hpp).
#include "names.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace kbp::schema {
namespace {

// Each table is its list in vocabulary.hpp with "" (unknown) first, indexed by the enum.
#define KBP_SPELLING(id, spelling) std::string_view{spelling},
constexpr std::array format_names{std::string_view{}, KBP_FORMATS(KBP_SPELLING)};
constexpr std::array op_names{std::string_view{}, KBP_OPS(KBP_SPELLING)};
constexpr std::array compute_names{std::string_view{}, KBP_COMPUTES(KBP_SPELLING)};
constexpr std::array where_names{std::string_view{}, KBP_WHERES(KBP_SPELLING)};
constexpr std::array layer_kind_names{std::string_view{}, KBP_LAYER_KINDS(KBP_SPELLING)};
constexpr std::array state_name_names{std::string_view{}, KBP_STATE_NAMES(KBP_SPELLING)};
constexpr std::array state_action_names{std::string_view{}, KBP_STATE_ACTIONS(KBP_SPELLING)};
constexpr std::array row_space_names{std::string_view{}, KBP_ROW_SPACES(KBP_SPELLING)};
constexpr std::array arm_mode_names{std::string_view{}, KBP_ARM_MODES(KBP_SPELLING)};
constexpr std::array requant_at_names{std::string_view{}, KBP_REQUANT_ATS(KBP_SPELLING)};
#undef KBP_SPELLING

// Levenshtein distance, small strings only (hints).
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

}  // namespace

template <> std::span<const std::string_view> name_table<FormatId>() { return format_names; }
template <> std::span<const std::string_view> name_table<OpId>() { return op_names; }
template <> std::span<const std::string_view> name_table<ComputeId>() { return compute_names; }
template <> std::span<const std::string_view> name_table<WhereId>() { return where_names; }
template <> std::span<const std::string_view> name_table<LayerKindId>() { return layer_kind_names; }
template <> std::span<const std::string_view> name_table<StateNameId>() { return state_name_names; }
template <> std::span<const std::string_view> name_table<StateActionId>() {
    return state_action_names;
}
template <> std::span<const std::string_view> name_table<RowSpaceId>() { return row_space_names; }
template <> std::span<const std::string_view> name_table<ArmModeId>() { return arm_mode_names; }
template <> std::span<const std::string_view> name_table<RequantAtId>() { return requant_at_names; }

// Name -> value index of E's table, built once. Names are looked up several times for every
// node and edge read, so this is an open-addressed table with a cheap hash (FNV-1a) and a
// power-of-two mask instead of std::unordered_map's murmur hash and modulo.
class NameIndex {
public:
    explicit NameIndex(std::span<const std::string_view> table) {
        std::size_t size = 8;
        while (size < 2 * table.size()) size *= 2;
        slots_.assign(size, 0);
        mask_ = size - 1;
        table_ = table;
        for (std::size_t i = 1; i < table.size(); ++i) {
            std::size_t at = hash(table[i]) & mask_;
            while (slots_[at] != 0) at = (at + 1) & mask_;
            slots_[at] = static_cast<std::uint32_t>(i);
        }
    }
    // The value index of `name`, or 0 (unknown).
    std::size_t find(std::string_view name) const {
        for (std::size_t at = hash(name) & mask_;; at = (at + 1) & mask_) {
            std::uint32_t i = slots_[at];
            if (i == 0 || table_[i] == name) return i;
        }
    }

private:
    static std::size_t hash(std::string_view s) {
        std::uint64_t h = 14695981039346656037ull;
        for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
    std::vector<std::uint32_t> slots_;  // 0 = empty, else an index into table_
    std::size_t mask_ = 0;
    std::span<const std::string_view> table_;
};

template <class E> const NameIndex& index_of() {
    static const NameIndex index(name_table<E>());
    return index;
}

template <class E> Named<E> Named<E>::parse(std::string_view text) {
    if (std::size_t i = index_of<E>().find(text); i != 0) return Named{static_cast<E>(i), {}};
    return Named{E::unknown, Sym(text)};
}

// Fixed-point formats carry their fractional bits in the name: "fx32/f23".
template <> Named<FormatId> Named<FormatId>::parse(std::string_view text) {
    if (std::size_t i = index_of<FormatId>().find(text); i != 0 && static_cast<FormatId>(i) != FormatId::fx32)
        return Named{static_cast<FormatId>(i), {}};
    constexpr std::string_view fx = "fx32/f";
    if (text.size() > fx.size() && text.substr(0, fx.size()) == fx) {
        int bits = -1;
        auto digits = text.substr(fx.size());
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
        if (ec == std::errc{} && end == digits.data() + digits.size() && bits >= 0 && bits <= 31)
            return Named{FormatId::fx32, Sym(text)};
        if (digits == "?") return Named{FormatId::fx32, Sym(text)};
    }
    return Named{FormatId::unknown, Sym(text)};
}

Format fx32_format(int bits) {
    return Format{FormatId::fx32, "fx32/f" + (bits < 0 ? std::string("?") : std::to_string(bits))};
}

std::string_view format_doc_name(const Format& f) { return f.id == FormatId::fx32 ? "fx32" : f.name(); }

int fx32_fraction_bits(const Format& f) {
    if (f.id != FormatId::fx32) return -1;
    if (f.name() == "fx32/f?") return -1;
    int bits = -1;
    auto digits = f.name().substr(6);
    std::from_chars(digits.data(), digits.data() + digits.size(), bits);
    return bits;
}

std::string_view closest_of(std::string_view text, std::span<const std::string_view> names) {
    std::string_view best;
    std::size_t best_distance = text.size() / 3 + 1;  // only suggest near misses
    for (auto name : names) {
        if (name.empty()) continue;
        std::size_t d = edit_distance(text, name);
        if (d < best_distance || (d == best_distance && best.empty() && d <= 2)) {
            best_distance = d;
            best = name;
        }
    }
    return best;
}

std::string closest_of(std::string_view text, std::span<const std::string> names) {
    std::vector<std::string_view> views(names.begin(), names.end());
    return std::string(closest_of(text, std::span<const std::string_view>(views)));
}

std::string quoted_names(std::span<const std::string> names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
    return out;
}

std::string name_hint(std::string_view text, std::span<const std::string> names, std::string_view plural) {
    if (auto near = closest_of(text, names); !near.empty()) return " (did you mean '" + near + "'?)";
    if (names.empty() || names.size() > 12) return "";
    std::string out = " (" + std::string(plural) + ": ";
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
    return out + ")";
}

std::string closest_unrivalled(std::string_view text, std::span<const std::string> names, std::span<const std::string> rivals) {
    std::string near = closest_of(text, names);
    if (near.empty()) return near;
    const std::size_t d = edit_distance(text, near);
    for (const auto& r : rivals)
        if (edit_distance(text, r) <= d) return "";
    return near;
}

namespace {

// "l3.mlp.down" -> {"l", 3}, "model.layers.3.mlp" -> {"model.layers.", 3}: the text before a name's
// first number and the number, when a '.' follows it (a layer's member); nullopt otherwise.
std::optional<std::pair<std::string_view, long>> layer_of(std::string_view name) {
    auto digit = name.find_first_of("0123456789");
    if (digit == std::string_view::npos) return std::nullopt;
    auto end = name.find_first_not_of("0123456789", digit);
    if (end == std::string_view::npos || name[end] != '.' || end - digit > 9) return std::nullopt;
    long n = 0;
    std::from_chars(name.data() + digit, name.data() + end, n);
    return std::pair{name.substr(0, digit), n};
}

}  // namespace

std::string layered_name_hint(std::string_view text, std::span<const std::string> names, std::string_view plural, std::string_view whose) {
    auto layer = layer_of(text);
    if (!layer) return name_hint(text, names, plural);
    std::vector<std::string> same_layer;
    long lo = -1, hi = -1, count = 0;
    std::vector<long> seen;
    for (const auto& n : names) {
        auto l = layer_of(n);
        if (!l || l->first != layer->first) continue;
        if (l->second == layer->second) same_layer.push_back(n);
        if (std::find(seen.begin(), seen.end(), l->second) != seen.end()) continue;
        seen.push_back(l->second);
        ++count;
        lo = lo < 0 ? l->second : std::min(lo, l->second);
        hi = std::max(hi, l->second);
    }
    if (count == 0) return name_hint(text, names, plural);
    if (same_layer.empty()) {
        const std::string prefix(layer->first);
        return " (" + std::string(whose) + " has " + std::to_string(count) + " layer" + (count == 1 ? "" : "s") + ": " + prefix + std::to_string(lo) +
               (count == 1 ? "" : ".." + prefix + std::to_string(hi)) + ")";
    }
    return name_hint(text, same_layer, plural);
}

template <class E> std::string_view closest_name(std::string_view text) { return closest_of(text, name_table<E>().subspan(1)); }

#define KBP_NAMED(E)                                             \
    template struct Named<E>;                                    \
    template std::string_view closest_name<E>(std::string_view);
KBP_NAMED(OpId)
KBP_NAMED(ComputeId)
KBP_NAMED(WhereId)
KBP_NAMED(LayerKindId)
KBP_NAMED(StateNameId)
KBP_NAMED(StateActionId)
KBP_NAMED(RowSpaceId)
KBP_NAMED(ArmModeId)
KBP_NAMED(RequantAtId)
template std::string_view closest_name<FormatId>(std::string_view);
#undef KBP_NAMED

std::string pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

}  // namespace kbp::schema
