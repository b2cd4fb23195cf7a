// Shared helpers of the kbp test suite: the seed (parsed once per process), JSON-patch
// mutations of it, field-by-field comparison that names what differs, temporary folders,
// and running a call in a child process so that a crash or a hang is a test failure.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/blueprint.hpp"
#include "schema/record_fields.hpp"
#include "schema/diagnostic.hpp"
#include "schema/result.hpp"

namespace kbp::test {

using schema::Blueprint;
using OJson = nlohmann::ordered_json;

// ---- the seed --------------------------------------------------------------------------------

std::string seed_path();
std::string corpus_dir();   // tests/corpus
std::string source_dir();   // the repository root
const std::string& seed_text();        // the file's bytes
const Blueprint& seed();               // load_blueprint(seed_path()), must succeed
const OJson& seed_json();              // the seed parsed by nlohmann (key order kept)

// Known totals of the seed.
inline constexpr std::size_t seed_nodes = 1740;
inline constexpr std::size_t seed_edges = 2504;
inline constexpr std::size_t seed_groups = 909;
inline constexpr std::size_t seed_layers = 45;

// The seed's layer templates (kbp's lossless collapse) laid over `layers` layers in the seed's
// pattern (3 kda+mlp, then dsa+moe every 4th, kda+moe between), as a collapsed-only plan, or
// with its flat lists too when `expand`.
Blueprint seed_over_layers(std::size_t layers, bool expand = false);

// GLM-5.3-Flash planned by kbp's planner for one arm (made once per process and arm).
const Blueprint& glm_plan(const std::string& arm, std::int64_t rows);

// The seed with RFC 6902 operations applied, as compact JSON text.
std::string mutate_seed(const OJson& ops);

// Whole-file text and writing helpers (test side; independent of the library's file_io).
std::string slurp(const std::string& path);
void spit(const std::string& path, const std::string& text);

// ---- diagnostics ----------------------------------------------------------------------------

bool has_pointer(const schema::Diagnostics& d, const std::string& pointer);
std::string list_diagnostics(const schema::Diagnostics& d, std::size_t max = 20);

// ---- field-by-field comparison --------------------------------------------------------------

std::string show(const schema::JsonValue& v);

template <class T> struct HasText;  // below Diff: whether Diff::text(T) exists

// Collects the fields that differ ("nodes/12/op: 'linear:q' != 'rms_norm'") and counts every
// field compared, so a test can also check that the comparison looked at something.
class Diff {
public:
    template <class T> void field(const std::string& where, const T& a, const T& b) {
        ++compared_;
        if (!(a == b)) add(where, text(a), text(b));
    }
    void add(const std::string& where, const std::string& a, const std::string& b);
    bool empty() const { return diffs_.empty(); }
    std::size_t compared() const { return compared_; }
    std::size_t count() const { return total_; }
    const std::vector<std::string>& items() const { return diffs_; }
    std::string report(std::size_t max = 30) const;

    static std::string text(const std::string& s) { return "'" + s + "'"; }
    static std::string text(bool b) { return b ? "true" : "false"; }
    static std::string text(std::int64_t i) { return std::to_string(i); }
    static std::string text(const schema::JsonValue& v) { return show(v); }
    template <class E> static std::string text(const schema::Named<E>& n) {
        return "'" + std::string(n.name()) + "'" + (n.known() ? "" : "(unknown)");
    }
    static std::string text(const schema::Op& o) { return "'" + o.name() + "'"; }
    static std::string text(const schema::Compute& c) { return "'" + c.name() + "'"; }
    static std::string text(const std::vector<schema::StateRole>& r) { return "'" + schema::state_roles_name(r) + "'"; }
    static std::string text(const schema::Requant& r) {
        return "{" + std::string(r.from.name()) + "->" + std::string(r.to.name()) + " at " + std::string(r.at.name()) +
               (r.extras.empty() ? "" : " +extras") + "}";
    }
    static std::string text(const schema::Precision& p);
    static std::string text(const schema::EdgeDetail& d);
    static std::string text(const schema::TemplateGroup& g);
    static std::string text(const schema::Parallel& p) {
        return "{tp " + std::to_string(p.tp) + " over " + p.interconnect + ", " + std::to_string(p.all_reduces_per_step) + " all-reduces of " +
               std::to_string(p.all_reduce_bytes_per_token) + " B/token" + (p.extras.empty() ? "" : " +extras") + "}";
    }
    static std::string text(const schema::Symbol& s) { return s.name + "=" + std::to_string(s.value); }
    static std::string text(const schema::TemplateArg& a) { return a.name + "=" + (a.value ? std::to_string(*a.value) : "null"); }
    // Lists and optionals of what has a text (records without one are compared member by member).
    template <class T>
        requires HasText<T>::value
    static std::string text(const std::optional<T>& o) { return o ? text(*o) : "null"; }
    template <class T>
        requires HasText<T>::value
    static std::string text(const std::vector<T>& v) {
        std::string out = "[";
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (i) out += ", ";
            if (i == 12) { out += "... (" + std::to_string(v.size()) + " items)"; break; }
            out += text(v[i]);
        }
        return out + "]";
    }
    template <class T>
        requires HasText<T>::value
    static std::string text(const schema::InternedList<T>& l) { return text(l.vector()); }
    static std::string text(const schema::JsonMember& m) { return m.first + ":" + show(m.second); }

private:
    std::vector<std::string> diffs_;
    std::size_t compared_ = 0;
    std::size_t total_ = 0;
};

// Defined once Diff is complete, so that the check sees every overload (an optional of a vector
// of formats needs the vector's, declared after the optional's).
template <class T> struct HasText {
    static constexpr bool value = requires(const T& x) { Diff::text(x); };
};

// Every member of a described record (schema/record_fields.hpp), by its JSON name, then its
// extras. A member with a text is one field; a described record without one (a template, the
// arm), and lists and optionals of them, are compared member by member below it; a list keyed
// by name is compared item by item under the items' names.
template <class T> void compare_value(Diff& d, const std::string& at, const T& a, const T& b);

template <schema::Described T> void compare_record(Diff& d, const std::string& at, const T& a, const T& b) {
    schema::for_each_field<T>([&](const auto& f) {
        using F = std::decay_t<decltype(f)>;
        const auto& x = a.*(f.member);
        const auto& y = b.*(f.member);
        if constexpr (F::shape == schema::Shape::inlined) {
            d.field(at + "/(" + std::string(f.json) + ")", x, y);
        } else if constexpr (F::shape == schema::Shape::keyed_by_name) {
            const std::string p = at + "/" + std::string(f.json);
            d.field(p + "/length", static_cast<std::int64_t>(x.size()), static_cast<std::int64_t>(y.size()));
            for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
                d.field(p + "/" + x[i].name + "/(name)", x[i].name, y[i].name);
                compare_record(d, p + "/" + x[i].name, x[i], y[i]);
            }
        } else {
            compare_value(d, at + "/" + std::string(f.json), x, y);
        }
    });
    d.field(at + "/(extras)", a.extras, b.extras);
}

template <class T> void compare_value(Diff& d, const std::string& at, const T& a, const T& b) {
    if constexpr (HasText<T>::value) {
        d.field(at, a, b);
    } else if constexpr (schema::Described<T>) {
        compare_record(d, at, a, b);
    } else if constexpr (requires { a.has_value(); }) {
        d.field(at + "(present)", a.has_value(), b.has_value());
        if (a && b) compare_value(d, at, *a, *b);
    } else {
        d.field(at + "/length", static_cast<std::int64_t>(a.size()), static_cast<std::int64_t>(b.size()));
        for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) compare_value(d, at + "/" + std::to_string(i), a[i], b[i]);
    }
}

void compare(Diff& d, const std::string& at, const schema::Node& a, const schema::Node& b);
void compare(Diff& d, const std::string& at, const schema::Edge& a, const schema::Edge& b);
void compare(Diff& d, const std::string& at, const schema::Group& a, const schema::Group& b);
void compare(Diff& d, const std::string& at, const schema::Layer& a, const schema::Layer& b);
void compare(Diff& d, const std::string& at, const schema::Template& a, const schema::Template& b);
void compare(Diff& d, const std::string& at, const schema::Collapsed& a, const schema::Collapsed& b);
void compare(Diff& d, const std::string& at, const schema::Explain& a, const schema::Explain& b);
void compare(Diff& d, const std::string& at, const schema::Provenance& a, const schema::Provenance& b);
void compare(Diff& d, const Blueprint& a, const Blueprint& b);  // everything

template <class T>
void compare_lists(Diff& d, const std::string& at, const std::vector<T>& a, const std::vector<T>& b) {
    d.field(at + "/length", static_cast<std::int64_t>(a.size()), static_cast<std::int64_t>(b.size()));
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) compare(d, at + "/" + std::to_string(i), a[i], b[i]);
}

// ---- processes and files --------------------------------------------------------------------

// A fresh folder under /tmp, removed with everything in it when the object goes.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

// The outcome of running a call in a child process.
struct Isolated {
    bool finished = false;   // the child returned normally (exit status 0)
    bool timed_out = false;  // killed after the time limit
    int signal = 0;          // the signal that ended the child, if any
    int exit_code = 0;       // the exit status when it exited on its own
    std::string output;      // what the call returned
    std::string describe() const;
};

// Runs `call` in a forked child with a time limit and a limit on the memory it may add,
// returning what it produced or how it died.
Isolated run_isolated(const std::function<std::string()>& call, int timeout_seconds = 20,
                      std::size_t memory_limit_mb = 4096);

bool built_with_sanitizers();

}  // namespace kbp::test
