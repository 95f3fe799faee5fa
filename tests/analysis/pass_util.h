// One pipeline stage by its command-line name, for the pass tests.
#pragma once

#include "analysis/pipeline.h"

#include <catch2/catch.hpp>

#include <optional>
#include <string>

namespace funmem::test {

struct PassResult {
  std::optional<Program> program; // empty on failure
  std::string error;              // `stage NAME: why`
  std::string report;
  std::optional<ScReport> sc;
};

/// Runs the stage `name` (fun-to-funmem, sc, merge, ...) on the typed program `p`.
inline PassResult run_pass(const std::string& name, const Program& p) {
  auto stage = stage_from_name(name);
  REQUIRE(stage);
  PipelineOptions opt;
  opt.stages = {*stage};
  PipelineResult r = run_pipeline(p, opt);
  PassResult out;
  out.error = r.error;
  if (!r.ok()) return out;
  out.program = std::move(r.stages[0].program);
  out.report = std::move(r.stages[0].report);
  out.sc = std::move(r.stages[0].sc);
  return out;
}

} // namespace funmem::test
