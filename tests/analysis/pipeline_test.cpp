// Every valid FUNMEM corpus program (written by hand, not by fun-to-funmem) goes through
// every FUNMEM pass (merge, hoist, expand in both layouts, to-imp) and stays valid and
// race-free: the value semantics of the original (after unmem) equals the heap semantics
// of each result and the IMP program's blocks.
#include "analysis/passes.h"
#include "analysis/to_imp.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"
#include "ir/unmem.h"

#include "tests/corpus_util.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace funmem;
namespace fs = std::filesystem;

TEST_CASE("every valid FUNMEM corpus program survives every pass", "[passes][corpus]") {
  int programs = 0;
  for (const test::CorpusProgram& c : test::well_typed_corpus(Lang::FunMem)) {
    const Program& prog = c.program;
    bool valid = false, other = false;
    for (const Expect& x : prog.expects) {
      valid = valid || x.word == "valid";
      other = other || x.word == "invalid" || x.word == "race" || x.word == "error";
    }
    if (!valid || other) continue;
    INFO(c.path.string());
    Program fun = unmem(prog);
    for (const char* pass : {"merge", "hoist", "expand", "expand-cpu"}) {
      INFO(pass);
      PassResult pr = run_pass(pass, prog);
      INFO(pr.error);
      REQUIRE(pr.program);
      std::string why;
      auto imp = funmem_to_imp(*pr.program, nullptr, &why);
      INFO(why);
      REQUIRE(imp);
      for (const InputSet& set : prog.inputs) {
        Inputs in = make_inputs(prog.def, &set, 1);
        for (const Binding& b : prog.def.params)
          if (b.type && b.type->kind == Type::Kind::Mem) in[b.name.s].is_mem = true;
        RunResult v = run_program(fun, Semantics::Value, in);
        RunResult h = run_program(*pr.program, Semantics::Heap, in);
        REQUIRE_FALSE(v.error);
        INFO(print_program(*pr.program) << (h.error ? h.error->what() : ""));
        REQUIRE_FALSE(h.error);
        CHECK(h.races.empty());
        CHECK_FALSE(compare_results(v.results, h.results));
        RunResult i = run_imp(*imp, imp_inputs(pr.program->def, in));
        INFO(imp::print(*imp) << (i.error ? i.error->what() : ""));
        REQUIRE_FALSE(i.error);
        CHECK(i.races.empty());
        // The IMP results skip arrays; compare against the value results without the
        // memory placeholders (unmem made them i64 zeros).
        std::vector<Data> vv;
        for (size_t k = 0; k < v.results.size(); ++k)
          if (!(prog.def.rets[k].kind == Type::Kind::Array)) {
            if (prog.def.rets[k].kind == Type::Kind::Mem && k + 1 < v.results.size())
              vv.push_back(v.results[k + 1]);
            else if (prog.def.rets[k].kind != Type::Kind::Mem)
              vv.push_back(v.results[k]);
          }
        auto diff = compare_imp_results(vv, i.results);
        INFO((diff ? *diff : ""));
        CHECK_FALSE(diff);
      }
    }
    ++programs;
  }
  CHECK(programs >= 8);
}
