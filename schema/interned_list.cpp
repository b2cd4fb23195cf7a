// The store behind InternedList: one hash set per item type, its vectors never freed (a list
// handed out stays valid for the process), under one lock per type. The reader's memo keeps
// interning to a few hundred calls per process; the planner interns once per node it builds.
#include "interned_list.hpp"

#include <cstdint>
#include <mutex>
#include <unordered_set>

namespace kbp::schema::interned_list_detail {
namespace {

// An item's identity as a number: interned spellings compare by pointer.
std::uint64_t item_hash(const Sym& s) { return reinterpret_cast<std::uintptr_t>(s.data()); }
template <class E> std::uint64_t item_hash(const Named<E>& n) {
    return static_cast<std::uint64_t>(n.id) * 0x9E3779B97F4A7C15ull ^ reinterpret_cast<std::uintptr_t>(n.spelling.data());
}

template <class T> struct ListHash {
    using is_transparent = void;
    std::size_t operator()(std::span<const T> items) const noexcept {
        std::uint64_t h = items.size();
        for (const T& x : items) h = (h ^ item_hash(x)) * 0xC2B2AE3D27D4EB4Full;
        return h ^ (h >> 29);
    }
    std::size_t operator()(const std::vector<T>& items) const noexcept { return (*this)(std::span<const T>(items)); }
};

template <class T> struct ListEqual {
    using is_transparent = void;
    template <class A, class B> bool operator()(const A& a, const B& b) const noexcept {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
};

template <class T> struct Store {
    std::mutex lock;
    std::unordered_set<std::vector<T>, ListHash<T>, ListEqual<T>> lists;  // nodes: stable addresses
};

template <class T> Store<T>& store() {
    static auto* s = new Store<T>;  // never destroyed: lists outlive every static that holds one
    return *s;
}

}  // namespace

template <class T> const std::vector<T>* intern(std::span<const T> items) {
    if (items.empty()) return empty<T>();
    Store<T>& s = store<T>();
    std::lock_guard<std::mutex> guard(s.lock);
    auto found = s.lists.find(items);
    if (found == s.lists.end()) found = s.lists.emplace(items.begin(), items.end()).first;
    return &*found;
}

template <class T> const std::vector<T>* empty() {
    static const auto* none = new std::vector<T>;
    return none;
}

template const std::vector<Sym>* intern<Sym>(std::span<const Sym>);
template const std::vector<Sym>* empty<Sym>();
template const std::vector<Format>* intern<Format>(std::span<const Format>);
template const std::vector<Format>* empty<Format>();

}  // namespace kbp::schema::interned_list_detail
