// Compiled, not run, by two ctest cases (tests/CMakeLists.txt) with -Werror=unused-result:
// as it stands it must compile (the control), and with -DKBP_DISCARD it must not — a Status
// that is dropped is refused by the compiler, because Result is [[nodiscard]].
#include "schema/result.hpp"

namespace {
kbp::Status write_something() { return kbp::make_error(kbp::ErrorCode::output, "out.json", "disk full"); }
}  // namespace

int main() {
#ifdef KBP_DISCARD
    write_something();  // the error is lost: refused
    return 0;
#else
    return write_something().ok() ? 0 : 1;
#endif
}
