// The interning table behind Sym. A load interns a few names per node, so the common case (a
// spelling seen before) must cost a hash and one probe, without a lock; the lock is taken only
// for a spelling the process has not seen (a few hundred times per process).
#include "sym.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <ostream>
#include <vector>

namespace kbp::schema {
namespace {

// Names are short (most under 48 bytes): eight bytes at a time, multiply-and-fold mixing.
std::uint64_t hash_text(std::string_view s) noexcept {
    constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
    std::uint64_t h = s.size() * k;
    const char* p = s.data();
    std::size_t n = s.size();
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n) {
        std::uint64_t w = 0;
        std::memcpy(&w, p, n);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    return h * k;
}

// Open addressing, linear probing, at most half full; slots point at interned spellings. Readers
// probe without a lock: a slot's text pointer is published (release) after its hash, and a full
// table is replaced by a larger copy, published the same way, while the old one stays readable
// (tables are never freed: a reader may still be probing one).
struct Slot {
    std::atomic<std::uint64_t> hash{0};
    std::atomic<const std::string*> text{nullptr};
};

struct Table {
    explicit Table(std::size_t n) : slots(n), mask(n - 1) {}
    std::vector<Slot> slots;
    std::size_t mask;

    const std::string* find(std::string_view s, std::uint64_t h) const noexcept {
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const std::string* text = slots[i].text.load(std::memory_order_acquire);
            if (!text) return nullptr;
            if (slots[i].hash.load(std::memory_order_relaxed) == h && text->size() == s.size() &&
                std::memcmp(text->data(), s.data(), s.size()) == 0)
                return text;
        }
    }
    void place(const std::string* text, std::uint64_t h) noexcept {
        std::size_t i = h & mask;
        while (slots[i].text.load(std::memory_order_relaxed)) i = (i + 1) & mask;
        slots[i].hash.store(h, std::memory_order_relaxed);
        slots[i].text.store(text, std::memory_order_release);
    }
};

// The process's spellings: a deque never moves what it holds, so a Sym's pointer stays valid.
// The table readers probe; null until the first spelling is interned.
constinit std::atomic<const Table*> current{nullptr};

struct Shared {
    std::mutex lock;  // writers only
    std::deque<std::string> texts;
    std::deque<Table> tables;  // every table ever published
    std::size_t count = 0;

    Shared() { current.store(&tables.emplace_back(1024), std::memory_order_release); }

    const std::string* insert(std::string_view text, std::uint64_t h) {
        std::lock_guard<std::mutex> guard(lock);
        const Table* table = current.load(std::memory_order_relaxed);
        if (const std::string* found = table->find(text, h)) return found;  // another thread won
        if ((count + 1) * 2 > table->slots.size()) {
            Table& bigger = tables.emplace_back(table->slots.size() * 2);
            for (const Slot& slot : table->slots)
                if (const std::string* t = slot.text.load(std::memory_order_relaxed)) bigger.place(t, slot.hash.load(std::memory_order_relaxed));
            current.store(&bigger, std::memory_order_release);
            table = &bigger;
        }
        const std::string* interned = &texts.emplace_back(text);
        const_cast<Table*>(table)->place(interned, h);
        ++count;
        return interned;
    }
};

Shared& shared() {
    static Shared* s = new Shared;  // never destroyed: Syms in static objects outlive main
    return *s;
}

}  // namespace

// Built before any other static object (init_priority 101, the first a program may use), so a
// Sym made during another file's static initialisation already points at a real empty string.
// (constinit would say so at compile time, but clang 14 with libstdc++ 12 cannot constant-
// initialise a std::string.)
__attribute__((init_priority(101))) const std::string Sym::empty_spelling_;

const std::string* Sym::intern(std::string_view text) {
    const std::uint64_t h = hash_text(text);
    if (const Table* table = current.load(std::memory_order_acquire))
        if (const std::string* found = table->find(text, h)) return found;
    return shared().insert(text, h);
}

std::size_t Sym::interned_count() {
    Shared& s = shared();
    std::lock_guard<std::mutex> guard(s.lock);
    return s.count;
}

std::ostream& operator<<(std::ostream& out, Sym s) { return out << s.view(); }

}  // namespace kbp::schema
