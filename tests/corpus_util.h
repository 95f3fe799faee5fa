// Corpus helpers shared by the pass tests: the well-typed programs of one language, a
// data set's inputs when they fit the parameters, and whether expand keeps an allocation
// inside a kernel (such a program cannot be lowered to CUDA).
#pragma once

#include "analysis/pipeline.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/typecheck.h"
#include "tests/test_util.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

namespace funmem::test {

struct CorpusProgram {
  std::filesystem::path path;
  Program program;
};

/// Every corpus file of `lang` (`.fun` or `.funmem`) that parses and type-checks.
inline std::vector<CorpusProgram> well_typed_corpus(Lang lang) {
  namespace fs = std::filesystem;
  const char* ext = lang == Lang::Fun ? ".fun" : ".funmem";
  std::vector<CorpusProgram> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(FUNMEM_SOURCE_DIR) / "corpus")) {
    if (e.path().extension() != ext) continue;
    ParseResult r = parse_program(slurp(e.path()), lang);
    if (r.program && typecheck(*r.program).empty()) out.push_back({e.path(), *r.program});
  }
  std::sort(out.begin(), out.end(),
            [](const CorpusProgram& a, const CorpusProgram& b) { return a.path < b.path; });
  return out;
}

/// Whether expand, after the stages before it, keeps an allocation inside a kernel and
/// says why (its report counts it as refused): the code generator has no per-thread
/// blocks, so the program is not lowered.
inline bool expand_keeps_allocation(const Program& p) {
  PipelineOptions opt;
  opt.stages = standard_stages(p.lang, true, false);
  PipelineResult r = run_pipeline(p, opt);
  if (!r.ok() || r.stages.empty() || r.stages.back().stage != Stage::Expand) return false;
  const std::string& rep = r.stages.back().report;
  return rep.find(", 0 refused") == std::string::npos && rep.find(" refused") != std::string::npos;
}

/// The corpus programs the CUDA tests lower (emulation, nvcc, translation validation), in
/// one order: well typed, not expected invalid, racy or to fail with a heap-only error
/// (elemtype), whose FUNMEM is wrong on purpose, and with no allocation that expand keeps
/// inside a kernel (`kept`, when given, lists those: the code generator has no
/// per-thread blocks).
inline std::vector<CorpusProgram> lowerable_corpus(std::vector<std::string>* kept = nullptr) {
  std::vector<CorpusProgram> out;
  for (Lang lang : {Lang::Fun, Lang::FunMem})
    for (CorpusProgram& c : well_typed_corpus(lang)) {
      bool skip = false;
      for (const Expect& e : c.program.expects)
        skip = skip || e.word == "invalid" || e.word == "race" ||
               (e.word == "error" && e.arg == "elemtype");
      if (skip) continue;
      if (expand_keeps_allocation(c.program)) {
        if (kept) kept->push_back(c.path.string());
        continue;
      }
      out.push_back(std::move(c));
    }
  return out;
}

/// The inputs of a data set, or nullopt when it does not fit the parameters.
inline std::optional<Inputs> try_inputs(const Def& def, const InputSet* set, uint64_t seed) {
  try {
    return make_inputs(def, set, seed);
  } catch (const RunError&) {
    return std::nullopt;
  }
}

} // namespace funmem::test
