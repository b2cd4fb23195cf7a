// Layouts made off the UI thread: one worker runs the layout engine (dot, which is not
// thread-safe, so never more than one) on the units it is given, in order; the UI thread takes
// what is finished once per frame and draws the quick layout until then. Opening a plan thus
// shows it at once and the boxes settle as dot finishes each unit.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "exporters/layout_graph.hpp"
#include "schema/result.hpp"

namespace kbp::viewer {

using LayoutEngine = std::function<Result<exporters::GraphLayout>(const exporters::LayoutGraph&)>;

class LayoutService {
public:
    // Without an engine nothing is laid out off the thread (the quick layout stays).
    explicit LayoutService(LayoutEngine engine);
    ~LayoutService();
    LayoutService(const LayoutService&) = delete;
    LayoutService& operator=(const LayoutService&) = delete;

    bool enabled() const { return static_cast<bool>(engine_); }
    // Queues unit `unit` of document `owner` (any number naming who asked).
    void submit(std::uint64_t owner, std::int32_t unit, exporters::LayoutGraph graph);
    // Drops the queued jobs of `owner` (a closed or replaced document).
    void cancel(std::uint64_t owner);

    struct Done {
        std::uint64_t owner = 0;
        std::int32_t unit = 0;
        Result<exporters::GraphLayout> layout = exporters::GraphLayout{};
        double ms = 0;
    };
    std::vector<Done> take();
    // Nothing queued, running, or finished and not yet taken.
    bool idle() const;
    // Blocks until idle() or `seconds` pass; true when idle.
    bool wait_idle(double seconds) const;

private:
    struct Job {
        std::uint64_t owner;
        std::int32_t unit;
        exporters::LayoutGraph graph;
    };
    LayoutEngine engine_;
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    std::deque<Job> queue_;
    std::vector<Done> done_;
    bool running_ = false;
    bool stop_ = false;
    std::thread worker_;

    void run();
};

}  // namespace kbp::viewer
