// What the fuzz targets (fuzz_*.cpp, built with -DKBP_FUZZ=ON) feed their inputs through, and
// what the normal suite feeds every input that once crashed them through
// (test_fuzz_regressions.cpp, tests/fuzz/regressions/): one entry point per target, so a
// regression case runs exactly the code that failed.
//
// Each entry point takes any bytes. Bad input is an error Result, never a crash; a good input
// that breaks one of kbp's own promises (a blueprint the validator accepts that the writer and
// reader do not round-trip, a plan the validator refuses) aborts, so libFuzzer reports it.
#pragma once

#include <string_view>

namespace kbp::fuzz {

// The blueprint reader, then the validator on what it read, then writer -> reader round trip
// of a blueprint without problems.
void read_and_validate_blueprint(std::string_view bytes);

// The bytes as a model's config.json, planned for the decode arm with the embedded catalog
// (recipe and target from its "kbp" hints, else its architecture's defaults); a plan is
// validated and costed.
void plan_config(std::string_view bytes);

// The first byte picks a planner data file (data_file_slots()); the rest replaces that file
// in a --catalog folder (or is the --ranges file), and a small llama config is planned with it.
void plan_with_data_file(std::string_view bytes);

// The catalog-relative path of the file `selector` (the first byte) replaces ("ranges.json": the
// --ranges file of a FixedPoint32 plan); scripts name seeds after it.
std::string_view data_file_slot(unsigned char selector);

}  // namespace kbp::fuzz
