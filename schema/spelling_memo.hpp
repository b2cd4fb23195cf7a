// SpellingMemo: what parsing a spelling gave, remembered. A plan repeats a few hundred spellings
// (formats, ops, kernels, steps, places) over thousands of nodes; the reader turns each into a
// Sym or a Named<E>, which costs a full hash of the text and a probe of a shared table. The memo
// is a small direct-mapped table in front of that: its slot is chosen from the length and the
// first and last eight bytes (two loads), a hit costs one compare of the text, and a miss (or a
// collision) falls through to the real parse and replaces the slot. It never changes a result,
// only how often the parse runs.
//
// Keys and values are interned (Sym) or plain values, so a memo may outlive any one document:
// the reader keeps one per thread, warm across the plans a process loads.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "schema/interned_list.hpp"
#include "schema/sym.hpp"

namespace kbp::schema {

// A cheap hash of a short text: its length and its first and last eight bytes (fewer when
// shorter). Two spellings that share both ends and the length collide, which costs a miss.
[[gnu::always_inline]] inline std::uint64_t spelling_hash(std::string_view s) noexcept {
    const char* p = s.data();
    const std::size_t n = s.size();
    std::uint64_t a = 0, b = 0;
    if (n >= 8) {
        std::memcpy(&a, p, 8);
        std::memcpy(&b, p + n - 8, 8);
    } else if (n >= 4) {
        std::uint32_t x, y;
        std::memcpy(&x, p, 4);
        std::memcpy(&y, p + n - 4, 4);
        a = x;
        b = y;
    } else if (n > 0) {
        a = static_cast<unsigned char>(p[0]) | static_cast<std::uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8 |
            static_cast<std::uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16;
    }
    // Every input bit must reach the low bits a table indexes by: a product's low bits see only
    // its operands' low bits, so without the final mix "glm_router_topk_rank_kda" and "..._dsa"
    // (which differ in b's sixth byte) shared a slot and evicted each other on every node.
    std::uint64_t h = (a ^ n) * 0x9E3779B97F4A7C15ull ^ b;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;  // MurmurHash3's 64-bit finalizer
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 33);
}

// Equal texts, compared eight bytes at a time and inline: names are short, and a call to memcmp
// for each costs more than the compare.
[[gnu::always_inline]] inline bool same_spelling(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    const char* p = a.data();
    const char* q = b.data();
    auto load8 = [](const char* s) {
        std::uint64_t w;
        std::memcpy(&w, s, 8);
        return w;
    };
    if (n >= 8) {
        for (std::size_t i = 0; i + 8 < n; i += 8)
            if (load8(p + i) != load8(q + i)) return false;
        return load8(p + n - 8) == load8(q + n - 8);  // the last word, overlapping the one before
    }
    if (n >= 4) {
        std::uint32_t x0, x1, y0, y1;
        std::memcpy(&x0, p, 4);
        std::memcpy(&y0, q, 4);
        std::memcpy(&x1, p + n - 4, 4);
        std::memcpy(&y1, q + n - 4, 4);
        return x0 == y0 && x1 == y1;
    }
    for (std::size_t i = 0; i < n; ++i)
        if (p[i] != q[i]) return false;
    return true;
}

// Two ways per set, the most recently used first: with one, any two of a plan's few hundred
// spellings that share a slot (dozens of pairs, by the birthday bound) evicted each other on
// every node that named them.
template <class Value, std::size_t Slots = 512> class SpellingMemo {
    static_assert((Slots & (Slots - 1)) == 0 && Slots >= 2, "a power of two");

public:
    // parse(s) when s was not seen (or was pushed out), else what it gave last time.
    template <class Parse> const Value& get(std::string_view s, Parse&& parse) {
        Entry* set = &slots_[(spelling_hash(s) & (Slots / 2 - 1)) * 2];
        if (!s.empty()) {  // "" always parses (its parse may be an error)
            if (same_spelling(set[0].key(), s)) return set[0].value;
            if (same_spelling(set[1].key(), s)) {
                std::swap(set[0], set[1]);
                return set[0].value;
            }
        }
        set[1] = std::move(set[0]);
        set[0].value = parse(s);
        Sym key(s);  // interned: the text outlives the document it came from
        set[0].text = key.data();
        set[0].size = key.size();
        return set[0].value;
    }

private:
    // The key's interned text by pointer and length (not a Sym): a hit then compares without
    // first loading the interned std::string. An empty slot has the empty key.
    struct Entry {
        const char* text = "";
        std::size_t size = 0;
        Value value{};
        std::string_view key() const { return {text, size}; }
    };
    std::array<Entry, Slots> slots_{};
};

// One field's memo: the last few spellings that field held in the records read before, and
// what they gave. Neighbouring records repeat each other field by field (a layer's nodes share
// a block, most edges carry bf16 rows "n"), and a field alternates between a few spellings
// (a block's norm, projection, quant and attention nodes), so a compare or two against the
// most recent ones stands in for the shared memo's hash and probe. Each field of each record
// keeps its own (the reader's in-order pass knows the field at compile time), so fields do not
// push one another out. Texts are copied into the memo (a spelling longer than its buffer is not
// remembered): they must outlive the document they came from. Like the shared memos, the reader
// keeps them per thread across documents; what one document gains from the one before is at most
// a hit on its first record's fields. Two ways measured a little better than one and four worse
// (every way is one more compare on each miss).
template <class Value, std::size_t Ways = 2> class LastSpelling {
public:
    // What `s` gave last time, if it is among the spellings remembered; else null. A hit
    // becomes the most recent.
    const Value* find(std::string_view s) noexcept {
        for (std::size_t i = 0; i < Ways; ++i) {
            if (!entries_[i].value) return nullptr;
            if (same_spelling(entries_[i].key(), s)) {
                if (i > 0) std::swap(entries_[i], entries_[0]);
                return &*entries_[0].value;
            }
        }
        return nullptr;
    }
    // Remembers s -> v as the most recent; the least recent is forgotten.
    void remember(std::string_view s, const Value& v) {
        if (s.size() > sizeof(Entry::text)) return;
        for (std::size_t i = Ways - 1; i > 0; --i) entries_[i] = entries_[i - 1];
        std::memcpy(entries_[0].text, s.data(), s.size());
        entries_[0].size = s.size();
        entries_[0].value = v;
    }

private:
    struct Entry {
        char text[56] = {};
        std::size_t size = 0;
        std::optional<Value> value;  // empty until a spelling is remembered
        std::string_view key() const { return {text, size}; }
    };
    std::array<Entry, Ways> entries_{};
};

// The same for a list of spellings (a node's steps, a group's kernels): one hash and one compare
// per element instead of one intern each, and the list is built once. Two ways per set, as above.
template <std::size_t Slots = 256> class SymListMemo {
    static_assert((Slots & (Slots - 1)) == 0 && Slots >= 2, "a power of two");

public:
    static constexpr std::size_t max_items = 16;  // longer lists are not remembered

    // items: the list's spellings (at most max_items); make(items) builds the list on a miss.
    template <class Make> SymList get(std::span<const std::string_view> items, Make&& make) {
        std::uint64_t h = items.size();
        for (std::string_view s : items) h = (h ^ spelling_hash(s)) * 0x9E3779B97F4A7C15ull;
        Entry* set = &slots_[((h ^ (h >> 32)) & (Slots / 2 - 1)) * 2];
        if (set[0].filled && matches(set[0].list, items)) return set[0].list;
        if (set[1].filled && matches(set[1].list, items)) {
            std::swap(set[0], set[1]);
            return set[0].list;
        }
        set[1] = set[0];
        set[0].list = make(items);
        set[0].filled = true;
        return set[0].list;
    }

private:
    static bool matches(SymList list, std::span<const std::string_view> items) {
        if (list.size() != items.size()) return false;
        for (std::size_t i = 0; i < items.size(); ++i)
            if (!same_spelling(list[i].view(), items[i])) return false;
        return true;
    }
    struct Entry {
        SymList list;
        bool filled = false;
    };
    std::array<Entry, Slots> slots_{};
};

}  // namespace kbp::schema
