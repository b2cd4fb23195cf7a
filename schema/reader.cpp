// simdjson DOM -> Blueprint. One pass over each object's members; a member this version
// does not know goes to `extras`. Shape errors are thrown as ShapeError inside this file and
// returned as a Result at the boundary; JSON pointers are built only when an error happens.
#include "reader.hpp"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <functional>
#include <span>

#include "file_io.hpp"
#include "record_fields.hpp"
#include "spelling_memo.hpp"

namespace kbp::schema {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// A JSON pointer, kept as a chain of stack frames and rendered only on error.
struct Path {
    const Path* parent = nullptr;
    std::string_view key;
    std::size_t index = 0;
    bool is_index = false;

    Path operator/(std::string_view k) const { return Path{this, k, 0, false}; }
    Path operator/(std::size_t i) const { return Path{this, {}, i, true}; }

    std::string render() const {
        std::string tail;
        if (parent) {
            tail = parent->render() + "/";
            if (is_index) {
                tail += std::to_string(index);
            } else {
                for (char c : key) {  // RFC 6901 escapes
                    if (c == '~') tail += "~0";
                    else if (c == '/') tail += "~1";
                    else tail += c;
                }
            }
        }
        return tail;
    }
};

struct ShapeError {
    std::string pointer;
    std::string message;
};

[[noreturn]] void fail(const Path& p, std::string message) {
    std::string ptr = p.render();
    throw ShapeError{ptr.empty() ? "/" : ptr, std::move(message)};
}

std::string_view type_name(element_type t) {
    switch (t) {
        case element_type::ARRAY: return "an array";
        case element_type::OBJECT: return "an object";
        case element_type::INT64:
        case element_type::UINT64: return "an integer";
        case element_type::DOUBLE: return "a number";
        case element_type::STRING: return "a string";
        case element_type::BOOL: return "a boolean";
        case element_type::NULL_VALUE: return "null";
    }
    return "a value";
}

[[noreturn]] void wrong_type(element e, const Path& p, std::string_view expected) {
    fail(p, "expected " + std::string(expected) + ", found " + std::string(type_name(e.type())));
}

std::string read_string(element e, const Path& p) {
    std::string_view s;
    if (e.get_string().get(s)) wrong_type(e, p, "a string");
    return std::string(s);
}

bool read_bool(element e, const Path& p) {
    bool b;
    if (e.get_bool().get(b)) wrong_type(e, p, "a boolean");
    return b;
}

std::int64_t read_int(element e, const Path& p, std::int64_t lo, std::int64_t hi) {
    std::int64_t v;
    if (e.type() == element_type::UINT64) fail(p, "number out of range (at most " + std::to_string(hi) + ")");
    if (e.type() == element_type::DOUBLE) {
        double d = e.get_double().value_unsafe();
        fail(p, "expected an integer, found " + std::to_string(d));
    }
    if (e.get_int64().get(v)) wrong_type(e, p, "an integer");
    if (v < lo) fail(p, "number out of range (" + std::to_string(v) + " < " + std::to_string(lo) + ")");
    if (v > hi) fail(p, "number out of range (" + std::to_string(v) + " > " + std::to_string(hi) + ")");
    return v;
}

std::optional<std::int64_t> read_int_or_null(element e, const Path& p, std::int64_t lo, std::int64_t hi) {
    if (e.is_null()) return std::nullopt;
    return read_int(e, p, lo, hi);
}

simdjson::dom::array read_array(element e, const Path& p) {
    simdjson::dom::array a;
    if (e.get_array().get(a)) wrong_type(e, p, "an array");
    return a;
}

simdjson::dom::object read_object(element e, const Path& p) {
    simdjson::dom::object o;
    if (e.get_object().get(o)) wrong_type(e, p, "an object");
    return o;
}

template <class F> void each(element e, const Path& p, F&& f) {
    std::size_t i = 0;
    for (element item : read_array(e, p)) {
        f(item, p / i);
        ++i;
    }
}

// Reads an array of objects straight into `out` (no temporaries: plans have thousands).
template <class T, class F> void read_list(element e, const Path& p, std::vector<T>& out, F&& read_into) {
    auto array = read_array(e, p);
    out.reserve(out.size() + array.size());
    std::size_t i = 0;
    for (element item : array) {
        read_into(out.emplace_back(), item, p / i);
        ++i;
    }
}

// Lists are sized once from the DOM (which knows their length): no regrowth per item.
// Name: std::string, or Sym for the names every node repeats (interned from the DOM's bytes).
template <class Name = std::string> std::vector<Name> read_strings(element e, const Path& p) {
    std::vector<Name> out;
    out.reserve(read_array(e, p).size());
    each(e, p, [&](element item, const Path& ip) {
        std::string_view s;
        if (item.get_string().get(s)) wrong_type(item, ip, "a string");
        out.emplace_back(s);
    });
    return out;
}

// The reader's memos (spelling_memo.hpp), one per thread and kind of value.
template <class Value, std::size_t Slots = 128> SpellingMemo<Value, Slots>& memo() {
    thread_local SpellingMemo<Value, Slots> m;
    return m;
}
SpellingMemo<Sym, 1024>& sym_memo() { return memo<Sym, 1024>(); }

Sym memo_sym(std::string_view s) {
    return sym_memo().get(s, [](std::string_view t) { return Sym(t); });
}

// A list of names every node repeats (steps, roles, a group's kernels): remembered whole.
SymList read_sym_list(element e, const Path& p) {
    thread_local SymListMemo<> lists;
    auto array = read_array(e, p);
    // Left uninitialized: only the first n are read.
    alignas(std::string_view) unsigned char storage[SymListMemo<>::max_items * sizeof(std::string_view)];
    auto* items = reinterpret_cast<std::string_view*>(storage);
    constexpr std::size_t capacity = SymListMemo<>::max_items;
    std::size_t n = 0;
    for (element item : array) {
        if (n == capacity) return SymList(read_strings<Sym>(e, p));  // too long to remember
        std::string_view text;
        if (item.get_string().get(text)) wrong_type(item, p / n, "a string");
        new (items + n) std::string_view(text);
        ++n;
    }
    return lists.get(std::span<const std::string_view>(items, n), [](std::span<const std::string_view> names) {
        std::vector<Sym> out;
        out.reserve(names.size());
        for (std::string_view s : names) out.push_back(memo_sym(s));
        return SymList(out);
    });
}

std::vector<std::int64_t> read_ints(element e, const Path& p, std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> out;
    out.reserve(read_array(e, p).size());
    each(e, p, [&](element item, const Path& ip) { out.push_back(read_int(item, ip, lo, hi)); });
    return out;
}

JsonValue to_json(element e) {
    switch (e.type()) {
        case element_type::NULL_VALUE: return nullptr;
        case element_type::BOOL: return e.get_bool().value_unsafe();
        case element_type::INT64: return e.get_int64().value_unsafe();
        case element_type::UINT64: return e.get_uint64().value_unsafe();
        case element_type::DOUBLE: return e.get_double().value_unsafe();
        case element_type::STRING: return std::string(e.get_string().value_unsafe());
        case element_type::ARRAY: {
            JsonArray a;
            simdjson::dom::array items = e.get_array().value_unsafe();
            a.reserve(items.size());
            for (element item : items) a.push_back(to_json(item));
            return a;
        }
        case element_type::OBJECT: {
            JsonObject o;
            simdjson::dom::object fields = e.get_object().value_unsafe();
            o.reserve(fields.size());
            for (auto field : fields)
                o.emplace_back(std::string(field.key), to_json(field.value));
            return o;
        }
    }
    return nullptr;
}

// The members an object may have: a member's slot in `keys`, or -1 for an unknown member.
// Required members are checked after the pass, so one error names the first one missing.
class Members {
public:
    Members(std::span<const std::string_view> keys, std::uint64_t required)
        : keys_(keys), required_(required) {}

    // Members usually come in the format's order, so the search starts after the last match.
    int slot(std::string_view key) {
        const auto n = static_cast<int>(keys_.size());
        for (int step = 0, i = next_; step < n; ++step, i = i + 1 == n ? 0 : i + 1) {
            if (same_spelling(keys_[i], key)) {
                if (seen_ & (std::uint64_t{1} << i)) return -2;  // duplicate
                seen_ |= std::uint64_t{1} << i;
                next_ = i + 1 == n ? 0 : i + 1;
                return i;
            }
        }
        return -1;
    }
    bool seen(int i) const { return seen_ & (std::uint64_t{1} << i); }
    // Member i was read outside slot() (read_record's in-order pass): the search resumes after it.
    void mark(int i) {
        seen_ |= std::uint64_t{1} << i;
        next_ = i + 1 == static_cast<int>(keys_.size()) ? 0 : i + 1;
    }
    void check(const Path& p) const {
        std::uint64_t missing = required_ & ~seen_;
        if (!missing) return;
        int i = 0;
        for (auto k : keys_) {
            if (missing & (std::uint64_t{1} << i)) fail(p, "missing required member '" + std::string(k) + "'");
            ++i;
        }
    }

private:
    std::span<const std::string_view> keys_;
    std::uint64_t required_;
    std::uint64_t seen_ = 0;
    int next_ = 0;
};

// Walks the members from `it` on, dispatching known ones to `on` and keeping the rest in `extras`.
template <class F>
void remaining_members(simdjson::dom::object::iterator it, simdjson::dom::object::iterator end, const Path& p, Members& m,
                       Extras& extras, F&& on) {
    for (; it != end; ++it) {
        std::string_view key = it.key();
        int s = m.slot(key);
        if (s == -2) fail(p / key, "duplicate member '" + std::string(key) + "'");
        if (s < 0) {
            extras.emplace_back(std::string(key), to_json(it.value()));
            continue;
        }
        on(s, it.value(), p / key);
    }
    m.check(p);
}

// Walks an object's members, dispatching known ones to `on` and keeping the rest in `extras`.
template <class F>
void members(element e, const Path& p, Members& m, Extras& extras, F&& on) {
    auto object = read_object(e, p);
    remaining_members(object.begin(), object.end(), p, m, extras, std::forward<F>(on));
}

template <class E> Named<E> read_name(element e, const Path& p) {
    std::string_view s;
    if (e.get_string().get(s)) wrong_type(e, p, "a string");
    if (s.empty()) fail(p, "empty name");
    return memo<Named<E>>().get(s, [](std::string_view t) { return Named<E>::parse(t); });
}

template <class E> std::optional<Named<E>> read_name_or_null(element e, const Path& p) {
    if (e.is_null()) return std::nullopt;
    return read_name<E>(e, p);
}

Op read_op(element e, const Path& p) {
    std::string_view text;
    if (e.get_string().get(text)) wrong_type(e, p, "a string");
    if (text.empty()) fail(p, "empty op");
    const Op& op = memo<Op>().get(text, [](std::string_view t) { return Op::parse(t); });
    if (op.kind.id == OpId::linear && op.role.empty()) fail(p, "a projection names its role: 'linear:<role>'");
    return op;
}

JsonValue read_point(element e, const Path& p) {
    if (!e.is_null() && e.type() != element_type::OBJECT) wrong_type(e, p, "an object or null");
    return to_json(e);
}

// {"F_out": 24, "F_in": null}: names in the kernel's order, each an integer or null.
TemplateArgs read_template_args(element e, const Path& p) {
    TemplateArgs out;
    for (auto field : read_object(e, p)) {
        const Path fp = p / field.key;
        if (field.key.empty()) fail(fp, "empty template argument name");
        for (const auto& a : out)
            if (a.name == field.key) fail(fp, "duplicate template argument '" + std::string(field.key) + "'");
        out.push_back({std::string(field.key), read_int_or_null(field.value, fp, -max_template_value, max_template_value)});
    }
    return out;
}

// ---- described records (record_fields.hpp): one reader per member type --------------------

struct Range {
    std::int64_t lo, hi;
};

void read_value(std::string& out, element e, const Path& p, Range) { out = read_string(e, p); }
// Interned straight from the DOM's bytes: no std::string in between.
Sym read_sym(element e, const Path& p) {
    std::string_view s;
    if (e.get_string().get(s)) wrong_type(e, p, "a string");
    return memo_sym(s);
}
void read_value(Sym& out, element e, const Path& p, Range) { out = read_sym(e, p); }
void read_value(SymList& out, element e, const Path& p, Range) { out = read_sym_list(e, p); }
void read_value(std::int64_t& out, element e, const Path& p, Range r) { out = read_int(e, p, r.lo, r.hi); }
void read_value(bool& out, element e, const Path& p, Range) { out = read_bool(e, p); }
void read_value(std::vector<std::string>& out, element e, const Path& p, Range) { out = read_strings(e, p); }
void read_value(std::vector<std::int64_t>& out, element e, const Path& p, Range r) { out = read_ints(e, p, r.lo, r.hi); }
template <class E> void read_value(Named<E>& out, element e, const Path& p, Range) { out = read_name<E>(e, p); }
void read_value(Op& out, element e, const Path& p, Range) { out = read_op(e, p); }
void read_value(JsonValue& out, element e, const Path& p, Range) { out = read_point(e, p); }
void read_value(TemplateArgs& out, element e, const Path& p, Range) { out = read_template_args(e, p); }

// "bf16,f32,f32": a multi-output op's formats.
void read_value(FormatList& out, element e, const Path& p, Range) {
    std::string_view text;
    if (e.get_string().get(text)) wrong_type(e, p, "a string");
    out = memo<FormatList>().get(text, [&](std::string_view rest) {
        std::vector<Format> formats;
        while (true) {
            auto comma = rest.find(',');
            auto item = rest.substr(0, comma);
            if (item.empty()) fail(p, "empty format name in '" + std::string(text) + "'");
            formats.push_back(Format::parse(item));
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
        return FormatList(formats);
    });
}

void read_value(Compute& out, element e, const Path& p, Range) {
    std::string_view text;
    if (e.get_string().get(text)) wrong_type(e, p, "a string");
    if (text.empty()) fail(p, "empty compute kind");
    out = memo<Compute>().get(text, [](std::string_view t) { return Compute::parse(t); });
}

void read_value(std::vector<StateRole>& out, element e, const Path& p, Range) {
    std::string_view text;
    if (e.get_string().get(text)) wrong_type(e, p, "a string");
    if (text.empty()) fail(p, "empty state role");
    out = memo<std::vector<StateRole>>().get(text, [](std::string_view t) { return parse_state_roles(t); });
}

template <Described T> void read_value(T& out, element e, const Path& p, Range);
template <class T> void read_value(std::vector<T>& out, element e, const Path& p, Range r);

// symbols: {"hidden": 4096, ...}, each value in the field's range.
void read_value(std::vector<Symbol>& out, element e, const Path& p, Range r) {
    for (auto field : read_object(e, p)) out.push_back(Symbol{std::string(field.key), read_int(field.value, p / field.key, r.lo, r.hi)});
}

// config_fields: the model config's own object, kept as it is.
void read_value(JsonObject& out, element e, const Path& p, Range) {
    if (e.type() != element_type::OBJECT) wrong_type(e, p, "an object");
    JsonValue value = to_json(e);
    out = std::move(value.object());  // moved: a copy was a third of a load's allocations
}

// A nullable member: null, or the value.
template <class T> void read_value(std::optional<T>& out, element e, const Path& p, Range r) {
    if (e.is_null()) {
        out.reset();
        return;
    }
    read_value(out.emplace(), e, p, r);
}

template <class T> constexpr bool is_optional = false;
template <class T> constexpr bool is_optional<std::optional<T>> = true;

template <Described T> void read_record(T& out, element e, const Path& p);

// A list written as an object keyed by its items' names (Shape::keyed_by_name).
template <class T> void read_keyed(std::vector<T>& out, element e, const Path& p) {
    for (auto field : read_object(e, p)) {
        T& item = out.emplace_back();
        item.name = std::string(field.key);
        read_record(item, field.value, p / field.key);
    }
}

// ---- each field's own memo (spelling_memo.hpp's LastSpelling) ------------------------------
//
// Only the in-order pass (read_record) uses them: it knows which field it reads at compile
// time. The value types are those a plan repeats from record to record; a hit is the value the
// general reader gave for the same text, so checks it makes (empty names, a projection's role)
// have already passed. Misses, and members read out of order, take the general way.

// Field I of Record: names its memo.
template <class Record, std::size_t I> struct FieldSite {};

template <class V> constexpr bool is_named = false;
template <class E> constexpr bool is_named<Named<E>> = true;
template <class V>
constexpr bool remembered_by_spelling = is_named<V> || std::is_same_v<V, Op> || std::is_same_v<V, Compute> ||
                                         std::is_same_v<V, FormatList>;

template <class Site, class V> LastSpelling<V>& field_memo() {
    thread_local LastSpelling<V> memo;
    return memo;
}

template <class Site, class V> void read_remembered(V& out, element e, const Path& p, Range r) {
    if constexpr (std::is_same_v<V, Sym>) {
        // A Sym is its own spelling: the last one read is the memo.
        thread_local Sym last;
        std::string_view text;
        if (!e.get_string().get(text) && !last.empty() && same_spelling(text, last.view())) {
            out = last;
            return;
        }
        read_value(out, e, p, r);
        last = out;
    } else if constexpr (std::is_same_v<V, SymList>) {
        // A list of Syms: the last list read, compared item by item with the array.
        thread_local std::optional<SymList> last;
        simdjson::dom::array array;
        if (last && !e.get_array().get(array) && array.size() == last->size()) {
            std::size_t i = 0;
            bool same = true;
            for (element item : array) {
                std::string_view text;
                if (item.get_string().get(text) || !same_spelling(text, (*last)[i].view())) {
                    same = false;
                    break;
                }
                ++i;
            }
            if (same) {
                out = *last;
                return;
            }
        }
        read_value(out, e, p, r);
        last = out;
    } else if constexpr (remembered_by_spelling<V>) {
        LastSpelling<V>& memo = field_memo<Site, V>();
        std::string_view text;
        bool is_string = !e.get_string().get(text);
        if (is_string)
            if (const V* hit = memo.find(text)) {
                out = *hit;
                return;
            }
        read_value(out, e, p, r);
        if (is_string) memo.remember(text, out);
    } else {
        read_value(out, e, p, r);
    }
}

// One member of a described record, by its table entry. Site: the field's memo (FieldSite), or
// void for none.
template <class Site = void, class T, class F> void read_member(T& record, const F& f, element v, const Path& vp) {
    auto& value = record.*(f.member);
    Range range{f.lo, f.hi};
    if constexpr (F::shape == Shape::keyed_by_name) {
        read_keyed(value, v, vp);
        return;
    }
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, JsonValue>) {
        // null is how such a member is absent, so a file that has it holds an object.
        if (f.presence == Presence::unless_null && v.type() != element_type::OBJECT) wrong_type(v, vp, "an object");
    }
    if constexpr (is_optional<std::decay_t<decltype(value)>>) {
        if (f.presence == Presence::optional_or_null && v.is_null()) {
            value.reset();
            return;
        }
        if (!always_written(f.presence)) {
            if constexpr (std::is_void_v<Site>) read_value(value.emplace(), v, vp, range);
            else read_remembered<Site>(value.emplace(), v, vp, range);
            return;
        }
    }
    if constexpr (std::is_void_v<Site>) read_value(value, v, vp, range);
    else if constexpr (is_optional<std::decay_t<decltype(value)>>) {
        // A nullable member (always written, null when absent): null, or the value remembered.
        if (v.is_null()) value.reset();
        else read_remembered<Site>(value.emplace(), v, vp, range);
    } else {
        read_remembered<Site>(value, v, vp, range);
    }
}

// The member names of T's table, and the slots a record must have. A Shape::inlined field
// gives the slots of its sub-record's members, none of them required by the parent.
template <class F> constexpr std::size_t slots_of() {
    if constexpr (F::shape == Shape::inlined) return field_count<typename F::member_type::value_type>();
    else return 1;
}

template <Described T> constexpr std::size_t slot_count() {
    std::size_t n = 0;
    for_each_field<T>([&](const auto& f) { n += slots_of<std::decay_t<decltype(f)>>(); });
    return n;
}

template <Described T> constexpr auto member_names() {
    std::array<std::string_view, slot_count<T>()> names{};
    std::size_t i = 0;
    for_each_field<T>([&](const auto& f) {
        using F = std::decay_t<decltype(f)>;
        if constexpr (F::shape == Shape::inlined) {
            for (auto name : member_names<typename F::member_type::value_type>()) names[i++] = name;
        } else {
            names[i++] = f.json;
        }
    });
    return names;
}

template <Described T> constexpr std::uint64_t required_slots() {
    std::uint64_t mask = 0;
    std::size_t i = 0;
    for_each_field<T>([&](const auto& f) {
        if (f.presence == Presence::required && std::decay_t<decltype(f)>::shape != Shape::inlined) mask |= std::uint64_t{1} << i;
        i += slots_of<std::decay_t<decltype(f)>>();
    });
    return mask;
}

template <Described T> void read_record_with_inlined(T& out, element e, const Path& p);

template <Described T> void read_record(T& out, element e, const Path& p) {
    if constexpr (has_inlined<T>()) {
        read_record_with_inlined(out, e, p);
        return;
    }
    static_assert(field_count<T>() <= 64, "Members keeps one bit per member");
    static constexpr auto names = member_names<T>();
    Members m(names, required_slots<T>());
    auto object = read_object(e, p);
    auto it = object.begin();
    const auto end = object.end();
    // kbp writes a record's members in its table's order, so one pass down the table meets them
    // in turn: each field compares the next member's key with its own name (a constant) and, when
    // they match, reads it with no search and no dispatch. A field the record leaves out (an
    // absent optional) costs one compare. Whatever the pass leaves (members out of order,
    // duplicates, unknown members) goes the general way below, in the object's order as before.
    for_each_field_at<T>([&](const auto& f, auto slot) {
        if (it != end && same_spelling(it.key(), f.json)) {
            m.mark(static_cast<int>(slot()));
            read_member<FieldSite<T, slot()>>(out, f, it.value(), p / f.json);
            ++it;
        }
    });
    remaining_members(it, end, p, m, out.extras, [&](int s, element v, const Path& vp) {
        with_field<T>(static_cast<std::size_t>(s), [&](const auto& f) { read_member(out, f, v, vp); });
    });
}

template <Described T> void read_value(T& out, element e, const Path& p, Range) { read_record(out, e, p); }

// A list: each item by its own reader (described records, rows of instance values).
template <class T> void read_value(std::vector<T>& out, element e, const Path& p, Range r) {
    read_list(e, p, out, [r](T& item, element x, const Path& xp) { read_value(item, x, xp, r); });
}

// A record with a Shape::inlined field (a template edge): its own members and its sub-record's
// share one object. The sub-record is there when its first member is, and then needs all of
// its required members.
template <Described T> void read_record_with_inlined(T& out, element e, const Path& p) {
    static constexpr auto names = member_names<T>();
    static_assert(names.size() <= 64, "Members keeps one bit per member");
    Members m(names, required_slots<T>());
    members(e, p, m, out.extras, [&](int s, element v, const Path& vp) {
        std::size_t first = 0;
        for_each_field<T>([&](const auto& f) {
            using F = std::decay_t<decltype(f)>;
            const std::size_t slot = static_cast<std::size_t>(s);
            if constexpr (F::shape == Shape::inlined) {
                using Sub = typename F::member_type::value_type;
                if (slot >= first && slot < first + field_count<Sub>()) {
                    auto& sub = out.*(f.member);
                    if (!sub) sub.emplace();
                    with_field<Sub>(slot - first, [&](const auto& g) { read_member(*sub, g, v, vp); });
                }
            } else {
                if (slot == first) read_member(out, f, v, vp);
            }
            first += slots_of<F>();
        });
    });
    std::size_t first = 0;
    for_each_field<T>([&](const auto& f) {
        using F = std::decay_t<decltype(f)>;
        if constexpr (F::shape == Shape::inlined) {
            using Sub = typename F::member_type::value_type;
            auto& sub = out.*(f.member);
            if (!m.seen(static_cast<int>(first))) {
                sub.reset();
            } else {
                constexpr std::uint64_t needed = required_slots<Sub>();
                for (std::size_t k = 0; k < field_count<Sub>(); ++k)
                    if ((needed >> k & 1) && !m.seen(static_cast<int>(first + k))) {
                        std::string list;
                        for (std::size_t j = 0; j < field_count<Sub>(); ++j)
                            if (needed >> j & 1) list += (list.empty() ? "" : ", ") + std::string(names[first + j]);
                        fail(p, "an edge with " + std::string(f.json) + " needs all of " + list);
                    }
            }
        }
        first += slots_of<F>();
    });
}

// ---- the document root: its table, plus the schema check and the collapsed-only rule -------

constexpr auto root_keys = member_names<Blueprint>();
constexpr int root_schema = static_cast<int>(field_index<Blueprint>("schema"));
constexpr int root_nodes = static_cast<int>(root_flat_lists[0]), root_edges = static_cast<int>(root_flat_lists[1]),
              root_groups = static_cast<int>(root_flat_lists[2]);
constexpr int root_collapsed = static_cast<int>(field_index<Blueprint>("collapsed"));
// The flat lists are required unless the collapsed form stands alone: finish_root checks them.
constexpr std::uint64_t root_required = required_slots<Blueprint>() & ~((std::uint64_t{1} << root_nodes) |
                                                                          (std::uint64_t{1} << root_edges) |
                                                                          (std::uint64_t{1} << root_groups));

// One member of the root object, by its slot in root_keys.
void read_root_member(Blueprint& b, int s, element v, const Path& vp) {
    with_field<Blueprint>(static_cast<std::size_t>(s), [&](const auto& f) { read_member(b, f, v, vp); });
    if (s == root_schema && b.schema != schema_name) {
        std::string hint = b.schema.rfind("kbp-graph/", 0) == 0 ? " (this kbp reads kbp-graph/v2)" : "";
        fail(vp, "unknown schema '" + b.schema + "'" + hint);
    }
}

// The flat lists may be left out when the collapsed form is there (kbp collapse --only).
void finish_root(Blueprint& b, const Members& m, const Path& p) {
    bool flat = m.seen(root_nodes) || m.seen(root_edges) || m.seen(root_groups);
    if (!flat && m.seen(root_collapsed)) {
        b.collapsed_only = true;
    } else {
        if (!m.seen(root_nodes)) fail(p, "missing required member 'nodes'");
        if (!m.seen(root_edges)) fail(p, "missing required member 'edges'");
        if (!m.seen(root_groups)) fail(p, "missing required member 'groups'");
    }
}

Blueprint read_root(element root) {
    Blueprint b;
    Path p;
    Members m(root_keys, root_required);
    members(root, p, m, b.extras, [&](int s, element v, const Path& vp) { read_root_member(b, s, v, vp); });
    finish_root(b, m, p);
    return b;
}

// ---- big plans, a piece at a time ----------------------------------------------------------
//
// simdjson's DOM of a whole plan is about 2.9 times the file (its tape and string copies), so a
// million-node plan would need the file, the DOM and the model at once. A big plan is instead
// read member by member: a light scan finds where each top-level member and each element of
// the flat lists begins and ends, and simdjson parses one piece (a few MB of list elements,
// copied with "[" "]" around them) at a time into the same readers as above. The scan checks
// only the structure between pieces; simdjson checks each piece. Anything unexpected (a syntax
// error, an escaped key, a shape error) is not reported from here: the caller reads the whole
// file the ordinary way, which reports it exactly as for a small file.

struct NotStreamable {};

class PieceReader {
public:
    PieceReader(std::string_view text, std::size_t piece_bytes, const std::function<void(std::size_t)>& done_before)
        : text_(text), piece_bytes_(piece_bytes), done_before_(done_before) {}
    // Skips the flat lists (scanned for their end, not parsed): read() then gives the rest.
    void skip_lists() { skip_lists_ = true; }
    bool skipped_lists() const { return skipped_; }

    Blueprint read() {
        Blueprint b;
        Path p;
        Members m(root_keys, root_required);
        std::size_t i = skip_space(0);
        expect(i, '{');
        i = skip_space(i + 1);
        if (peek(i) == '}') {
            i = skip_space(i + 1);
        } else {
            while (true) {
                auto [key, after_key] = scan_key(i);
                i = skip_space(after_key);
                expect(i, ':');
                i = skip_space(i + 1);
                const Path vp = p / key;
                int s = m.slot(key);
                if (s == -2) throw NotStreamable{};
                if ((s == root_nodes || s == root_edges || s == root_groups) && peek(i) == '[' && skip_lists_) {
                    i = skip_list(i);
                    skipped_ = true;
                } else if ((s == root_nodes || s == root_edges || s == root_groups) && peek(i) == '[') {
                    if (s == root_nodes) i = read_pieces(b.nodes, i, vp);
                    if (s == root_edges) i = read_pieces(b.edges, i, vp);
                    if (s == root_groups) i = read_pieces(b.groups, i, vp);
                } else {
                    std::size_t end = skip_value(i);
                    element v = parse_piece(text_.substr(i, end - i), false);
                    if (s < 0)
                        b.extras.emplace_back(std::string(key), to_json(v));
                    else
                        read_root_member(b, s, v, vp);
                    i = end;
                }
                i = skip_space(i);
                if (peek(i) == ',') {
                    i = skip_space(i + 1);
                    continue;
                }
                expect(i, '}');
                i = skip_space(i + 1);
                break;
            }
        }
        if (i != text_.size()) throw NotStreamable{};
        m.check(p);
        finish_root(b, m, p);
        return b;
    }

private:
    char peek(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
    void expect(std::size_t i, char c) const {
        if (peek(i) != c) throw NotStreamable{};
    }
    std::size_t skip_space(std::size_t i) const {
        while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\n' || text_[i] == '\r' || text_[i] == '\t')) ++i;
        return i;
    }
    // A key without escapes or non-ASCII bytes (every key of the format); others are not streamed.
    std::pair<std::string_view, std::size_t> scan_key(std::size_t i) const {
        expect(i, '"');
        std::size_t end = i + 1;
        while (end < text_.size() && text_[end] != '"') {
            auto c = static_cast<unsigned char>(text_[end]);
            if (c == '\\' || c < 0x20 || c >= 0x80) throw NotStreamable{};
            ++end;
        }
        if (end >= text_.size()) throw NotStreamable{};
        return {text_.substr(i + 1, end - i - 1), end + 1};
    }
    // i at a string's opening quote: the index after its closing quote.
    std::size_t skip_string(std::size_t i) const {
        const std::size_t n = text_.size();
        for (++i; i < n && text_[i] != '"';) i += text_[i] == '\\' ? 2 : 1;
        if (i >= n) throw NotStreamable{};
        return i + 1;
    }
    // The end of the value starting at i: strings with their escapes, containers by depth,
    // scalars up to the next delimiter. It does not validate: simdjson parses the value.
    std::size_t skip_value(std::size_t i) const {
        const std::size_t n = text_.size();
        char c = peek(i);
        if (c == '"') return skip_string(i);
        if (c == '{' || c == '[') {
            std::size_t depth = 0;
            while (i < n) {
                c = text_[i];
                if (c == '"') {
                    i = skip_string(i);
                    continue;
                }
                ++i;
                if (c == '{' || c == '[') ++depth;
                else if ((c == '}' || c == ']') && --depth == 0) return i;
            }
            throw NotStreamable{};
        }
        while (i < n && c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n' && c != '\r' && c != '\t') c = peek(++i);
        return i;
    }
    // The end of the list or object at i, as skip_value finds it but faster (a plan read without
    // its lists still scans them: 800 MB of a million-op plan): the bytes outside strings are
    // passed over by a table, a string by memchr to its closing quote.
    std::size_t skip_list(std::size_t i) const {
        static constexpr auto structural = [] {
            std::array<bool, 256> t{};
            for (unsigned char c : std::string_view("\"[]{}")) t[c] = true;
            return t;
        }();
        const char* p = text_.data();
        const std::size_t n = text_.size();
        std::size_t depth = 0;
        while (i < n) {
            while (i < n && !structural[static_cast<unsigned char>(p[i])]) ++i;
            if (i >= n) break;
            const char c = p[i++];
            if (c == '"') {
                while (true) {  // to the quote no odd run of backslashes escapes
                    const void* q = std::memchr(p + i, '"', n - i);
                    if (!q) throw NotStreamable{};
                    std::size_t at = static_cast<std::size_t>(static_cast<const char*>(q) - p), back = at;
                    while (back > i && p[back - 1] == '\\') --back;
                    i = at + 1;
                    if ((at - back) % 2 == 0) break;
                }
            } else if (c == '[' || c == '{') {
                ++depth;
            } else if (--depth == 0) {
                return i;
            }
        }
        throw NotStreamable{};
    }
    // Parses `piece` (copied: the parser reads past its end); as a list when `list`.
    element parse_piece(std::string_view piece, bool list) {
        buffer_.clear();
        buffer_.reserve(piece.size() + 2 + simdjson::SIMDJSON_PADDING);
        if (list) buffer_ += '[';
        buffer_.append(piece);
        if (list) buffer_ += ']';
        element e;
        if (parser_.parse(buffer_.data(), buffer_.size(), false).get(e)) throw NotStreamable{};
        return e;
    }
    // A flat list, piece_bytes_ of elements at a time; returns the index after its ']'.
    template <class T> std::size_t read_pieces(std::vector<T>& out, std::size_t i, const Path& p) {
        i = skip_space(i + 1);
        std::size_t index = 0;
        if (peek(i) == ']') return i + 1;
        while (true) {
            const std::size_t first = i;
            std::size_t end = i;
            bool last = false;
            do {
                end = skip_value(i);
                i = skip_space(end);
                if (peek(i) == ']') {
                    last = true;
                    break;
                }
                expect(i, ',');
                i = skip_space(i + 1);
            } while (end - first < piece_bytes_);
            element piece = parse_piece(text_.substr(first, end - first), true);
            simdjson::dom::array items = piece.get_array().value_unsafe();
            for (element item : items) {
                read_record(out.emplace_back(), item, p / index);
                ++index;
            }
            if (done_before_) done_before_(end);
            if (last) return i + 1;
        }
    }

    std::string_view text_;
    std::size_t piece_bytes_;
    const std::function<void(std::size_t)>& done_before_;
    bool skip_lists_ = false, skipped_ = false;
    simdjson::dom::parser parser_;
    std::string buffer_;
};

// Byte offset of the first invalid UTF-8 sequence, or npos.
std::size_t first_invalid_utf8(std::string_view s) {
    const auto* u = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t i = 0, n = s.size();
    while (i < n) {
        unsigned c = u[i];
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (len == 0 || i + len > n) return i;
        for (std::size_t k = 1; k < len; ++k)
            if ((u[i + k] & 0xC0) != 0x80) return i;
        if (len == 2 && c < 0xC2) return i;                                      // overlong
        if (len == 3 && c == 0xE0 && u[i + 1] < 0xA0) return i;                  // overlong
        if (len == 3 && c == 0xED && u[i + 1] >= 0xA0) return i;                 // surrogate
        if (len == 4 && (c > 0xF4 || (c == 0xF0 && u[i + 1] < 0x90) || (c == 0xF4 && u[i + 1] >= 0x90))) return i;
        i += len;
    }
    return std::string_view::npos;
}

// simdjson says what is wrong but not where; nlohmann's SAX parser finds the byte.
struct LocateSyntaxError : nlohmann::json_sax<nlohmann::json> {
    std::size_t position = std::string_view::npos;
    std::string message;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t pos, const std::string& last_token, const nlohmann::detail::exception& ex) override {
        position = pos > 0 ? pos - 1 : 0;
        // nlohmann's text: "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
        std::string what = ex.what();
        auto colon = what.find(": ", what.find("column"));
        message = colon == std::string::npos ? what : what.substr(colon + 2);
        if (message.rfind("syntax error while parsing value - ", 0) == 0) message = message.substr(35);
        (void)last_token;
        return false;
    }
};

Error syntax_error(std::string_view json, std::string_view file, simdjson::error_code code) {
    std::string name(file);
    if (json.empty()) return make_error(ErrorCode::invalid_input, name + ":1:1", "empty file");
    std::size_t bad = first_invalid_utf8(json);
    if (bad != std::string_view::npos)
        return make_error(ErrorCode::invalid_input, name + ":" + line_col(json, bad), "invalid UTF-8 byte");
    LocateSyntaxError locate;
    nlohmann::json::sax_parse(json.begin(), json.end(), &locate);
    if (locate.position != std::string_view::npos)
        return make_error(ErrorCode::invalid_input, name + ":" + line_col(json, locate.position), locate.message);
    return make_error(ErrorCode::invalid_input, name, simdjson::error_message(code));
}

}  // namespace

std::string line_col(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return std::to_string(line) + ":" + std::to_string(col);
}

namespace {

// The whole text through one DOM: small plans, and every plan that has an error to report.
Result<Blueprint> read_whole(const std::string& json, std::string_view file) {
    // One parser per thread: it keeps its buffers between documents.
    thread_local simdjson::dom::parser parser;
    element root;
    // simdjson reads SIMDJSON_PADDING bytes past the end; a string with that much spare
    // capacity (read_file leaves it) is parsed in place instead of copied.
    bool copy = json.capacity() - json.size() < simdjson::SIMDJSON_PADDING;
    if (auto code = parser.parse(json.data(), json.size(), copy).get(root)) return syntax_error(json, file, code);
    try {
        return read_root(root);
    } catch (const ShapeError& e) {
        return make_error(ErrorCode::invalid_input, std::string(file) + ": " + e.pointer, e.message);
    }
}

// A big plan in pieces (PieceReader); nullopt when it must be read whole.
std::optional<Blueprint> read_in_pieces(std::string_view text, const ReadOptions& options,
                                        const std::function<void(std::size_t)>& done_before = {}) {
    try {
        return PieceReader(text, std::max<std::size_t>(options.piece_bytes, 1), done_before).read();
    } catch (const NotStreamable&) {
    } catch (const ShapeError&) {
    }
    return std::nullopt;
}

// A big file mapped rather than read: pages of the plan already read are given back as the
// reader moves on, so the file never sits in memory whole beside its model.
class MappedFile {
public:
    // Maps `path` when it is a regular file of at least `min_size` bytes; else maps nothing
    // (a small plan is read, not mapped).
    MappedFile(const std::string& path, std::size_t min_size) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return;
        struct stat st {};
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && static_cast<std::size_t>(st.st_size) >= min_size) {
            void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
            if (p != MAP_FAILED) {
                data_ = static_cast<const char*>(p);
                size_ = static_cast<std::size_t>(st.st_size);
                ::madvise(p, size_, MADV_SEQUENTIAL);
            }
        }
        ::close(fd);
    }
    ~MappedFile() {
        if (data_) ::munmap(const_cast<char*>(data_), size_);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::string_view text() const { return {data_, size_}; }
    // Drops the resident pages before byte `offset` (they are read again from the file if needed).
    void release_before(std::size_t offset) {
        const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        std::size_t end = offset / page * page;
        if (end > released_) {
            ::madvise(const_cast<char*>(data_) + released_, end - released_, MADV_DONTNEED);
            released_ = end;
        }
    }

private:
    const char* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t released_ = 0;
};

}  // namespace

Result<Blueprint> read_blueprint(const std::string& json, std::string_view file, const ReadOptions& options) {
    if (json.size() >= options.pieces_above)
        if (auto b = read_in_pieces(json, options)) return std::move(*b);
    return read_whole(json, file);
}

Result<Blueprint> load_blueprint(const std::string& path, const ReadOptions& options) {
    if (path != "-") {
        MappedFile file(path, options.pieces_above);
        if (!file.text().empty()) {
            const double size = static_cast<double>(file.text().size());
            auto release = [&](std::size_t offset) {
                file.release_before(offset);
                if (options.progress) options.progress(static_cast<double>(offset) / size);
            };
            if (auto b = read_in_pieces(file.text(), options, release)) return std::move(*b);
        }
    }
    auto text = read_file(path);
    if (!text) return text.error();
    return read_whole(*text, path == "-" ? "<stdin>" : path);
}

std::optional<Blueprint> load_blueprint_without_lists(const std::string& path, const ReadOptions& options) {
    if (path == "-") return std::nullopt;
    MappedFile file(path, options.pieces_above);
    if (file.text().empty()) return std::nullopt;
    try {
        std::function<void(std::size_t)> none;
        PieceReader reader(file.text(), std::max<std::size_t>(options.piece_bytes, 1), none);
        reader.skip_lists();
        Blueprint b = reader.read();
        if (!reader.skipped_lists()) return std::nullopt;
        return b;
    } catch (const NotStreamable&) {
    } catch (const ShapeError&) {
    }
    return std::nullopt;
}

}  // namespace kbp::schema
