// A plan opened in the viewer, indexed for drawing: its ops cut into instances (one per layer,
// plus the runs of ops outside any layer: "embed", "head"), instances of the same shape sharing
// one unit, so that a layout is made once per unit and placed at each instance (a plan's layers
// repeat: the seed's 45 layers are 3 units). Units are found from the flat lists themselves: two
// layers share a unit when their template names agree and their ops and edges are equal in every
// member but those that name the layer (ids, order, group numbers); the collapsed form is not
// needed.
//
// Loading reads, validates and indexes; it never throws for bad input: a file that cannot be read
// or is invalid gives a LoadFailure with the validator's problems, which the viewer shows in a
// panel while it keeps what was open.
//
// Indexing comes in two parts, so that a million-node plan's folded view shows as soon as the
// file is read and checked (issue 30): the folded part (instances, units, the connectors between
// rows), which the constructor builds, is all the folded view draws; the flat part (every op's
// edges, the ids sorted for lookup) and the roofline cost are made on first use, or on a thread
// once complete_in_background() asks (the view model asks after a plan's first frame). Their
// accessors wait for them.
//
// A big plan whose collapsed form is lossless (kbp's own: its expansion is every field of the
// flat lists) is not even read whole before its first frame: its file is read but for the flat
// lists (templates, layers, explain, ...), the templates are expanded into the plan's flat lists,
// and the folded view is drawn from them. The file's own flat lists are read after, on the
// background thread (the first part of completion()), validated and compared with the
// expansion: equal (as a valid kbp plan's are), nothing changes; else the plan is replaced by the file's
// (replacement()) or, invalid, dropped with its problems (late_failure()).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cost/cost.hpp"
#include "schema/blueprint.hpp"

namespace kbp::viewer {

struct UnitNode {
    std::string local;       // the op's name inside its block: "q_a"
    std::string block;       // the block inside the unit: "dsa", or "embed"
    std::int64_t group = 0;  // the op's group, counted from the unit's first group
};

struct UnitEdge {
    std::int32_t from = 0, to = 0;  // local node indices
};

struct Unit {
    std::string name;      // "dsa+moe", "embed"
    bool layered = false;  // serves layers: can be folded
    std::vector<UnitNode> nodes;
    std::vector<UnitEdge> edges;
    std::vector<std::int32_t> instances;  // in plan order
};

struct Instance {
    std::int32_t unit = 0;
    std::optional<std::int64_t> layer;
    std::vector<std::int32_t> nodes;  // unit node -> flat node index
    std::vector<std::int32_t> edges;  // unit edge -> flat edge index
};

struct LoadFailure {
    std::string path;
    std::string message;                // one line: "x.json: invalid blueprint (3 problems)"
    std::vector<std::string> problems;  // "x.json: /edges/12/fused: ..." (the validator's words)
};

struct FileStamp {
    std::filesystem::file_time_type modified{};
    std::uintmax_t size = 0;
    bool operator==(const FileStamp&) const = default;
};
std::optional<FileStamp> stamp_of(const std::string& path);

class Document {
public:
    // Indexes `plan` (validated, with its flat lists) for the folded view. `name` is how the
    // viewer names it.
    Document(schema::Blueprint plan, std::string path);
    // The same, running `alongside` on the plan on a second thread while indexing it (loading
    // validates the plan so: the folded index guards what an invalid plan could break).
    Document(schema::Blueprint plan, std::string path, const std::function<void(const schema::Blueprint&)>& alongside);
    // A plan read without its flat lists, `plan` holding its templates' expansion instead: the
    // file's lists are read and checked in the background (validated, at most `max_problems`).
    struct ListsToRead {
        std::size_t max_problems = 200;
    };
    Document(schema::Blueprint plan, std::string path, ListsToRead lists);
    ~Document();
    Document(const Document&) = delete;  // a thread may be indexing it
    Document& operator=(const Document&) = delete;

    // Indexes the flat lists and estimates the cost on a thread of its own (once).
    void complete_in_background() const;
    // The flat lists indexed and the cost estimated: nothing will wait.
    bool complete() const { return lists_read_.load() && (superseded() || (flat_done_.load() && cost_done_.load())); }
    // The file's flat lists have been read (at once, or after the first frame: ListsToRead) and
    // checked; then late_failure() and replacement() say what came of it.
    bool lists_read() const { return lists_read_.load(); }
    // The file's lists, read after the first frame, were invalid (or unreadable): the plan must go.
    const std::optional<LoadFailure>& late_failure() const { return late_failure_; }
    // The file's lists, read after the first frame, are valid but not the templates' expansion:
    // the plan they make, indexed, to be shown in place of this one.
    const std::shared_ptr<const Document>& replacement() const { return replacement_; }
    // Its lists were read after the first frame and it is to go (replaced or invalid): the
    // background part stops there.
    bool superseded() const { return lists_read() && (late_failure_ || replacement_); }
    // What the background part is doing ("reading ops", "indexing ops"), for the progress bar.
    const char* stage() const { return lists_read() ? "indexing ops" : "reading ops"; }
    // Its thread is still at work (the destructor would wait for it).
    bool indexing() const { return started_.load() && !complete(); }
    // How far the background part has come, 0 to 1.
    double completion() const { return complete() ? 1.0 : progress_.load(std::memory_order_relaxed) / 1000.0; }

    const std::string& path() const { return path_; }
    const schema::Blueprint& plan() const { return plan_; }
    const std::vector<Unit>& units() const { return units_; }
    const std::vector<Instance>& instances() const { return instances_; }

    std::int32_t instance_of_node(std::size_t node) const { return instance_of_node_[node]; }
    std::int32_t local_of_node(std::size_t node) const { return local_of_node_[node]; }
    // Edges whose ends lie in two instances (a layer's out port to the next layer's in ports).
    const std::vector<std::int32_t>& crossing_edges() const { return crossing_; }
    const std::vector<std::int32_t>& in_edges(std::size_t node) const { return flat().in[node]; }
    const std::vector<std::int32_t>& out_edges(std::size_t node) const { return flat().out[node]; }
    // The node's index by id, or -1.
    std::int64_t find_node(std::string_view id) const;
    // Why `id` names no op: a layer the plan does not have ("the plan has 36 layers: l0..l35"),
    // else a near miss among the ops' ids, else nothing more.
    std::string unknown_node(std::string_view id) const;
    // The instance serving a layer, or -1.
    std::int32_t instance_of_layer(std::int64_t layer) const;

    // The roofline cost on the plan's target, when the plan names one kbp knows.
    const std::optional<planner::CostReport>& cost() const {
        std::call_once(cost_once_, [this] { work_out_cost(); });
        return cost_;
    }
    const std::string& cost_error() const {
        (void)cost();
        return cost_error_;
    }
    void estimate_cost() const { (void)cost(); }  // now, rather than on first use

    std::optional<FileStamp> stamp;  // of the file when it was read

private:
    schema::Blueprint plan_;
    std::string path_;
    std::vector<Unit> units_;
    std::vector<Instance> instances_;
    std::vector<std::int32_t> instance_of_node_, local_of_node_;
    std::vector<std::int32_t> crossing_;
    struct FlatIndex {
        std::vector<std::vector<std::int32_t>> in, out;
        std::vector<std::pair<std::string_view, std::int32_t>> ids;  // sorted, for find_node (views of the nodes' ids)
    };
    // Made once, on first use or by the background thread (call_once: a second caller waits).
    mutable FlatIndex flat_;
    mutable std::once_flag flat_once_;
    mutable std::optional<planner::CostReport> cost_;
    mutable std::string cost_error_;
    mutable std::once_flag cost_once_;
    mutable std::atomic<bool> flat_done_{false}, cost_done_{false};
    mutable std::future<void> background_;
    mutable std::once_flag background_once_;
    mutable std::atomic<bool> started_{false};
    mutable std::atomic<int> progress_{0};  // per mille: reading the lists, indexing them, the cost
    mutable std::atomic<bool> lists_read_{true};
    bool lists_after_ = false;  // made by ListsToRead
    std::size_t max_problems_ = 200;
    mutable std::optional<LoadFailure> late_failure_;      // set before lists_read_
    mutable std::shared_ptr<const Document> replacement_;  // set before lists_read_

    void index_folded();
    void read_lists() const;
    void index_flat() const;
    void work_out_cost() const;
    const FlatIndex& flat() const {
        std::call_once(flat_once_, [this] { index_flat(); });
        return flat_;
    }
};

struct Loaded {
    std::shared_ptr<const Document> document;  // null on failure
    std::optional<LoadFailure> failure;
};

struct LoadOptions {
    std::size_t max_problems = 200;  // listed of an invalid plan
    // A plan file of this many bytes or more whose collapsed form is lossless is shown before its
    // flat lists are read (Document::ListsToRead).
    std::size_t lists_after_above = std::size_t{8} << 20;
};

// Reads, validates and indexes the plan at `path`; estimates its cost when its target is known.
Loaded load_document(const std::string& path, const LoadOptions& options = {});

}  // namespace kbp::viewer
