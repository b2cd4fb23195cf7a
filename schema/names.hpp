// Closed vocabularies of the kbp-graph/v2 format, each listed once (vocabulary.hpp).
//
// A blueprint names formats, ops, compute kinds, state roles and so on by string. Inside
// the model they are enums so that code switches on them and typos fail to compile; a name
// that a newer planner invented is kept verbatim in `Named::spelling` (id == unknown) and
// written back unchanged, so reading never drops information.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "schema/sym.hpp"
#include "schema/vocabulary.hpp"

namespace kbp::schema {

// Each enum is its list in vocabulary.hpp with `unknown` (0) first.
#define KBP_ENUMERATOR(id, spelling) id,
enum class FormatId : std::uint8_t { unknown, KBP_FORMATS(KBP_ENUMERATOR) };
enum class OpId : std::uint8_t { unknown, KBP_OPS(KBP_ENUMERATOR) };
enum class ComputeId : std::uint8_t { unknown, KBP_COMPUTES(KBP_ENUMERATOR) };
enum class WhereId : std::uint8_t { unknown, KBP_WHERES(KBP_ENUMERATOR) };
enum class LayerKindId : std::uint8_t { unknown, KBP_LAYER_KINDS(KBP_ENUMERATOR) };
enum class StateNameId : std::uint8_t { unknown, KBP_STATE_NAMES(KBP_ENUMERATOR) };
enum class StateActionId : std::uint8_t { unknown, KBP_STATE_ACTIONS(KBP_ENUMERATOR) };
enum class RowSpaceId : std::uint8_t { unknown, KBP_ROW_SPACES(KBP_ENUMERATOR) };
enum class ArmModeId : std::uint8_t { unknown, KBP_ARM_MODES(KBP_ENUMERATOR) };
enum class RequantAtId : std::uint8_t { unknown, KBP_REQUANT_ATS(KBP_ENUMERATOR) };
#undef KBP_ENUMERATOR

// Every known format, in vocabulary order (for tables that must cover them all).
#define KBP_FORMAT_VALUE(id, spelling) FormatId::id,
inline constexpr FormatId known_formats[] = {KBP_FORMATS(KBP_FORMAT_VALUE)};
#undef KBP_FORMAT_VALUE

// The spelling of every known value of E, indexed by the enum's value (index 0 = unknown = "").
template <class E> std::span<const std::string_view> name_table();

// A closed-vocabulary value that still carries a name it did not know.
template <class E> struct Named {
    E id = E::unknown;
    Sym spelling;  // set only when id == unknown, or for parametric names ("fx32/f23")

    static Named parse(std::string_view text);
    std::string_view name() const {
        if (!spelling.empty()) return spelling;
        return name_table<E>()[static_cast<std::size_t>(id)];
    }
    bool known() const { return id != E::unknown; }
    // Two known names without a spelling are equal by id alone: no string compare on the hot path
    // (the validator and the diff compare formats of every edge).
    bool operator==(const Named& o) const {
        if (id != o.id) return false;
        if (spelling == o.spelling) return true;  // interned: one pointer compare (both empty, mostly)
        return name() == o.name();
    }
};

using Format = Named<FormatId>;
using WhereName = Named<WhereId>;
using LayerKind = Named<LayerKindId>;
using RowSpace = Named<RowSpaceId>;
using ArmMode = Named<ArmModeId>;
using RequantAt = Named<RequantAtId>;
using StateName = Named<StateNameId>;
using StateAction = Named<StateActionId>;

// Fixed-point formats carry their fractional bits in the name ("fx32/f23").
template <> Named<FormatId> Named<FormatId>::parse(std::string_view text);

// Fractional bits of an "fx32/f<F>" format, or -1 (not fx32, or "fx32/f?": bits not yet known,
// because no calibrated range decided them).
int fx32_fraction_bits(const Format& f);
// "fx32/f<bits>", or "fx32/f?" for bits < 0.
Format fx32_format(int bits);
// The name that describes a format in `explain.formats`: "fx32" for every fx32/f<F>.
std::string_view format_doc_name(const Format& f);

// Closest known spelling to `text` (for "did you mean" hints), or "" when nothing is close.
template <class E> std::string_view closest_name(std::string_view text);
// The same over any list of names (a data file's members, the catalog's kernels, ...).
std::string_view closest_of(std::string_view text, std::span<const std::string_view> names);
std::string closest_of(std::string_view text, std::span<const std::string> names);
// What to add to "unknown X 'text'": " (did you mean 'x'?)" for a near miss, else the names
// when they are few (" (<plural>: a, b, c)"), else "".
std::string name_hint(std::string_view text, std::span<const std::string> names, std::string_view plural);
// name_hint for names numbered by layer ("l3.mlp.down", "model.layers.3.mlp.down_proj"): a name
// whose layer none of `names` has is answered with the layers there are (" (<whose> has 36
// layers: l0..l35)"), never with another layer's name; a name of a layer that exists is matched
// against that layer's names only.
std::string layered_name_hint(std::string_view text, std::span<const std::string> names, std::string_view plural, std::string_view whose);
// The closest of `names` to `text`, or "" when nothing is close or one of `rivals` is as close: a
// hint must not turn one real name into another ('qwen2_mo' is nearer qwen2_moe, a model kbp does
// not plan, than qwen3_moe, which it does).
std::string closest_unrivalled(std::string_view text, std::span<const std::string> names, std::span<const std::string> rivals);
// "'a', 'b', 'c'": the names a refusal says are planned.
std::string quoted_names(std::span<const std::string> names);
// "a~1b" for the member "a/b": one RFC 6901 reference token of a JSON pointer.
std::string pointer_token(std::string_view key);

}  // namespace kbp::schema
