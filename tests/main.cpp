// The Catch2 main of kbp_tests (kept apart so that editing a test does not rebuild it).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
