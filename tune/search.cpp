#include "tune/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbp::tune {
namespace {

// One reachable pair and how it was reached: the option of this unit and the point of the
// previous front it extends.
struct Node {
    double constraint = 0, objective = 0;
    int option = -1;
    std::size_t parent = 0;
};

// Keeps the Pareto points of `pairs` (constraint ascending, objective strictly descending).
std::vector<Node> pareto(std::vector<Node> pairs) {
    std::sort(pairs.begin(), pairs.end(), [](const Node& a, const Node& b) {
        if (a.constraint != b.constraint) return a.constraint < b.constraint;
        return a.objective < b.objective;
    });
    std::vector<Node> kept;
    for (const Node& n : pairs)
        if (kept.empty() || n.objective < kept.back().objective) kept.push_back(n);
    return kept;
}

// At most `cap` of the front's points, spread evenly over its constraint range, its ends kept.
std::vector<Node> thin(const std::vector<Node>& front, std::size_t cap) {
    if (front.size() <= cap) return front;
    std::vector<Node> kept;
    const double lo = front.front().constraint, hi = front.back().constraint;
    const double step = (hi - lo) / static_cast<double>(cap - 1);
    double next = lo;
    for (std::size_t i = 0; i < front.size(); ++i)
        if (front[i].constraint >= next || i + 1 == front.size()) {
            kept.push_back(front[i]);
            next = front[i].constraint + step;
        }
    return kept;
}

// max over lambda >= 0 of sum_u min_o (obj + lambda cons) - lambda (limit - fixed): a bound no
// feasible choice beats. The dual is concave and piecewise linear in lambda; a golden-section
// search over a bracket that grows until the bound stops rising is exact enough to state a gap.
double lagrangian_bound(const Problem& p, double limit) {
    auto dual = [&](double lambda) {
        double sum = p.fixed_objective - lambda * (limit - p.fixed_constraint);
        for (const auto& unit : p.units) {
            double best = std::numeric_limits<double>::infinity();
            for (const Option& o : unit)
                if (o.available) best = std::min(best, o.objective + lambda * o.constraint);
            sum += best;
        }
        return sum;
    };
    double hi = 1e-12;
    while (hi < 1e18 && dual(hi * 2) > dual(hi)) hi *= 2;
    double a = 0, b = hi * 2;
    const double r = (std::sqrt(5.0) - 1) / 2;
    for (int i = 0; i < 200; ++i) {
        double c = b - r * (b - a), d = a + r * (b - a);
        if (dual(c) < dual(d)) a = c;
        else b = d;
    }
    return std::max(dual(0), dual((a + b) / 2));
}

}  // namespace

Solution solve(const Problem& problem, double limit, std::size_t max_front) {
    Solution s;
    std::vector<std::vector<Node>> fronts;
    std::vector<Node> front{{problem.fixed_constraint, problem.fixed_objective, -1, 0}};
    s.smallest_constraint = problem.fixed_constraint;
    for (const auto& unit : problem.units) {
        std::vector<Node> next;
        next.reserve(front.size() * unit.size());
        double least = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < front.size(); ++i)
            for (std::size_t o = 0; o < unit.size(); ++o) {
                if (!unit[o].available) continue;
                least = std::min(least, unit[o].constraint);
                next.push_back({front[i].constraint + unit[o].constraint, front[i].objective + unit[o].objective, static_cast<int>(o), i});
            }
        s.smallest_constraint += least;
        next = pareto(std::move(next));
        if (next.size() > max_front) {
            next = thin(next, max_front);
            s.thinned = true;
        }
        fronts.push_back(front);
        front = std::move(next);
    }
    fronts.push_back(front);

    auto pick_of = [&](std::size_t index) {
        FrontPoint p{fronts.back()[index].objective, fronts.back()[index].constraint, std::vector<int>(problem.units.size(), 0)};
        for (std::size_t u = problem.units.size(); u-- > 0;) {
            const Node& n = fronts[u + 1][index];
            p.pick[u] = n.option;
            index = n.parent;
        }
        return p;
    };
    for (std::size_t i = 0; i < front.size(); ++i) s.frontier.push_back(pick_of(i));
    // The tolerance keeps a choice that meets the limit exactly from failing it by rounding.
    const double tolerance = 1e-9 * std::max(1.0, std::abs(limit));
    for (const FrontPoint& p : s.frontier)
        if (p.constraint <= limit + tolerance && (!s.feasible || p.objective < s.best.objective)) {
            s.best = p;
            s.feasible = true;
        }
    s.lower_bound = s.feasible ? (s.thinned ? std::min(s.best.objective, lagrangian_bound(problem, limit)) : s.best.objective) : 0;
    return s;
}

}  // namespace kbp::tune
