// The interning tables behind Sym. A load interns a few names per node, so the common case (a
// spelling seen before) must cost a hash and one probe: each thread looks in its own open-
// addressing table first, without a lock, and takes the shared table's lock only for a
// spelling it has not seen (a few hundred times per process).
#include "sym.hpp"

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

// Open addressing, linear probing, at most half full. Entries point at interned spellings.
class Table {
public:
    const std::string* find(std::string_view s, std::uint64_t h) const noexcept {
        if (slots_.empty()) return nullptr;
        for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& slot = slots_[i];
            if (!slot.text) return nullptr;
            if (slot.hash == h && slot.text->size() == s.size() && std::memcmp(slot.text->data(), s.data(), s.size()) == 0)
                return slot.text;
        }
    }
    void insert(const std::string* text, std::uint64_t h) {
        if ((count_ + 1) * 2 > slots_.size()) grow();
        place(text, h);
        ++count_;
    }
    std::size_t size() const noexcept { return count_; }

private:
    struct Slot {
        std::uint64_t hash = 0;
        const std::string* text = nullptr;
    };
    void place(const std::string* text, std::uint64_t h) {
        std::size_t i = h & mask_;
        while (slots_[i].text) i = (i + 1) & mask_;
        slots_[i] = {h, text};
    }
    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(old.empty() ? 256 : old.size() * 2, Slot{});
        mask_ = slots_.size() - 1;
        for (const Slot& s : old)
            if (s.text) place(s.text, s.hash);
    }
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    std::size_t count_ = 0;
};

// The process's spellings: a deque never moves what it holds, so a Sym's pointer stays valid.
struct Shared {
    std::mutex lock;
    std::deque<std::string> texts;
    Table table;
};

Shared& shared() {
    static Shared* s = new Shared;  // never destroyed: Syms in static objects outlive main
    return *s;
}

}  // namespace

const std::string& Sym::empty_text() noexcept {
    static const std::string empty;
    return empty;
}

const std::string* Sym::intern(std::string_view text) {
    thread_local Table local;
    const std::uint64_t h = hash_text(text);
    if (const std::string* found = local.find(text, h)) return found;
    Shared& s = shared();
    const std::string* interned;
    {
        std::lock_guard<std::mutex> guard(s.lock);
        interned = s.table.find(text, h);
        if (!interned) {
            interned = &s.texts.emplace_back(text);
            s.table.insert(interned, h);
        }
    }
    local.insert(interned, h);
    return interned;
}

std::size_t Sym::interned_count() {
    Shared& s = shared();
    std::lock_guard<std::mutex> guard(s.lock);
    return s.table.size();
}

std::ostream& operator<<(std::ostream& out, Sym s) { return out << s.view(); }

}  // namespace kbp::schema
