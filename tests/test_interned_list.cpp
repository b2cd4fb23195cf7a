// InternedList: one stored copy per distinct list, shared by every holder.
#include <catch2/catch.hpp>

#include <thread>

#include "schema/blueprint.hpp"
#include "support.hpp"

using kbp::schema::Format;
using kbp::schema::FormatList;
using kbp::schema::Sym;
using kbp::schema::SymList;

TEST_CASE("interned lists: the same items are the same stored list", "[interned_list]") {
    SymList a{Sym("act bf16"), Sym("compute f32")};
    SymList b(std::vector<Sym>{"act bf16", "compute f32"});
    CHECK(a == b);
    CHECK(a.data() == b.data());  // one copy, not two equal ones
    CHECK(a.size() == 2);
    CHECK(a[1] == "compute f32");
    CHECK(a == std::vector<std::string>{"act bf16", "compute f32"});

    SymList reversed{Sym("compute f32"), Sym("act bf16")};
    CHECK_FALSE(a == reversed);
    CHECK(SymList{} == SymList(std::vector<Sym>{}));
    CHECK(SymList{}.empty());

    FormatList formats{Format::parse("bf16"), Format::parse("f32")};
    CHECK(formats == FormatList(std::vector<Format>{Format::parse("bf16"), Format::parse("f32")}));
    CHECK_FALSE(formats == FormatList{Format::parse("bf16")});
    CHECK(kbp::schema::formats_name(formats) == "bf16,f32");
}

TEST_CASE("interned lists: with() makes a new list and leaves the old one", "[interned_list]") {
    SymList kernels{Sym("norm::rms_norm")};
    SymList more = kernels.with("gemm::w4a16");
    CHECK(kernels.size() == 1);
    CHECK(more.size() == 2);
    CHECK(more.back() == "gemm::w4a16");
    CHECK(more == SymList{Sym("norm::rms_norm"), Sym("gemm::w4a16")});
}

TEST_CASE("interned lists: threads interning the same lists agree", "[interned_list]") {
    std::vector<const Sym*> seen(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < seen.size(); ++t)
        threads.emplace_back([&, t] {
            SymList last;
            for (int i = 0; i < 500; ++i) last = SymList{Sym("thread list"), Sym("item " + std::to_string(i))};
            seen[t] = last.data();
        });
    for (auto& th : threads) th.join();
    for (const Sym* p : seen) CHECK(p == seen[0]);
}

TEST_CASE("interned lists: a loaded plan shares its nodes' step lists", "[interned_list]") {
    const auto& b = kbp::test::seed();
    std::size_t shared = 0;
    for (std::size_t i = 1; i < b.nodes.size(); ++i)
        for (std::size_t j = 0; j < i && j < 64; ++j)
            if (b.nodes[i].steps == b.nodes[j].steps) {
                CHECK(b.nodes[i].steps.data() == b.nodes[j].steps.data());
                ++shared;
                break;
            }
    CHECK(shared > b.nodes.size() / 2);
}
