// Data for generated programs: the boundary-value data set, and the `-- expect:` line a
// program's value semantics gives on it (used by gen.cpp).
#pragma once

#include <random>
#include <string>

namespace funmem {

/// One data set with every array given: integers at the ends of i64 and i32 and around
/// 0, floats with fractions, huge ones and -0.0; sizes 0 to 3 (a size 0 makes both 0).
std::string boundary_input(std::mt19937_64& g);

/// ` za=P zb=Q` for the parameter `zs : [(za - zb) * n]i64` (GenOptions::sized_percent):
/// za - zb is 1 or 2 (with boundary values 0 too), zb is small or 2^62, where the terms
/// za*n and zb*n of the size's normal form leave i64 while the size does not (every pass
/// and IMP must evaluate it as the source does, over the integers).
std::string size_pair_input(std::mt19937_64& g, bool boundary);

/// The program with `-- expect:` saying how its value semantics ends on its one data set:
/// `valid`, or `error KIND`.
std::string settle_expectation(const std::string& text);

} // namespace funmem
