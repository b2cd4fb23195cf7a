// Sym: an interned string. A plan names the same few hundred kernels, families, numerics,
// steps and blocks on every one of its (up to a million) nodes; a Sym stores each spelling once
// for the whole process and is one pointer in the node (8 bytes instead of a 32-byte
// std::string and, for names longer than 15 bytes, a heap block per copy). Equality is a
// pointer compare; order is the spelling's.
//
// Interned spellings live until the process ends: the vocabulary of plans is small and shared
// by every plan a process loads (the viewer holds several). Node and tensor ids, which are
// unique per node, stay std::string.
//
// Reads look like a const std::string (str(), size(), starts_with, ...) and convert to
// `const std::string&` and std::string_view, so code that only reads names needs no change.
// Interning is thread-safe; looking up a known spelling takes no lock.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kbp::schema {

class Sym {
public:
    constexpr Sym() noexcept : text_(&empty_spelling_) {}
    Sym(std::string_view text) : text_(text.empty() ? &empty_text() : intern(text)) {}  // NOLINT: implicit by design
    Sym(const std::string& text) : Sym(std::string_view(text)) {}                       // NOLINT
    Sym(const char* text) : Sym(std::string_view(text)) {}                              // NOLINT

    const std::string& str() const noexcept { return *text_; }
    std::string_view view() const noexcept { return *text_; }
    operator const std::string&() const noexcept { return *text_; }  // NOLINT
    operator std::string_view() const noexcept { return *text_; }    // NOLINT

    const char* c_str() const noexcept { return text_->c_str(); }
    const char* data() const noexcept { return text_->data(); }
    std::size_t size() const noexcept { return text_->size(); }
    std::size_t length() const noexcept { return text_->size(); }
    bool empty() const noexcept { return text_ == &empty_spelling_; }  // "" is never interned
    char operator[](std::size_t i) const noexcept { return (*text_)[i]; }
    auto begin() const noexcept { return text_->begin(); }
    auto end() const noexcept { return text_->end(); }
    bool starts_with(std::string_view s) const noexcept { return view().starts_with(s); }
    bool starts_with(char c) const noexcept { return view().starts_with(c); }
    bool ends_with(std::string_view s) const noexcept { return view().ends_with(s); }
    bool ends_with(char c) const noexcept { return view().ends_with(c); }
    std::size_t find(std::string_view s, std::size_t pos = 0) const noexcept { return view().find(s, pos); }
    std::size_t find(char c, std::size_t pos = 0) const noexcept { return view().find(c, pos); }
    std::size_t rfind(std::string_view s, std::size_t pos = std::string::npos) const noexcept { return view().rfind(s, pos); }
    std::size_t rfind(char c, std::size_t pos = std::string::npos) const noexcept { return view().rfind(c, pos); }
    std::string substr(std::size_t pos, std::size_t n = std::string::npos) const { return text_->substr(pos, n); }
    int compare(std::string_view s) const noexcept { return view().compare(s); }

    // The same spelling is the same pointer.
    friend bool operator==(Sym a, Sym b) noexcept { return a.text_ == b.text_; }
    friend bool operator==(Sym a, std::string_view b) noexcept { return a.view() == b; }
    friend bool operator==(Sym a, const std::string& b) noexcept { return a.view() == b; }
    friend bool operator==(Sym a, const char* b) noexcept { return a.view() == b; }
    friend std::strong_ordering operator<=>(Sym a, Sym b) noexcept { return a.view() <=> b.view(); }
    friend std::strong_ordering operator<=>(Sym a, std::string_view b) noexcept { return a.view() <=> b; }
    friend std::strong_ordering operator<=>(Sym a, const std::string& b) noexcept { return a.view() <=> std::string_view(b); }
    friend std::strong_ordering operator<=>(Sym a, const char* b) noexcept { return a.view() <=> std::string_view(b); }

    friend std::string operator+(Sym a, std::string_view b) { return std::string(a.view()).append(b); }
    friend std::string operator+(std::string_view a, Sym b) { return std::string(a).append(b.view()); }
    friend std::string operator+(Sym a, const std::string& b) { return a + std::string_view(b); }
    friend std::string operator+(const std::string& a, Sym b) { return std::string_view(a) + b; }
    friend std::string operator+(Sym a, const char* b) { return a + std::string_view(b); }
    friend std::string operator+(const char* a, Sym b) { return std::string_view(a) + b; }
    friend std::string operator+(Sym a, Sym b) { return a + b.view(); }

    // For nlohmann::json (found by argument-dependent lookup; no nlohmann include here).
    template <class Json> friend void to_json(Json& j, Sym s) { j = s.str(); }

    // Spellings interned so far (for the memory benchmark and tests).
    static std::size_t interned_count();

private:
    static const std::string& empty_text() noexcept { return empty_spelling_; }
    static const std::string empty_spelling_;
    static const std::string* intern(std::string_view text);
    const std::string* text_;
};

std::ostream& operator<<(std::ostream& out, Sym s);

// A list of names against plain strings (tests and callers that build lists of literals).
inline bool operator==(const std::vector<Sym>& a, const std::vector<std::string>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i])) return false;
    return true;
}

}  // namespace kbp::schema

template <> struct std::hash<kbp::schema::Sym> {
    std::size_t operator()(kbp::schema::Sym s) const noexcept { return std::hash<std::string_view>{}(s.view()); }
};
