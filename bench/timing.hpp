// The benchmarks' one timing rule: the best of N runs (the least disturbed by the machine).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>

namespace kbp::bench {

inline double best_ms(int runs, const std::function<void()>& f) {
    double best = 1e300;
    for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

}  // namespace kbp::bench
