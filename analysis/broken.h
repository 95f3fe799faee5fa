// Deliberately broken variants of passes, switched on only to show that the fuzzer
// finds the bugs they cause (funmem-fuzz --broken, tests/verifier/fuzz_test.cpp).
// Set before any pass runs; read-only while passes run.
#pragma once

namespace funmem {

struct BrokenVariants {
  bool sc_no_overlap = false;         // sc skips the 6.4.3 non-overlap checks
  bool merge_no_interference = false; // block merging ignores interfering lifetimes
  bool sosi_no_cross = false;         // the SOSI test skips the stride/span conditions
  bool sc_late_facts = false;         // sc proves bounds with facts from after the creation
};

BrokenVariants& broken_variants();

} // namespace funmem
