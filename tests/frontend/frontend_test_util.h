// Helpers of the front end's tests: kernels parsed from text, verdicts, launch facts.
#pragma once

#include "frontend/campaign/differential.h"
#include "frontend/check.h"
#include "frontend/extract.h"
#include "frontend/race.h"
#include "tests/test_util.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace funmem::frontend_test {

using namespace funmem::frontend;

inline KernelSummary one(const std::string& code) {
  ExtractResult r = extract(code, "k.cu");
  INFO(code);
  for (const std::string& e : r.errors)
    UNSCOPED_INFO(e);
  REQUIRE(r.errors.empty());
  REQUIRE(r.kernels.size() == 1);
  return r.kernels[0];
}

inline Verdict verdict(const std::string& code, std::vector<Formula> facts = {}) {
  RaceOptions o;
  o.facts = std::move(facts);
  return check_kernel(one(code), o).verdict;
}

inline Poly v(const char* n) {
  return Poly::var(n);
}

inline std::vector<Formula> facts(std::initializer_list<const char*> texts) {
  std::vector<Formula> out;
  for (const char* t : texts) {
    Diagnostic d;
    auto f = parse_launch_fact(t, &d);
    REQUIRE(f);
    out.push_back(*f);
  }
  return out;
}

/// What funmem-extract says of a file's kernels (check_cuda_file: the static verdicts,
/// then the open ones run), under the header's facts and options and `o`'s.
inline FileCheck check_file(const std::string& code, const std::string& file, RaceOptions o = {}) {
  CheckOptions c;
  c.race = std::move(o);
  return check_cuda_file(code, file, c);
}

inline std::string problems_of(const std::string& code) {
  std::string all;
  for (const Problem& p : one(code).unsupported)
    all += std::to_string(p.pos.line) + ":" + std::to_string(p.pos.col) + " " + p.what + "\n";
  return all;
}

/// A scratch folder of the detector's tests under the system's temporary folder.
inline std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("funmem-race-run-test-" + name);
}

} // namespace funmem::frontend_test
