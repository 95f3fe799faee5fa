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
  if (!stage_mismatches.empty()) return false;
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

DataSetRun run_data_set(const Reference& ref, const Program* mem, const CheckOptions& opt) {
  DataSetRun r = ref.base;
  if (!mem || r.input_error) return r;
  RunResult h = run_program(*mem, Semantics::Heap, ref.in, opt.limits);
  r.heap_ran = true;
  r.heap_error = h.error;
  r.races = h.races;
  r.heap_stats = h.stats;
  if (!ref.value.error && !h.error) r.mismatch = compare_results(ref.value.results, h.results);
  return r;
}

/// The IMP stage: the IMP program's blocks must hold the FUN value semantics' results.
DataSetRun run_imp_data_set(const Reference& ref, const imp::Program& ip, const Def& memdef,
                            const CheckOptions& opt) {
  DataSetRun r = ref.base;
  r.stage = "to-imp";
  if (r.input_error) return r;
  RunResult h = run_imp(ip, imp_inputs(memdef, ref.in), opt.limits);
  r.heap_ran = true;
  r.heap_error = h.error;
  // IMP has no assume: a failed assume of the value semantics ends the comparison.
  const auto& v = ref.value;
  if (v.error && v.error->kind == "assume" && !h.error) r.heap_error = v.error;
  r.races = h.races;
  r.heap_stats = h.stats;
  if (!v.error && !h.error) r.mismatch = compare_imp_results(v.results, h.results);
  return r;
}

/// Whether two runs end alike: both with results, or with errors of one kind at one
/// position.
bool same_end(const std::optional<RunError>& a, const std::optional<RunError>& b) {
  return !a == !b &&
         (!a || (a->kind == b->kind && a->pos.line == b->pos.line && a->pos.col == b->pos.col));
}

/// Why a stage's run ends otherwise than the source's value semantics (nullopt: alike).
/// The FUNMEM program itself (no stage) may differ: that is what validity checks.
std::optional<std::string> stage_ends_otherwise(const std::optional<RunError>& want,
                                                const DataSetRun& d) {
  if (d.stage.empty() || !d.heap_ran) return std::nullopt;
  const std::optional<RunError>& got = d.heap_error;
  auto text = [](const RunError& e) {
    return e.kind + " error at " + where(e.pos) + " (" + e.what() + ")";
  };
  if (same_end(want, got)) return std::nullopt;
  if (!want)
    return "stage " + d.stage + " ends with the " + text(*got) + ", the source with results";
  if (!got) return "stage " + d.stage + " ends with results, the source with the " + text(*want);
  return "stage " + d.stage + " ends with the " + text(*got) + ", the source with the " +
         text(*want);
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
      return d.name + ": " + d.heap_error->kind + " error at " + where(d.heap_error->pos) +
             " (heap semantics): " + d.heap_error->what();
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
    const DataSetRun* d = any([](const DataSetRun& run) { return run.mismatch.has_value(); });
    er.status = d ? ExpectStatus::Holds : ExpectStatus::Fails;
    er.detail = d                   ? d->name + ": results differ at " + *d->mismatch
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

/// Runs the pipeline and every data set of a typed program and judges the run-time
/// expectations.
void run_checks(CheckReport& r, const Program& p, const std::vector<Expect>& expects,
                const CheckOptions& opt) {
  // Run every data set (the command line's, else the file's, else one random set).
  std::optional<Program> unmemmed;
  const Program& fun = p.lang == Lang::FunMem ? unmemmed.emplace(unmem(p)) : p;
  // The heap programs: the FUNMEM program itself, or every stage of the pipeline.
  std::vector<std::pair<std::string, Program>> heaps;
  std::vector<bool> unchanged; // per heap program: equal to the one before
  // A FUNMEM source runs itself, then sc's result: short-circuiting is confirmed on
  // programs expected to be valid or to end in an error (every stage must end alike); a
  // racy or invalid program has no meaning to keep. A FUN source runs every stage.
  PipelineOptions popt;
  popt.pass = opt.passes;
  if (p.lang == Lang::FunMem) {
    heaps.emplace_back("", p);
    unchanged.push_back(false);
    bool meaningful = true;
    for (const Expect& e : expects)
      meaningful = meaningful && e.word != "invalid" && e.word != "race";
    if (meaningful) popt.stages = {Stage::Sc};
  } else {
    popt.stages = standard_stages(Lang::Fun);
  }
  PipelineResult pres = run_pipeline(p, popt);
  r.pipeline_error = pres.error;
  if (const ScReport* sc = pres.sc_report()) r.sc = *sc;
  const imp::Program* imp_prog = nullptr;
  Def imp_def;
  for (StageResult& s : pres.stages) {
    r.stages.push_back(stage_name(s.stage));
    if (s.imp) {
      imp_prog = &*s.imp;
      imp_def = heaps.back().second.def;
      continue;
    }
    // A stage that changed nothing runs as the one before it did (the interpreters are
    // deterministic): its runs are copies.
    unchanged.push_back(!heaps.empty() && s.unchanged);
    heaps.emplace_back(stage_name(s.stage), std::move(*s.program));
  }
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
    if (heaps.empty()) {
      r.runs.push_back(run_data_set(ref, nullptr, opt));
      continue;
    }
    for (size_t h = 0; h < heaps.size(); ++h) {
      const auto& [stage, prog] = heaps[h];
      DataSetRun d = unchanged[h] ? r.runs.back() : run_data_set(ref, &prog, opt);
      d.name = ref.base.name;
      d.stage = stage;
      if (!stage.empty()) d.name += " after " + stage;
      r.runs.push_back(std::move(d));
    }
    if (imp_prog) {
      DataSetRun d = run_imp_data_set(ref, *imp_prog, imp_def, opt);
      d.name += " after to-imp";
      r.runs.push_back(std::move(d));
    }
    // Every stage produced by a pass ends as the source's value semantics does; a
    // FUNMEM source whose own heap semantics ends otherwise (an invalid program) is the
    // reference of its stages itself.
    if (!ref.base.input_error) {
      // (The error alone: the results are not copied.)
      std::optional<RunError> want = ref.value.error;
      const DataSetRun& src = r.runs[first];
      if (p.lang == Lang::FunMem && src.heap_ran && !same_end(src.heap_error, ref.value.error))
        want = src.heap_error;
      for (size_t j = first; j < r.runs.size(); ++j)
        if (auto why = stage_ends_otherwise(want, r.runs[j]))
          r.stage_mismatches.push_back(r.runs[j].name + ": " + *why);
    }
    // What sc changed: the stage before it against its own.
    const DataSetRun *before = nullptr, *after = nullptr;
    for (size_t j = first; j < r.runs.size(); ++j) {
      const DataSetRun& d = r.runs[j];
      if (d.stage == "sc") after = &d;
      if (d.stage == (p.lang == Lang::Fun ? "fun-to-funmem" : "")) before = &d;
    }
    if (before && after && before->heap_ran && after->heap_ran && !before->heap_error &&
        !after->heap_error) {
      CheckReport::ScImpact im;
      im.data_set = name;
      im.copied_before = before->heap_stats.copied_elems;
      im.copied_after = after->heap_stats.copied_elems;
      im.elided_after = after->heap_stats.elided_elems;
      im.peak_before = before->heap_stats.peak_bytes;
      im.peak_after = after->heap_stats.peak_bytes;
      r.sc_impact.push_back(im);
    }
  }
  r.run_seconds = seconds_since(runs_start);
  for (ExpectResult& er : r.expectations)
    if (er.status == ExpectStatus::Unchecked && er.detail.empty()) judge(er, r, p.lang);
}

} // namespace

} // namespace funmem
