// InternedList<T>: an immutable list stored once per process, like Sym for a single name. A plan
// repeats a few dozen lists on every node (its steps, its roles, its output formats, a group's
// kernels); as std::vector each node owned a heap copy (three allocations per node to load, three
// frees to drop, 24 bytes each in the node). Interned, a list is one pointer: copying it is free,
// equality is a pointer compare, and loading a plan allocates nothing for it.
//
// A list is built whole (from a vector, a span or braces) and never changed in place; code that
// grows one builds a std::vector and assigns it. Reads look like a const std::vector<T> (begin,
// end, size, empty, [], front, back), so code that only reads needs no change. Lists live until
// the process ends: their vocabulary is small and shared by every plan the process holds.
// Interning takes a lock; the reader keeps a per-thread memo in front of it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <vector>

#include "schema/names.hpp"
#include "schema/sym.hpp"

namespace kbp::schema {

namespace interned_list_detail {
// The stored copy of `items` (an existing one when the same list was stored before).
template <class T> const std::vector<T>* intern(std::span<const T> items);
template <class T> const std::vector<T>* empty();
}  // namespace interned_list_detail

template <class T> class InternedList {
public:
    using value_type = T;
    using const_iterator = const T*;
    using iterator = const T*;
    using size_type = std::size_t;

    InternedList() noexcept : items_(interned_list_detail::empty<T>()) {}
    InternedList(std::span<const T> items) : items_(interned_list_detail::intern<T>(items)) {}  // NOLINT: implicit by design
    InternedList(const std::vector<T>& items) : InternedList(std::span<const T>(items)) {}     // NOLINT
    InternedList(std::initializer_list<T> items) : InternedList(std::span<const T>(items.begin(), items.size())) {}

    const T* begin() const noexcept { return items_->data(); }
    const T* end() const noexcept { return items_->data() + items_->size(); }
    const T* data() const noexcept { return items_->data(); }
    std::size_t size() const noexcept { return items_->size(); }
    bool empty() const noexcept { return items_->empty(); }
    const T& operator[](std::size_t i) const noexcept { return (*items_)[i]; }
    const T& front() const noexcept { return items_->front(); }
    const T& back() const noexcept { return items_->back(); }
    const std::vector<T>& vector() const noexcept { return *items_; }
    operator const std::vector<T>&() const noexcept { return *items_; }  // NOLINT
    operator std::span<const T>() const noexcept { return *items_; }     // NOLINT

    // This list with `item` at its end (a new list; this one is unchanged).
    InternedList with(T item) const {
        std::vector<T> items = *items_;
        items.push_back(std::move(item));
        return InternedList(items);
    }

    // The same items are the same stored list.
    friend bool operator==(InternedList a, InternedList b) noexcept { return a.items_ == b.items_; }
    friend bool operator==(InternedList a, const std::vector<T>& b) { return *a.items_ == b; }
    template <class U> friend bool operator==(InternedList a, const std::vector<U>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const T& x, const U& y) { return x == y; });
    }

    // For nlohmann::json (found by argument-dependent lookup), as the vector it reads like.
    template <class Json> friend void to_json(Json& j, InternedList l) { j = *l.items_; }

private:
    const std::vector<T>* items_;
};

using SymList = InternedList<Sym>;
using FormatList = InternedList<Format>;

}  // namespace kbp::schema
