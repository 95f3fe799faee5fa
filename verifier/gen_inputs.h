// Data for generated programs: the boundary-value data set, and the `-- expect:` line a
// program's value semantics gives on it (used by gen.cpp).
#pragma once

#include <random>
#include <string>

namespace funmem {

/// One data set with every array given: integers at the ends of i64 and i32 and around
/// 0, floats with fractions, huge ones and -0.0; sizes 0 to 3 (a size 0 makes both 0).
std::string boundary_input(std::mt19937_64& g);

/// The program with `-- expect:` saying how its value semantics ends on its one data set:
/// `valid`, or `error KIND`.
std::string settle_expectation(const std::string& text);

} // namespace funmem
