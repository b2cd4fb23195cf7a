// The choice at the heart of kbp tune, apart from plans and costs: each decision unit takes one
// of its options, each option has an objective (step time, memory or sensitivity) and a
// constraint figure (what the budget limits), both additive over the units; find the choice
// with the least objective whose constraint stays within the limit: a multiple-choice knapsack.
//
// Solved by dynamic programming over Pareto fronts: after each unit, the (constraint, objective)
// pairs reachable so far, every dominated pair dropped. The front of the last unit is the whole
// frontier of the problem, exact while no front outgrows `max_front` points; a front that does
// is thinned to that many (points kept whole: every answer stays feasible), and the answer's
// distance from optimal is bounded by a Lagrangian lower bound (each unit's options priced
// objective + lambda x constraint, minimised unit by unit, over lambda), printed as the gap.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace kbp::tune {

struct Option {
    double objective = 0;
    double constraint = 0;
    bool available = true;  // an option with no kernel on the target at the arm's rows
};

struct Problem {
    std::vector<std::vector<Option>> units;  // each unit's options; at least one available
    double fixed_objective = 0;               // what no choice changes
    double fixed_constraint = 0;
};

struct FrontPoint {
    double objective = 0, constraint = 0;  // fixed parts included
    std::vector<int> pick;                 // an option index per unit
};

struct Solution {
    bool feasible = false;
    FrontPoint best;                  // the least objective within the limit
    double smallest_constraint = 0;   // the least any choice reaches (fixed included)
    double lower_bound = 0;           // no choice within the limit has a smaller objective
    bool thinned = false;             // a front outgrew max_front (the gap says how far from exact)
    std::vector<FrontPoint> frontier; // every Pareto point (objective, constraint), constraint ascending
};

Solution solve(const Problem& problem, double limit, std::size_t max_front = 4096);

}  // namespace kbp::tune
