// assign_fraction_bits: FixedPoint32 formats get their fractional bits F, and GPNPU custom ops
// their template arguments, from the calibrated ranges (--ranges, ranges.hpp).
//
// A FixedPoint32 value has a sign and 31 magnitude bits; a tensor whose values reach m in
// magnitude needs int_bits(m) = max(0, ceil(log2 m)) of them for the integer part, and the
// rest can be fraction. The rules, read off the Chimera compiler's own table for
// Sarashina2.2-3B (docs/gpnpu.md shows the fit), are data in the kernel file:
//   - an op's output: rule "range", F = min(cap, total - int_bits(range) - headroom), total and
//     cap 31; the w4a16 custom ops leave `imf_headroom` bits of margin (F_out), the compiler's
//     adds 2; rule "input" keeps its input's F (RoPE); rule "arg" takes a template argument;
//   - a custom op's input argument (F_in): min(31, 35 - int_bits(range of its smoothed input)):
//     the op's 16-bit activation path leaves 4 bits of slack before it must shift.
// A packed op's arguments cover all its members: F_out fits the widest member output;
// w4a16PackedProj's F_in_a the leading members' inputs, F_in_b the last member's.
// Without a range the value stays unknown ("fx32/f?", a null argument) and `kbp check` lists
// the op; a range that leaves no bits for the fraction is an error naming the tensor.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>

#include "planner/passes.hpp"
#include "planner/ranges.hpp"

namespace kbp::planner {
namespace {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

struct Rule {
    int total = 31, cap = 31, headroom = 0;
};

// The bits a rule (a FractionRule or a TemplateArg) gives, its text filled in for this plan.
template <class Spec> Result<Rule> rule_of(const Ir& ir, const Spec& spec, const std::string& where) {
    Rule r;
    auto integer = [&](const char* key, const std::optional<BitsOrText>& given, int& out) -> Status {
        if (!given) return Ok{};
        std::string text = std::holds_alternative<std::string>(*given) ? ir.fill(std::get<std::string>(*given))
                                                                       : std::to_string(std::get<std::int64_t>(*given));
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
        if (ec != std::errc{} || end != text.data() + text.size())
            return make_error(ErrorCode::invalid_input, where + "/" + key,
                              "'" + text + "' is not a whole number" +
                                  (text.find('{') != std::string::npos ? " (it may name the symbols and the settings of " + ir.recipe->origin + ": /settings)" : ""));
        return Ok{};
    };
    if (auto s = integer("total", spec.total, r.total); !s) return s.error();
    if (auto s = integer("cap", spec.cap, r.cap); !s) return s.error();
    if (auto s = integer("headroom", spec.headroom, r.headroom); !s) return s.error();
    return r;
}

// One value the rule gives for a magnitude, with the sentence `kbp why` prints.
struct Bits {
    int value = -1;  // -1: unknown
    std::string why;
};

class FractionBits {
public:
    explicit FractionBits(Ir& ir) : ir_(ir) {}

    Status run() {
        for (const auto& g : ir_.groups)
            if (auto s = template_args(g); !s) return s;
        for (std::size_t i = 0; i < ir_.nodes.size(); ++i)
            if (auto s = outputs(ir_.nodes[i]); !s) return s;
        for (auto& n : ir_.nodes) refresh_activation(n);
        std::size_t unused = 0;
        std::string first;
        for (const auto& [id, r] : ir_.tensor_ranges)
            if (!used_.count(id) && unused++ == 0) first = id;
        if (unused)
            ir_.warnings.push_back(ir_.ranges->origin + ": " + std::to_string(unused) + " of " + std::to_string(ir_.tensor_ranges.size()) +
                                   " ranges name no FixedPoint32 tensor of this plan (first: '" + first + "')");
        return Ok{};
    }

private:
    // The range of `tensor` (or of its part `part` of `parts`), marking it used.
    const TensorRange* range(const IrTensor& tensor) {
        auto it = ir_.tensor_ranges.find(tensor.id);
        if (it == ir_.tensor_ranges.end()) return nullptr;
        used_.insert(tensor.id);
        return &it->second;
    }

    static double magnitude(const TensorRange& r, int part, int parts) {
        if (parts > 1 && static_cast<int>(r.parts.size()) == parts)
            return std::max(std::abs(r.parts[part].first), std::abs(r.parts[part].second));
        return std::max(std::abs(r.min), std::abs(r.max));
    }

    // F from the widest of `tensors` ({tensor, part, parts}); unknown when one has no range.
    // `rule_where`: the data that gave the rule, for an error.
    Result<Bits> from_ranges(const std::vector<std::tuple<const IrTensor*, int, int>>& tensors, const Rule& rule, const std::string& name,
                             const std::string& rule_where) {
        Bits b;
        double widest = 0;
        const TensorRange* widest_range = nullptr;
        const IrTensor* widest_tensor = nullptr;
        for (const auto& [t, part, parts] : tensors) {
            const TensorRange* r = range(*t);
            if (!r) {
                b.why = name + " unknown: no calibrated range for " + t->id;
                return b;
            }
            double m = magnitude(*r, part, parts);
            if (!widest_range || m > widest) widest = m, widest_range = r, widest_tensor = t;
        }
        if (!widest_range) return b;
        const int int_bits = integer_bits(widest);
        const int f = std::min(rule.cap, rule.total - int_bits - rule.headroom);
        if (f < 0)
            return make_error(ErrorCode::invalid_input, widest_range->where,
                              "'" + widest_tensor->id + "' reaches " + number(widest) + ", which needs " + std::to_string(int_bits) +
                                  " integer bits: FixedPoint32 has 31" + (rule.headroom ? " less a headroom of " + std::to_string(rule.headroom) : "") +
                                  ", no bits left for the fraction (" + name + " by " + rule_where + ")");
        b.value = f;
        b.why = name + " = min(" + std::to_string(rule.cap) + ", " + std::to_string(rule.total) + " - int_bits(" + number(widest) + ")=" +
                std::to_string(int_bits) + (rule.headroom ? " - headroom " + std::to_string(rule.headroom) : "") + ") = " + std::to_string(f) +
                "  [" + widest_range->where + (tensors.size() > 1 ? ", widest of " + std::to_string(tensors.size()) : "") + "]";
        return b;
    }

    // Template arguments of every templated kernel launched by group `g`.
    Status template_args(const schema::Group& g) {
        std::set<std::string> done;
        for (auto index : g.nodes) {
            const IrNode& n = ir_.nodes[index];
            if (!n.node.kernel || done.count(*n.node.kernel)) continue;
            const DataFile* file = nullptr;
            const KernelInstance* instance = ir_.kernel_instance(*n.node.kernel, &file);
            if (!instance || !instance->template_args) continue;
            done.insert(*n.node.kernel);
            std::string where = file->origin + ": /instances/" + *n.node.kernel + "/template";
            const std::vector<TemplateArg>& spec = *instance->template_args;

            // The op's members: each projection of the group, split into its parts (gate|up).
            struct Member {
                int node, part, parts;
            };
            std::vector<Member> members;
            const auto& member_table = file->kernel_catalog->members;
            for (auto k : g.nodes) {
                const IrNode& m = ir_.nodes[k];
                if (!m.weighted || m.node.kernel != n.node.kernel) continue;
                int parts = 1;
                if (auto it = member_table.find(m.node.op.name()); it != member_table.end()) parts = static_cast<int>(it->second.size());
                for (int p = 0; p < parts; ++p) members.push_back({static_cast<int>(k), p, parts});
            }
            schema::TemplateArgs args;
            std::vector<std::string> why;
            for (std::size_t a = 0; a < spec.size(); ++a) {
                const TemplateArg& arg = spec[a];
                std::string at = where + "/" + std::to_string(a);
                const std::string& name = arg.name;
                const std::string& rule_name = arg.rule;
                if (rule_name == "members") {
                    args.push_back({name, static_cast<std::int64_t>(members.size())});
                    why.push_back(name + " = " + std::to_string(members.size()) + " projections in one op");
                    continue;
                }
                auto rule = rule_of(ir_, arg, at);
                if (!rule) return rule.error();
                const std::string which = arg.members.value_or("all");
                std::vector<std::tuple<const IrTensor*, int, int>> tensors;
                for (std::size_t m = 0; m < members.size(); ++m) {
                    bool last = m + 1 == members.size();
                    if ((which == "leading" && last && members.size() > 1) || (which == "last" && !last)) continue;
                    const IrNode& member = ir_.nodes[members[m].node];
                    if (rule_name == "output") {
                        if (member.outputs.empty()) continue;
                        tensors.push_back({&member.outputs.front(), members[m].part, members[m].parts});
                    } else {
                        if (member.inputs.empty()) continue;
                        const auto& in = member.inputs.front();
                        tensors.push_back({&ir_.nodes[in.node].outputs[in.slot], members[m].part, members[m].parts});
                    }
                }
                auto bits = from_ranges(tensors, *rule, name, at);
                if (!bits) return bits.error();
                args.push_back({name, bits->value < 0 ? std::nullopt : std::optional<std::int64_t>(bits->value)});
                why.push_back(bits->why);
            }
            for (auto k : g.nodes) {
                IrNode& m = ir_.nodes[k];
                if (m.node.kernel != n.node.kernel) continue;
                m.node.template_args = args;
                m.why.fraction_bits.push_back(schema::kernel_signature(*n.node.kernel, args) + ":");
                for (const auto& w : why) m.why.fraction_bits.push_back("  " + w);
            }
        }
        return Ok{};
    }

    Status outputs(IrNode& n) {
        static const FractionRule default_rule{.rule = "range"};
        const FractionRule& spec = n.fraction_rule ? *n.fraction_rule : default_rule;
        const std::string where = n.why.kernel_row + "/fraction_bits";
        for (std::size_t o = 0; o < n.outputs.size(); ++o) {
            IrTensor& t = n.outputs[o];
            if (t.format.id != schema::FormatId::fx32) continue;
            const std::string& rule_name = spec.rule;
            const std::string label = "F of " + t.id;
            Bits b;
            if (rule_name == "range") {
                auto rule = rule_of(ir_, spec, where);
                if (!rule) return rule.error();
                auto bits = from_ranges({{&t, 0, 1}}, *rule, label, where);
                if (!bits) return bits.error();
                b = *bits;
            } else if (rule_name == "input") {
                if (!n.inputs.empty()) {
                    const auto& in = n.inputs.front();
                    b.value = schema::fx32_fraction_bits(ir_.nodes[in.node].outputs[in.slot].format);
                    b.why = label + " = F of its input " + ir_.nodes[in.node].outputs[in.slot].id + " (" +
                            (b.value < 0 ? "unknown" : std::to_string(b.value)) + ")";
                }
            } else if (rule_name == "arg") {
                const std::string arg = spec.arg.value_or("");
                b.why = label + " = the op's " + arg;
                if (n.node.template_args)
                    for (const auto& a : *n.node.template_args)
                        if (a.name == arg && a.value) b.value = static_cast<int>(*a.value);
                b.why += " (" + (b.value < 0 ? std::string("unknown") : std::to_string(b.value)) + ")";
            }  // (the schema allows no other rule)
            t.format = schema::fx32_format(b.value);
            if (n.node.precision.output && o < n.node.precision.output->size()) {
                std::vector<schema::Format> formats = n.node.precision.output->vector();  // interned: rebuilt whole
                formats[o] = t.format;
                n.node.precision.output = schema::FormatList(formats);
            }
            if (!b.why.empty()) n.why.fraction_bits.push_back(b.why);
        }
        return Ok{};
    }

    // A FixedPoint32 reader reads the F its first FixedPoint32 input has.
    void refresh_activation(IrNode& n) {
        auto& a = n.node.precision.activation;
        if (!a || a->id != schema::FormatId::fx32) return;
        for (const auto& in : n.inputs) {
            const auto& f = ir_.nodes[in.node].outputs[in.slot].format;
            if (f.id == schema::FormatId::fx32) {
                a = f;
                return;
            }
        }
    }

    Ir& ir_;
    std::set<std::string> used_;
};

}  // namespace

Status assign_fraction_bits(Ir& ir) {
    bool fixed_point = std::any_of(ir.nodes.begin(), ir.nodes.end(), [](const IrNode& n) {
        return std::any_of(n.outputs.begin(), n.outputs.end(), [](const IrTensor& t) { return t.format.id == schema::FormatId::fx32; });
    });
    if (!fixed_point) {
        if (ir.ranges) ir.warnings.push_back(ir.ranges->origin + ": the plan has no FixedPoint32 tensor; the ranges are not used");
        return Ok{};
    }
    return FractionBits(ir).run();
}

}  // namespace kbp::planner
