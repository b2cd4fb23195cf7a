#include "viewer/model/layout_service.hpp"

#include <algorithm>
#include <chrono>

namespace kbp::viewer {

LayoutService::LayoutService(LayoutEngine engine) : engine_(std::move(engine)) {
    if (engine_) worker_ = std::thread([this] { run(); });
}

LayoutService::~LayoutService() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        queue_.clear();
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
}

void LayoutService::submit(std::uint64_t owner, std::int32_t unit, exporters::LayoutGraph graph) {
    if (!engine_) return;
    {
        std::lock_guard lock(mutex_);
        queue_.push_back({owner, unit, std::move(graph)});
    }
    changed_.notify_all();
}

void LayoutService::cancel(std::uint64_t owner) {
    std::lock_guard lock(mutex_);
    std::erase_if(queue_, [&](const Job& j) { return j.owner == owner; });
    std::erase_if(done_, [&](const Done& d) { return d.owner == owner; });
    changed_.notify_all();
}

std::vector<LayoutService::Done> LayoutService::take() {
    std::lock_guard lock(mutex_);
    std::vector<Done> out = std::move(done_);
    done_.clear();
    changed_.notify_all();
    return out;
}

bool LayoutService::idle() const {
    std::lock_guard lock(mutex_);
    return queue_.empty() && !running_ && done_.empty();
}

bool LayoutService::wait_idle(double seconds) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return queue_.empty() && !running_; });
}

void LayoutService::run() {
    while (true) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
            if (stop_) return;
            job = std::move(queue_.front());
            queue_.pop_front();
            running_ = true;
        }
        auto t0 = std::chrono::steady_clock::now();
        auto layout = engine_(job.graph);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        {
            std::lock_guard lock(mutex_);
            running_ = false;
            done_.push_back({job.owner, job.unit, std::move(layout), ms});
        }
        changed_.notify_all();
    }
}

}  // namespace kbp::viewer
