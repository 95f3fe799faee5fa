// Every valid FUNMEM corpus program (written by hand, not by fun-to-funmem) goes through
// every FUNMEM pass (merge, hoist, expand in both layouts, to-imp) and stays valid and
// race-free: the value semantics of the original (after unmem) equals the heap semantics
// of each result and the IMP program's blocks. The pipeline's stage table, standard
// stages and diagnostics.
#include "analysis/to_imp.h"
#include "interp/interp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"
#include "ir/unmem.h"
#include "tests/analysis/pass_util.h"

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
      test::PassResult pr = test::run_pass(pass, prog);
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

TEST_CASE("the stage table, the standard stages and the pipeline's diagnostics",
          "[passes][pipeline]") {
  for (const StageInfo& i : stage_table()) {
    REQUIRE(stage_from_name(i.name));
    CHECK(*stage_from_name(i.name) == i.stage);
    CHECK(stage_name(i.stage) == std::string(i.name));
  }
  CHECK_FALSE(stage_from_name("no-such-pass"));
  auto names = [](const std::vector<Stage>& ss) {
    std::string t;
    for (Stage s : ss)
      t += std::string(t.empty() ? "" : " ") + stage_name(s);
    return t;
  };
  CHECK(names(standard_stages(Lang::Fun)) == "fun-to-funmem sc merge hoist expand to-imp");
  CHECK(names(standard_stages(Lang::FunMem, false, false)) == "merge hoist expand");

  ParseResult r = parse_program("def f (n : i64) (xs : [n]i64) : ([n]i64) =\n"
                                "  let (ys : [n]i64) = kernel i < n do\n"
                                "    let x = xs[i]\n    let y = x + 1\n    in (y)\n"
                                "  in (ys)\n",
                                Lang::Fun);
  REQUIRE(r.program);
  REQUIRE(typecheck(*r.program).empty());
  PipelineOptions opt;
  opt.stages = standard_stages(Lang::Fun);
  PipelineResult ok = run_pipeline(*r.program, opt);
  INFO(ok.error);
  REQUIRE(ok.ok());
  REQUIRE(ok.stages.size() == opt.stages.size());
  CHECK(ok.stages.back().imp);
  CHECK(ok.last_program(*r.program).lang == Lang::FunMem);
  CHECK(ok.sc_report());
  // A FUNMEM stage on a FUN program fails with the stage named; earlier stages are kept.
  opt.stages = {Stage::FunToFunmem, Stage::FunToFunmem};
  PipelineResult twice = run_pipeline(*r.program, opt);
  CHECK(twice.stages.size() == 1);
  CHECK(twice.failed == Stage::FunToFunmem);
  CHECK(twice.error == "stage fun-to-funmem: fun-to-funmem needs a FUN program");
  opt.stages = {Stage::Merge};
  CHECK(run_pipeline(*r.program, opt).error == "stage merge: merge needs a FUNMEM program");
  opt.stages = {Stage::FunToFunmem, Stage::ToImp, Stage::Merge};
  CHECK(run_pipeline(*r.program, opt).error ==
        "stage to-imp: to-imp must be the last stage (its output is IMP)");
  // Broken variants are options, not global state.
  PassOptions po;
  CHECK(broken_variants_text(po).empty());
  for (const std::string& b : broken_variant_names())
    CHECK(set_broken_variant(po, b));
  CHECK_FALSE(set_broken_variant(po, "sc-everything"));
  CHECK(po.sc.broken_no_overlap);
  CHECK(po.sc.broken_late_facts);
  CHECK(po.sc.prover.broken_no_cross);
  CHECK(po.merge.broken_no_interference);
  CHECK(po.sc.broken_chain_check);
  CHECK(po.sc.broken_outside_block);
  CHECK(po.sc.broken_shared_block);
  CHECK(po.sc.broken_hoist_use);
  CHECK(po.sc.broken_lift_if_result);
  CHECK(po.sc.broken_branch_uses);
  CHECK(po.sc.broken_outside_uses);
  CHECK(broken_variants_text(po) == "--broken sc-no-overlap --broken merge-no-interference "
                                    "--broken sosi-no-cross --broken sc-late-facts "
                                    "--broken sc-float-facts --broken sc-never-fails "
                                    "--broken sc-scratch-in-place --broken sc-no-injective "
                                    "--broken sc-chain-past-check --broken sc-outside-block "
                                    "--broken sc-shared-block --broken sc-check-arith "
                                    "--broken sc-ignore-elemtype --broken sc-hoist-past-use "
                                    "--broken sc-lift-if-result --broken sc-if-branch-uses "
                                    "--broken sc-if-outside-uses");
}
