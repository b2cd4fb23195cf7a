// One libFuzzer target per entry point of entry_points.hpp: CMakeLists.txt compiles this file
// once for each, with KBP_FUZZ_ENTRY naming the entry point.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    kbp::fuzz::KBP_FUZZ_ENTRY(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
