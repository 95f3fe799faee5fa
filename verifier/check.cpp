// Static checks of one file against its expectations (see check.h).
#include "verifier/check.h"

#include "analysis/pipeline.h"
#include "analysis/to_imp.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"
#include "ir/unmem.h"

#include <chrono>
#include <functional>

namespace funmem {

const char* expect_status_name(ExpectStatus s) {
  switch (s) {
  case ExpectStatus::Holds:
    return "holds";
  case ExpectStatus::Fails:
    return "fails";
  case ExpectStatus::Unchecked:
    return "unchecked";
  }
  return "?";
}

bool CheckReport::ok() const {
  if (!stage_mismatches.empty() || !pipeline_error.empty()) return false;
  for (const ExpectResult& e : expectations)
    if (e.status == ExpectStatus::Fails) return false;
  return true;
}

bool DataSetRun::valid() const {
  return !input_error && !value_error && !heap_error && races.empty() && !mismatch;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string where(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

std::string inputs_text(const Inputs& in) {
  std::string s;
  for (const auto& [n, d] : in)
    if (!d.is_mem) s += (s.empty() ? "" : " ") + n + "=" + d.to_string(6);
  return s;
}

/// The inputs of a data set; false (with r.input_error) when they do not fit.
bool prepare(DataSetRun& r, const Program& p, const InputSet* set, uint64_t seed, Inputs& in) {
  try {
    in = make_inputs(p.def, set, seed);
  } catch (const RunError& e) {
    r.input_error = e;
    return false;
  }
  r.inputs = inputs_text(in);
  return true;
}

/// One data set's inputs and its value-semantics run, shared by every stage.
struct Reference {
  DataSetRun base; // name, inputs, input error and value error
  Inputs in;
  RunResult value;
};

Reference reference_run(const Program& p, const Program& fun, const InputSet* set, std::string name,
                        const CheckOptions& opt, uint64_t seed) {
  Reference ref;
  ref.base.name = std::move(name);
  if (!prepare(ref.base, p, set, seed, ref.in)) return ref;
  // unmem turns memory parameters into i64 ones; their value does not matter (fig. 4.7).
  for (const Binding& b : p.def.params)
    if (b.type && b.type->kind == Type::Kind::Mem) ref.in[b.name.s].is_mem = true;
  ref.value = run_program(fun, Semantics::Value, ref.in, opt.limits);
  ref.base.value_error = ref.value.error;
  return ref;
}

/// The heap semantics of `mem` on the data set (`results`: its results, when given).
DataSetRun run_data_set(const Reference& ref, const Program* mem, const CheckOptions& opt,
                        std::vector<Data>* results = nullptr) {
  DataSetRun r = ref.base;
  if (!mem || r.input_error) return r;
  RunResult h = run_program(*mem, Semantics::Heap, ref.in, opt.limits);
  r.heap_ran = true;
  r.heap_error = h.error;
  r.races = h.races;
  r.heap_stats = h.stats;
  if (!ref.value.error && !h.error) r.mismatch = compare_results(ref.value.results, h.results);
  if (results) *results = std::move(h.results);
  return r;
}

/// Results to compare with IMP's, which has no memory results of its own (each array's
/// block stands in its place): a FUNMEM source's (of its value or heap semantics) less
/// its memory results; a FUN source's as they are.
std::vector<Data> without_mem_results(const std::vector<Data>& results, const Def& memdef) {
  std::vector<Data> want;
  const bool memless = results.size() != memdef.rets.size();
  for (size_t k = 0; k < results.size(); ++k)
    if (memless || memdef.rets[k].kind != Type::Kind::Mem) want.push_back(results[k]);
  return want;
}

/// The IMP stage: the IMP program's blocks must hold the FUN value semantics' results
/// (`results`: IMP's, when given).
DataSetRun run_imp_data_set(const Reference& ref, const imp::Program& ip, const Def& memdef,
                            const CheckOptions& opt, std::vector<Data>* results = nullptr) {
  DataSetRun r = ref.base;
  r.stage = "to-imp";
  if (r.input_error) return r;
  r.heap_ran = true;
  // IMP's blocks are filled as the heap semantics places the parameters.
  Inputs in;
  try {
    in = imp_inputs(memdef, ref.in, opt.limits);
  } catch (const RunError& e) {
    r.heap_error = e;
    return r;
  }
  RunResult h = run_imp(ip, in, opt.limits);
  r.heap_error = h.error;
  // IMP has no assume: a failed assume of the value semantics ends the comparison.
  const auto& v = ref.value;
  if (v.error && v.error->kind == "assume" && !h.error) r.heap_error = v.error;
  r.races = h.races;
  r.heap_stats = h.stats;
  if (!v.error && !h.error)
    r.mismatch = compare_imp_results(without_mem_results(v.results, memdef), h.results);
  if (results) *results = std::move(h.results);
  return r;
}

/// Whether two runs end alike: both with results, or with errors of one kind at one
/// position.
bool same_end(const std::optional<RunError>& a, const std::optional<RunError>& b) {
  // A resource error (--max-memory, --max-steps) is the interpreter's limit, reached where
  // a stage's memory runs out; passes change the memory a run holds, so it compares by
  // its kind alone.
  return !a == !b &&
         (!a || (a->kind == b->kind && (a->kind == "resource" ||
                                        (a->pos.line == b->pos.line && a->pos.col == b->pos.col))));
}

void replace_first(std::string& s, const std::string& from, const std::string& to) {
  if (size_t at = s.find(from); at != std::string::npos) s.replace(at, from.size(), to);
}

/// What every stage must reproduce on one data set. A FUN source: its value semantics
/// (results or an error), and no race. A FUNMEM source: its own heap run (the value
/// semantics' end unless the heap run ends otherwise, its results, its races); when that
/// run has a race the program has no meaning, and only the end is compared.
struct StageReference {
  std::optional<RunError> error;
  /// The results are the source's heap results (a FUNMEM source whose heap run has
  /// results other than the value semantics'): a stage's difference from them is
  /// computed as it runs; else its mismatch with the value semantics is the difference.
  bool heap_results = false;
  bool racy = false;
};

/// How a stage's run differs from the reference: an end of another kind (an error of
/// another kind or at another position, an error where the source has results, results
/// where it has an error), other results, or a race the source does not have.
/// `from_source`: the stage's first result element that differs from the source's heap
/// results (with want.heap_results). The FUNMEM program itself (no stage) may differ:
/// that is what validity checks.
std::vector<std::string> stage_differences(const StageReference& want, const DataSetRun& d,
                                           const std::optional<std::string>& from_source) {
  if (d.stage.empty() || !d.heap_ran) return {};
  const std::string stage = "stage " + d.stage;
  auto text = [](const RunError& e) {
    return e.kind + " error at " + where(e.pos) + " (" + e.what() + ")";
  };
  const std::optional<RunError>& end = d.heap_error;
  // Resource errors (--max-memory, --max-steps) are the interpreter's limits, not the
  // program's meaning: a source that runs out has no end for a stage to reproduce (the
  // stage may hold less memory, or reach an error the source would reach with more), and
  // a stage may run out where the source ends in an error (it may hold its memory
  // earlier). A stage that runs out where the source has results differs.
  if (want.error && want.error->kind == "resource") return {};
  // The cell audit (--audit-sc) runs in the heap semantics only: a source it stops has
  // no end for IMP to reproduce.
  if (d.stage == "to-imp" && want.error && want.error->kind == "audit") return {};
  if (want.error && end && end->kind == "resource") return {};
  if (!same_end(want.error, end)) {
    if (!want.error) return {stage + " ends with the " + text(*end) + ", the source with results"};
    if (!end) return {stage + " ends with results, the source with the " + text(*want.error)};
    return {stage + " ends with the " + text(*end) + ", the source with the " + text(*want.error)};
  }
  std::vector<std::string> out;
  if (want.racy) return out;
  const std::optional<std::string>& results = want.heap_results ? from_source : d.mismatch;
  if (results) out.push_back(stage + "'s results differ from the source's at " + *results);
  if (!d.races.empty())
    out.push_back(stage +
                  " has a data race that the source does not have: " + d.races[0].to_string());
  return out;
}

/// The first difference of a stage's heap results from the source's, both heap
/// results, named as the source and the stage.
std::optional<std::string> differs_from_source(const std::vector<Data>& source,
                                               const std::vector<Data>& got,
                                               const std::string& stage) {
  std::optional<std::string> d = compare_results(source, got);
  if (d) {
    replace_first(*d, ": value semantics ", ": source ");
    replace_first(*d, ", heap semantics ", ", stage " + stage + " ");
  }
  return d;
}

/// Evaluates a run-time expectation over all data sets.
void judge(ExpectResult& er, const CheckReport& r, Lang lang) {
  const Expect& e = er.expect;
  auto any = [&](const std::function<bool(const DataSetRun&)>& f) -> const DataSetRun* {
    for (const DataSetRun& d : r.runs)
      if (f(d)) return &d;
    return nullptr;
  };
  auto describe = [&](const DataSetRun& d) -> std::string {
    if (d.input_error) return d.name + ": the data set does not fit: " + d.input_error->what();
    if (d.value_error)
      return d.name + ": " + d.value_error->kind + " error at " + where(d.value_error->pos) +
             " (value semantics): " + d.value_error->what();
    if (d.heap_error)
      return d.name + ": " + d.heap_error->kind + " error at " + where(d.heap_error->pos) + " (" +
             d.memory_semantics() + "): " + d.heap_error->what();
    if (!d.races.empty()) return d.name + ": " + d.races[0].to_string();
    if (d.mismatch) return d.name + ": results differ at " + *d.mismatch;
    return d.name + ": valid";
  };
  if (e.word == "short-circuit") {
    if (!r.sc) {
      er.status = ExpectStatus::Fails;
      er.detail = r.pipeline_error.empty() ? "the sc stage did not run" : r.pipeline_error;
      return;
    }
    int got = r.sc->proved_points();
    er.status = std::to_string(got) == e.arg ? ExpectStatus::Holds : ExpectStatus::Fails;
    er.detail = std::to_string(got) + " point(s) short-circuited";
    std::string at;
    for (const ScAttempt& a : r.sc->attempts)
      if (a.proved && a.kind != ScKind::ScalarMap) at += (at.empty() ? "" : ", ") + where(a.pos);
    if (!at.empty()) er.detail += " at " + at;
    if (r.sc->refused() > 0) er.detail += ", " + std::to_string(r.sc->refused()) + " refused";
    return;
  }
  if (e.word == "valid") {
    const DataSetRun* bad = any([](const DataSetRun& run) { return !run.valid(); });
    er.status = bad ? ExpectStatus::Fails : ExpectStatus::Holds;
    if (!r.pipeline_error.empty()) {
      er.status = ExpectStatus::Fails;
      er.detail = r.pipeline_error;
      return;
    }
    size_t sets = r.data_sets;
    er.detail = bad ? describe(*bad)
                    : std::to_string(sets) + " data set(s)" +
                          (lang == Lang::Fun ? ", value semantics of the FUN program and heap "
                                               "semantics after every pipeline stage agree, "
                                               "no race"
                                             : ", value and heap semantics agree, no race");
    return;
  }
  if (e.word == "invalid") {
    // Invalid: the results differ, or the cell audit (--audit-sc) saw a read of a cell
    // that no longer holds the array's element.
    auto audited = [](const DataSetRun& run) {
      return run.heap_error && run.heap_error->kind == "audit" && !run.value_error;
    };
    const DataSetRun* d =
        any([&](const DataSetRun& run) { return run.mismatch.has_value() || audited(run); });
    er.status = d ? ExpectStatus::Holds : ExpectStatus::Fails;
    er.detail = d && d->mismatch ? d->name + ": results differ at " + *d->mismatch
                : d ? d->name + ": the cell audit at " + where(d->heap_error->pos) + ": " +
                          d->heap_error->what()
                : lang == Lang::Fun ? "a FUN program has only the value semantics"
                                    : "the semantics agree on every data set";
    return;
  }
  if (e.word == "race") {
    const DataSetRun* d = any([](const DataSetRun& run) { return !run.races.empty(); });
    er.status = d ? ExpectStatus::Holds : ExpectStatus::Fails;
    er.detail = d ? describe(*d) : "no data race on any data set";
    return;
  }
  // error KIND (run time)
  const DataSetRun* d = any([&](const DataSetRun& run) {
    return (run.input_error && run.input_error->kind == e.arg) ||
           (run.value_error && run.value_error->kind == e.arg) ||
           (run.heap_error && run.heap_error->kind == e.arg);
  });
  er.status = d ? ExpectStatus::Holds : ExpectStatus::Fails;
  if (d) {
    er.detail = describe(*d);
  } else {
    const DataSetRun* other = any([](const DataSetRun& run) { return !run.valid(); });
    er.detail = other ? describe(*other) : "every data set runs without error";
  }
}

void run_checks(CheckReport& r, const Program& p, const std::vector<Expect>& expects,
                const CheckOptions& opt);

} // namespace

namespace {

/// The expectations of a file, the static ones (`error parse`, `error type`, and every
/// one when the program does not type-check) judged.
std::vector<Expect> judge_static(CheckReport& r, std::vector<Expect> expects) {
  if (expects.empty()) expects.push_back(Expect{"valid", "", Pos{}});
  for (const Expect& e : expects) {
    ExpectResult er{e, ExpectStatus::Unchecked, ""};
    bool static_error = e.word == "error" && (e.arg == "parse" || e.arg == "type");
    if (static_error) {
      bool got = e.arg == "parse" ? !r.parsed : (r.parsed && !r.typed);
      er.status = got ? ExpectStatus::Holds : ExpectStatus::Fails;
      if (!got)
        er.detail = !r.parsed ? "the file has a parse error instead"
                    : r.typed ? "the program parses and type-checks"
                              : "the program parses; the error is a type error";
    } else if (!r.typed) {
      er.status = ExpectStatus::Fails;
      er.detail = r.parsed ? "the program does not type-check" : "the program does not parse";
    }
    r.expectations.push_back(std::move(er));
  }
  return expects;
}

} // namespace

CheckReport check_source(const std::string& file, const std::string& text,
                         const CheckOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckReport r;
  r.file = file;
  r.lang = lang_of_path(file);
  ParseResult pr = parse_program(text, r.lang);
  if (pr.error) {
    r.diagnostics.push_back(*pr.error);
  } else {
    r.parsed = true;
    r.diagnostics = typecheck(*pr.program);
    r.typed = r.diagnostics.empty();
  }
  std::vector<Expect> expects = judge_static(r, pr.program ? pr.program->expects : pr.expects);
  if (r.typed) run_checks(r, *pr.program, expects, opt);
  r.static_seconds = seconds_since(t0) - r.run_seconds;
  return r;
}

CheckReport check_program(const std::string& file, const Program& p, const CheckOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckReport r;
  r.file = file;
  r.lang = p.lang;
  r.parsed = r.typed = true;
  run_checks(r, p, judge_static(r, p.expects), opt);
  r.static_seconds = seconds_since(t0) - r.run_seconds;
  return r;
}

namespace {

/// The programs every data set runs: the FUNMEM program itself, or every stage of the
/// pipeline, then the IMP program of to-imp.
struct HeapPrograms {
  std::vector<std::pair<std::string, Program>> progs; // (stage, program); "" the source
  std::vector<bool> unchanged;                        // per program: equal to the one before
  std::optional<imp::Program> imp;
  Def imp_def; // the FUNMEM def that to-imp translated
};

/// Runs the pipeline: a FUNMEM source runs itself, then the results of sc, merge, hoist
/// and expand: they are confirmed on programs expected to be valid or to end in an
/// error; a racy or invalid program has no meaning to keep. A FUN source runs every stage.
/// Both layouts of expand run: expand-cpu on hoist's result, after the others. A stage that fails
/// fails the file (`pipeline_error`, also a stage mismatch); the stages before it run.
HeapPrograms run_stages(CheckReport& r, const Program& p, const std::vector<Expect>& expects,
                        const CheckOptions& opt) {
  HeapPrograms hs;
  PipelineOptions popt;
  popt.pass = opt.passes;
  if (p.lang == Lang::FunMem) {
    hs.progs.emplace_back("", p);
    hs.unchanged.push_back(false);
    bool meaningful = true;
    for (const Expect& e : expects)
      meaningful = meaningful && e.word != "invalid" && e.word != "race";
    if (meaningful) popt.stages = standard_stages(Lang::FunMem, true, true);
  } else {
    popt.stages = standard_stages(Lang::Fun);
  }
  PipelineResult pres = run_pipeline(p, popt);
  r.pipeline_error = pres.error;
  if (!pres.error.empty()) r.stage_mismatches.push_back("the pipeline stops: " + pres.error);
  if (const ScReport* sc = pres.sc_report()) r.sc = *sc;
  for (StageResult& s : pres.stages) {
    r.stages.push_back(stage_name(s.stage));
    if (s.imp) {
      hs.imp = std::move(*s.imp);
      hs.imp_def = hs.progs.back().second.def;
      continue;
    }
    // A stage that changed nothing runs as the one before it did (the interpreters are
    // deterministic): its runs are copies.
    hs.unchanged.push_back(!hs.progs.empty() && s.unchanged);
    hs.progs.emplace_back(stage_name(s.stage), std::move(*s.program));
  }
  // expand-cpu, the other layout of expand, from hoist's result: its own run.
  for (size_t k = 0; k < hs.progs.size() && pres.error.empty(); ++k) {
    if (hs.progs[k].first != stage_name(Stage::Hoist)) continue;
    popt.stages = {Stage::ExpandCpu};
    PipelineResult cpu = run_pipeline(hs.progs[k].second, popt);
    if (!cpu.error.empty()) {
      r.pipeline_error = cpu.error;
      r.stage_mismatches.push_back("the pipeline stops: " + cpu.error);
      break;
    }
    r.stages.push_back(stage_name(Stage::ExpandCpu));
    hs.unchanged.push_back(false);
    hs.progs.emplace_back(stage_name(Stage::ExpandCpu), std::move(*cpu.stages.at(0).program));
    break;
  }
  return hs;
}

/// Runs one data set through every heap program and compares every stage with the
/// source (stage_differences).
void run_data_set_stages(CheckReport& r, const HeapPrograms& hs, const Reference& ref,
                         const CheckOptions& opt) {
  const size_t first = r.runs.size();
  // A FUN source: its value semantics. A FUNMEM source: its own heap run (the first),
  // which ends as the value semantics does unless the program is invalid.
  StageReference want;
  want.error = ref.value.error;
  // The source's heap results when they are the reference, and per run the difference
  // of its results from them (results are kept only then).
  std::vector<Data> source, got;
  std::vector<std::optional<std::string>> from_source;
  for (size_t h = 0; h < hs.progs.size(); ++h) {
    const auto& [stage, prog] = hs.progs[h];
    const bool ran = !hs.unchanged[h];
    const bool keep = (h == 0 && stage.empty()) || want.heap_results;
    DataSetRun d = ran ? run_data_set(ref, &prog, opt, keep ? &got : nullptr) : r.runs.back();
    if (h == 0 && stage.empty() && d.heap_ran) {
      if (!same_end(d.heap_error, ref.value.error)) want.error = d.heap_error;
      want.heap_results = !want.error && (d.mismatch || ref.value.error);
      want.racy = !d.races.empty();
      if (want.heap_results) source = std::move(got);
    }
    if (!want.heap_results || h == 0)
      from_source.emplace_back();
    else
      from_source.push_back(ran ? differs_from_source(source, got, stage) : from_source.back());
    got.clear();
    d.name = ref.base.name;
    d.stage = stage;
    if (!stage.empty()) d.name += " after " + stage;
    r.runs.push_back(std::move(d));
  }
  if (hs.imp) {
    DataSetRun d = run_imp_data_set(ref, *hs.imp, hs.imp_def, opt, &got);
    d.name += " after to-imp";
    if (want.heap_results && !d.heap_error) { // IMP's blocks against the source's results
      auto diff = compare_imp_results(without_mem_results(source, hs.imp_def), got);
      if (diff) {
        replace_first(*diff, ": value semantics ", ": source ");
        replace_first(*diff, ", IMP ", ", stage to-imp ");
      }
      from_source.push_back(diff);
    } else {
      from_source.emplace_back(); // IMP's blocks are compared with the value semantics
    }
    r.runs.push_back(std::move(d));
  }
  if (ref.base.input_error) return;
  for (size_t j = first; j < r.runs.size(); ++j)
    for (const std::string& why : stage_differences(want, r.runs[j], from_source[j - first]))
      r.stage_mismatches.push_back(r.runs[j].name + ": " + why);
}

/// What sc changed on the data set whose runs start at `first`: the stage before it
/// against its own.
void record_sc_impact(CheckReport& r, Lang lang, size_t first, const std::string& data_set) {
  const DataSetRun *before = nullptr, *after = nullptr;
  for (size_t j = first; j < r.runs.size(); ++j) {
    const DataSetRun& d = r.runs[j];
    if (d.stage == "sc") after = &d;
    if (d.stage == (lang == Lang::Fun ? "fun-to-funmem" : "")) before = &d;
  }
  if (!before || !after || !before->heap_ran || !after->heap_ran || before->heap_error ||
      after->heap_error)
    return;
  CheckReport::ScImpact im;
  im.data_set = data_set;
  im.copied_before = before->heap_stats.copied_elems;
  im.copied_after = after->heap_stats.copied_elems;
  im.elided_after = after->heap_stats.elided_elems;
  im.peak_before = before->heap_stats.peak_bytes;
  im.peak_after = after->heap_stats.peak_bytes;
  r.sc_impact.push_back(im);
}

/// Runs the pipeline and every data set of a typed program and judges the run-time
/// expectations.
void run_checks(CheckReport& r, const Program& p, const std::vector<Expect>& expects,
                const CheckOptions& opt) {
  std::optional<Program> unmemmed;
  const Program& fun = p.lang == Lang::FunMem ? unmemmed.emplace(unmem(p)) : p;
  const HeapPrograms hs = run_stages(r, p, expects, opt);
  // Run every data set (the command line's, else the file's, else one random set).
  const std::vector<InputSet>& sets = opt.inputs.empty() ? p.inputs : opt.inputs;
  size_t count = std::max<size_t>(sets.size(), 1);
  const auto runs_start = std::chrono::steady_clock::now();
  r.data_sets = count;
  for (size_t k = 0; k < count; ++k) {
    const InputSet* set = sets.empty() ? nullptr : &sets[k];
    std::string name = sets.empty()         ? "random inputs"
                       : opt.inputs.empty() ? "input at line " + std::to_string(sets[k].pos.line)
                                            : "--input " + std::to_string(k + 1);
    const size_t first = r.runs.size();
    const Reference ref = reference_run(p, fun, set, name, opt, opt.seed + k);
    if (hs.progs.empty()) {
      r.runs.push_back(run_data_set(ref, nullptr, opt));
      continue;
    }
    run_data_set_stages(r, hs, ref, opt);
    record_sc_impact(r, p.lang, first, name);
  }
  r.run_seconds = seconds_since(runs_start);
  for (ExpectResult& er : r.expectations)
    if (er.status == ExpectStatus::Unchecked && er.detail.empty()) judge(er, r, p.lang);
}

} // namespace

} // namespace funmem
