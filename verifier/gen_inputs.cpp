// Data for generated programs (see gen_inputs.h).
#include "verifier/gen_inputs.h"

#include "interp/interp.h"
#include "ir/parser.h"

#include <cstdint>
#include <iterator>
#include <stdexcept>

namespace funmem {

std::string boundary_input(std::mt19937_64& g) {
  static const char* const ints[] = {"0",
                                     "1",
                                     "-1",
                                     "2",
                                     "-8",
                                     "2147483647",
                                     "-2147483648",
                                     "4611686018427387904",
                                     "-4611686018427387904",
                                     "9223372036854775807",
                                     "-9223372036854775807"};
  static const char* const floats[] = {"0.5", "-0.25", "1.5", "-0.0", "3.0", "1e300", "-1e300"};
  auto draw = [&](int n) { return static_cast<int>(g() % static_cast<uint64_t>(n)); };
  const int n = draw(8) == 0 ? 0 : 1 + draw(3);
  const int m = n == 0 ? 0 : draw(8) == 0 ? 0 : 1 + draw(3);
  auto int_row = [&](int len) {
    std::string r = "[";
    for (int k = 0; k < len; ++k)
      r += std::string(k ? ", " : "") + ints[draw(static_cast<int>(std::size(ints)))];
    return r + "]";
  };
  std::string ys = "[";
  for (int k = 0; k < n; ++k)
    ys += (k ? ", " : "") + int_row(m);
  ys += "]";
  std::string fs = "[";
  for (int k = 0; k < m; ++k)
    fs += std::string(k ? ", " : "") + floats[draw(static_cast<int>(std::size(floats)))];
  fs += "]";
  return "-- input: n=" + std::to_string(n) + " m=" + std::to_string(m) +
         " c=" + (draw(2) ? "true" : "false") + " xs=" + int_row(n) + " ys=" + ys + " fs=" + fs;
}

std::string size_pair_input(std::mt19937_64& g, bool boundary) {
  const uint64_t d = boundary ? g() % 3 : 1 + g() % 2;
  const uint64_t q = g() % 2 ? uint64_t{1} << 62 : g() % 3;
  return " za=" + std::to_string(q + d) + " zb=" + std::to_string(q);
}

std::string settle_expectation(const std::string& text) {
  ParseResult r = parse_program(text + "-- expect: valid\n", Lang::Fun);
  if (!r.program || r.program->inputs.size() != 1)
    throw std::logic_error("funmem-fuzz: a generated program does not parse:\n" + text);
  std::string expect = "-- expect: valid\n";
  try {
    Inputs in = make_inputs(r.program->def, &r.program->inputs[0], 1);
    RunResult run = run_program(*r.program, Semantics::Value, in);
    if (run.error) expect = "-- expect: error " + run.error->kind + "\n";
  } catch (const RunError& e) {
    expect = "-- expect: error " + e.kind + "\n";
  }
  return text + expect;
}

} // namespace funmem
