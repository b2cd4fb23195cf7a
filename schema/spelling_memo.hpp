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
#include <span>
#include <string_view>
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
    std::uint64_t h = (a ^ n) * 0x9E3779B97F4A7C15ull;
    h ^= (b + (h >> 31)) * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 29);
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

template <class Value, std::size_t Slots = 512> class SpellingMemo {
    static_assert((Slots & (Slots - 1)) == 0, "a power of two");

public:
    // parse(s) when s was not seen (or was pushed out), else what it gave last time.
    template <class Parse> const Value& get(std::string_view s, Parse&& parse) {
        Entry& e = slots_[spelling_hash(s) & (Slots - 1)];
        if (!s.empty() && same_spelling(std::string_view(e.key, e.key_size), s)) return e.value;  // "" always parses
        e.value = parse(s);
        Sym key(s);  // interned: the text outlives the document it came from
        e.key = key.data();
        e.key_size = key.size();
        return e.value;
    }

private:
    // The key's interned text by pointer and length (not a Sym): a hit then compares without
    // first loading the interned std::string. An empty slot has the empty key, and the empty
    // spelling is never looked up (its parse may be an error).
    struct Entry {
        const char* key = "";
        std::size_t key_size = 0;
        Value value{};
    };
    std::array<Entry, Slots> slots_{};
};

// The same for a list of spellings (a node's steps, a group's kernels): one hash and one compare
// per element instead of one intern each, and the list is built once.
template <std::size_t Slots = 256> class SymListMemo {
    static_assert((Slots & (Slots - 1)) == 0, "a power of two");

public:
    static constexpr std::size_t max_items = 16;  // longer lists are not remembered

    // items: the list's spellings (at most max_items); make(items) builds the list on a miss.
    template <class Make> SymList get(std::span<const std::string_view> items, Make&& make) {
        std::uint64_t h = items.size();
        for (std::string_view s : items) h = (h ^ spelling_hash(s)) * 0x9E3779B97F4A7C15ull;
        Entry& e = slots_[(h ^ (h >> 32)) & (Slots - 1)];
        if (e.filled && matches(e.list, items)) return e.list;
        e.list = make(items);
        e.filled = true;
        return e.list;
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
