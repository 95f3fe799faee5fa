// The Catch2 main for all funmem tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
