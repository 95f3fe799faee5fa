// Differential testing of static verdicts against the dynamic detector (see
// differential.h): the kernel mutator, mutant schemata, the campaign and the shrinker.
#include "frontend/campaign/differential.h"

#include "frontend/check.h"
#include "frontend/cuda/parse.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

namespace funmem::frontend {

namespace {

using namespace clang;
// funmem has its own Stmt, Expr and Decl; inside this file the names are clang's.
using clang::Decl;
using clang::Expr;
using clang::Stmt;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Collects the mutations of the functions of the main file.
class Mutator : public RecursiveASTVisitor<Mutator> {
public:
  Mutator(ASTContext& ctx, const std::string& code)
      : ctx_(ctx), sm_(ctx.getSourceManager()), code_(code) {}
  std::vector<Mutation> out;

  void kernel(const FunctionDecl* f) {
    const auto* body = dyn_cast<CompoundStmt>(f->getBody());
    if (!body || body->getRBracLoc().isMacroID()) return;
    size_t end = offset(body->getRBracLoc());
    size_t before = offset(sm_.getExpansionLoc(f->getSourceRange().getBegin()));
    std::string gid = "(int)(blockIdx.x * blockDim.x + threadIdx.x)";
    // Stores added: into element 0 of every pointer parameter (its first field for a
    // structure) and every __shared__ variable declared at the top of the body.
    std::vector<std::pair<std::string, QualType>> objects;
    for (const ParmVarDecl* p : f->parameters())
      if (p->getType()->isPointerType())
        objects.push_back({p->getNameAsString() + "[0]", p->getType()->getPointeeType()});
    for (const Stmt* s : body->body())
      if (const auto* ds = dyn_cast<DeclStmt>(s))
        for (const Decl* d : ds->decls())
          if (const auto* v = dyn_cast<VarDecl>(d); v && v->hasAttr<CUDASharedAttr>()) {
            QualType t = v->getType();
            std::string lv = v->getNameAsString();
            while (const auto* at = ctx_.getAsConstantArrayType(t)) {
              lv += "[0]";
              t = at->getElementType();
            }
            objects.push_back({lv, t});
          }
    int helper = 0;
    for (auto [lv, t] : objects) {
      if (t.isConstQualified()) continue;
      if (const auto* r = t->getAsRecordDecl()) {
        auto field = r->field_begin();
        if (field == r->field_end() || !field->getType()->isArithmeticType() ||
            field->getType().isConstQualified())
          continue;
        lv += "." + field->getNameAsString();
        t = field->getType();
      }
      if (!t->isArithmeticType()) continue;
      std::string store = lv + " = " + lv + ";";
      add("a store " + store + " added at the end of " + f->getNameAsString(),
          {{end, end, " { " + store + " } ", " if (fm_mutant(@ID@)) { " + store + " } "}});
      // A call of a device function that writes the element after the thread's own.
      if (lv.find('.') != std::string::npos || lv.rfind("[0]") != lv.size() - 3 ||
          lv.find('[') != lv.rfind('['))
        continue;
      std::string base = lv.substr(0, lv.size() - 3), type = t.getUnqualifiedType().getAsString();
      bool shared = true;
      for (const ParmVarDecl* p : f->parameters())
        shared = shared && p->getNameAsString() != base;
      if (shared) continue;
      std::string fn = "fm_mutant_write_" + f->getNameAsString() + "_" + std::to_string(helper++);
      std::string def = "__device__ void " + fn + "(" + type + "* q, int i) { q[i] = q[i]; }\n";
      std::string call = fn + "(" + base + ", " + gid + " + 1);";
      add("a call " + call + " added at the end of " + f->getNameAsString(),
          {{before, before, def, def, true},
           {end, end, " { " + call + " } ", " if (fm_mutant(@ID@)) { " + call + " } "}});
    }
  }

  bool VisitArraySubscriptExpr(ArraySubscriptExpr* a) {
    const Expr* i = a->getIdx();
    auto r = range(i);
    if (!r) return true;
    add("index " + text(a) + " at " + where(a) + " off by one",
        {{r->first, r->first, "(", "("}, {r->second, r->second, ") + 1", ") + fm_mutant(@ID@)"}});
    return true;
  }
  bool VisitMemberExpr(MemberExpr* m) {
    const auto* d = dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts());
    if (!d) return true;
    std::string base = d->getDecl()->getNameAsString(),
                field = m->getMemberDecl()->getNameAsString();
    if (base != "threadIdx" && base != "blockIdx") return true;
    auto r = range(m);
    if (!r) return true;
    std::string other = (base == "threadIdx" ? "blockIdx." : "threadIdx.") + field;
    std::string orig = base + "." + field;
    add(orig + " at " + where(m) + " replaced by " + other,
        {{r->first, r->second, other, "(fm_mutant(@ID@) ? " + other + " : " + orig + ")"}});
    return true;
  }
  bool VisitCallExpr(CallExpr* c) {
    const FunctionDecl* f = c->getDirectCallee();
    if (!f || f->getNameAsString() != "__syncthreads") return true;
    auto r = range(c);
    if (!r) return true;
    add("the barrier at " + where(c) + " removed",
        {{r->first, r->second, "(void)0", "(fm_mutant(@ID@) ? (void)0 : __syncthreads())"}});
    return true;
  }
  bool VisitIfStmt(IfStmt* s) {
    const Expr* c = s->getCond();
    auto r = range(c);
    if (!r || s->getConditionVariable()) return true;
    bool ret = isa<ReturnStmt>(s->getThen());
    if (const auto* cs = dyn_cast<CompoundStmt>(s->getThen()))
      ret = cs->size() == 1 && isa<ReturnStmt>(cs->body_front());
    if (ret)
      add("the early return at " + where(s) + " dropped",
          {{r->first, r->first, "0 && (", "!fm_mutant(@ID@) && ("},
           {r->second, r->second, ")", ")"}});
    else
      add("the guard at " + where(s) + " dropped",
          {{r->first, r->first, "1 || (", "fm_mutant(@ID@) || ("},
           {r->second, r->second, ")", ")"}});
    return true;
  }

private:
  ASTContext& ctx_;
  SourceManager& sm_;
  const std::string& code_;

  size_t offset(SourceLocation l) const { return sm_.getFileOffset(l); }
  std::optional<std::pair<size_t, size_t>> range(const Stmt* s) const {
    SourceRange r = s->getSourceRange();
    if (r.getBegin().isMacroID() || r.getEnd().isMacroID()) return std::nullopt;
    if (!sm_.isInMainFile(r.getBegin())) return std::nullopt;
    SourceLocation end = Lexer::getLocForEndOfToken(r.getEnd(), 0, sm_, ctx_.getLangOpts());
    if (end.isInvalid()) return std::nullopt;
    return std::make_pair(offset(r.getBegin()), offset(end));
  }
  std::string text(const Stmt* s) const {
    auto r = range(s);
    return r ? code_.substr(r->first, r->second - r->first) : "?";
  }
  std::string where(const Stmt* s) const {
    PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(s->getBeginLoc()));
    return std::to_string(p.getLine()) + ":" + std::to_string(p.getColumn());
  }
  void add(std::string what, std::vector<Edit> edits) {
    out.push_back({std::move(what), std::move(edits)});
  }
};

/// Applies edits (sorted; an edit overlapping an earlier one's range is an error).
std::optional<std::string> apply(const std::string& code, std::vector<Edit> edits, bool schema,
                                 const std::vector<size_t>& ids) {
  std::vector<size_t> order(edits.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Edit &x = edits[a], &y = edits[b];
    if (x.begin != y.begin) return x.begin < y.begin;
    return (x.begin == x.end) > (y.begin == y.end); // insertions first
  });
  std::string out;
  size_t at = 0;
  for (size_t i : order) {
    const Edit& e = edits[i];
    if (e.begin < at) return std::nullopt;
    out += code.substr(at, e.begin - at);
    std::string t = schema ? e.schema : e.plain;
    if (size_t p = t.find("@ID@"); p != std::string::npos) t.replace(p, 4, std::to_string(ids[i]));
    out += t;
    at = e.end;
  }
  out += code.substr(at);
  return out;
}

struct StaticVerdict {
  std::string kernel;
  Verdict verdict = Verdict::Unknown;
  std::optional<RaceWitness> witness;
};

std::optional<std::vector<StaticVerdict>>
static_verdicts(const std::string& src, const std::string& file, const RaceCampaignOptions& opt) {
  FileCheck fc = check_cuda_file(src, file, campaign_check_options(opt));
  if (!fc.parsed) return std::nullopt;
  std::vector<StaticVerdict> out;
  for (size_t i = 0; i < fc.kernels.size(); ++i)
    out.push_back({fc.kernels[i].name, fc.verdicts[i].verdict, fc.verdicts[i].witness});
  return out;
}

Launch launch_union(const std::vector<KernelSummary>& ks, const GpuVerifyHeader& h) {
  Launch l;
  for (int d = 0; d < 3; ++d)
    l.block[d] = l.grid[d] = 1;
  for (const KernelSummary& k : ks) {
    Launch m = default_launch(k, h);
    for (int d = 0; d < 3; ++d) {
      l.block[d] = std::max(l.block[d], m.block[d]);
      l.grid[d] = std::max(l.grid[d], m.grid[d]);
    }
  }
  return l;
}

} // namespace

CheckOptions campaign_check_options(const RaceCampaignOptions& opt) {
  CheckOptions o;
  o.race.prover.timeout_ms = opt.timeout_ms;
  o.race.search_limit = opt.search_limit;
  o.race.budget_ms = opt.budget_ms;
  o.extract = opt.extract;
  o.header_semantics = false; // the detector runs plain CUDA
  o.run = false;
  return o;
}

const JobResult* result_for(const std::vector<std::vector<JobResult>>& rs, size_t job,
                            const std::string& kernel) {
  if (job >= rs.size()) return nullptr;
  for (const JobResult& r : rs[job])
    if (r.kernel == kernel) return &r;
  return nullptr;
}

std::vector<Mutation> mutations(const std::string& code, const std::string& file) {
  std::vector<std::string> errors;
  std::unique_ptr<ASTUnit> ast = parse_device_code(code, file, {}, errors);
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) return {};
  ASTContext& ctx = ast->getASTContext();
  SourceManager& sm = ctx.getSourceManager();
  Mutator m(ctx, code);
  for (Decl* d : ctx.getTranslationUnitDecl()->decls()) {
    const auto* f = dyn_cast<FunctionDecl>(d);
    if (!f || !f->doesThisDeclarationHaveABody() || f->isTemplated()) continue;
    if (!sm.isInMainFile(sm.getExpansionLoc(f->getLocation()))) continue;
    m.TraverseDecl(d);
    if (f->hasAttr<CUDAGlobalAttr>()) m.kernel(f);
  }
  // Keep the mutations whose edits apply together with all the others.
  std::vector<Mutation> out;
  std::vector<Edit> all;
  for (Mutation& x : m.out) {
    std::vector<Edit> with = all;
    with.insert(with.end(), x.edits.begin(), x.edits.end());
    if (!apply(code, with, true, std::vector<size_t>(with.size(), 0))) continue;
    all = std::move(with);
    out.push_back(std::move(x));
  }
  return out;
}

std::string apply_mutants(const std::string& code, const std::vector<Mutation>& ms,
                          const std::vector<size_t>& on) {
  std::vector<Edit> edits;
  for (size_t i : on)
    edits.insert(edits.end(), ms[i].edits.begin(), ms[i].edits.end());
  return apply(code, edits, false, std::vector<size_t>(edits.size(), 0)).value_or(code);
}

std::string schema_source(const std::string& code, const std::vector<Mutation>& ms) {
  std::vector<Edit> edits;
  std::vector<size_t> ids;
  std::set<std::string> defs; // a helper definition once
  for (size_t i = 0; i < ms.size(); ++i)
    for (const Edit& e : ms[i].edits) {
      if (e.once && !defs.insert(e.plain).second) continue;
      edits.push_back(e);
      ids.push_back(i);
    }
  return apply(code, edits, true, ids).value_or(code);
}

std::string shrink_kernel_source(const std::string& code,
                                 const std::function<bool(const std::string&)>& fails) {
  std::string cur = code;
  for (bool progress = true; progress;) {
    progress = false;
    std::vector<std::string> errors;
    std::unique_ptr<ASTUnit> ast = parse_device_code(cur, "shrink.cu", {}, errors);
    if (!ast || ast->getDiagnostics().hasErrorOccurred()) break;
    ASTContext& ctx = ast->getASTContext();
    SourceManager& sm = ctx.getSourceManager();
    // Every statement of a compound statement in a function of the main file, last
    // first (later statements depend on earlier declarations, not the reverse).
    std::vector<std::pair<size_t, size_t>> candidates;
    std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
      if (!s) return;
      if (const auto* cs = dyn_cast<CompoundStmt>(s))
        for (const Stmt* c : cs->body()) {
          SourceRange r = c->getSourceRange();
          if (r.getBegin().isMacroID() || r.getEnd().isMacroID()) continue;
          SourceLocation end = Lexer::getLocForEndOfToken(r.getEnd(), 0, sm, ctx.getLangOpts());
          size_t b = sm.getFileOffset(r.getBegin()), e = sm.getFileOffset(end);
          if (e < cur.size() && cur[e] == ';') ++e;
          candidates.push_back({b, e});
        }
      for (const Stmt* c : s->children())
        walk(c);
    };
    for (const Decl* d : ctx.getTranslationUnitDecl()->decls())
      if (const auto* f = dyn_cast<FunctionDecl>(d);
          f && f->doesThisDeclarationHaveABody() &&
          sm.isInMainFile(sm.getExpansionLoc(f->getLocation())))
        walk(f->getBody());
    std::sort(candidates.begin(), candidates.end(), std::greater<>());
    // One pass over the candidates of this parse: each deletion (the range becomes `;`)
    // lies at or after the later candidates' starts, so only the ends of the statements
    // that enclose it move; a candidate inside a deleted range is gone.
    std::vector<std::pair<size_t, size_t>> deleted; // ranges of the parsed text
    for (const auto& [b, e] : candidates) {
      size_t end = e;
      bool gone = false;
      for (const auto& [db, de] : deleted) {
        if (db <= b && b < de) gone = true;
        if (db >= b && de <= e) end -= de - db - 1;
      }
      if (gone) continue;
      std::string next = cur.substr(0, b) + ";" + cur.substr(end);
      if (next != cur && fails(next)) {
        cur = next;
        deleted.push_back({b, e});
        progress = true;
      }
    }
  }
  return cur;
}

namespace {

/// A failure of mutant `on` in `kernel`; a soundness failure is shrunk (the kernel still
/// static race-free, the detector still sees a race) and written to the regress folder.
Failure make_failure(const std::string& code, const std::string& file,
                     const std::vector<Mutation>& ms, const std::vector<size_t>& on,
                     const std::string& kernel, const std::string& kind, const std::string& detail,
                     const RaceCampaignOptions& opt, const fs::path& dir, const Launch& launch,
                     size_t index) {
  Failure f;
  f.file = file;
  f.kind = kind;
  f.detail = detail;
  for (size_t i : on)
    f.what += (f.what.empty() ? "" : "; ") + ms[i].what;
  f.source = apply_mutants(code, ms, on);
  if (kind == "soundness") {
    // Shrink: the kernel still static race-free, the detector still sees a race.
    int attempt = 0;
    f.source = shrink_kernel_source(f.source, [&](const std::string& src) {
      auto sv = static_verdicts(src, file, opt);
      if (!sv) return false;
      bool free = false;
      for (const StaticVerdict& v : *sv)
        free = free || (v.kernel == kernel && v.verdict == Verdict::RaceFree);
      if (!free) return false;
      RaceDetector d(src, file, (dir / ("shrink-" + std::to_string(attempt++))).string());
      if (!d.errors().empty()) return false;
      RaceJob j;
      j.launch = launch;
      const auto rr = d.run({j}, opt.seconds);
      const JobResult* r = result_for(rr, 0, kernel);
      return r && !r->races.empty();
    });
  }
  if (!opt.regress_dir.empty()) {
    fs::create_directories(opt.regress_dir);
    fs::path out =
        fs::path(opt.regress_dir) / (fs::path(file).stem().string() + "-" + kind.substr(0, 9) +
                                     "-" + std::to_string(index) + ".cu");
    std::ofstream(out) << "// funmem-race-fuzz: " << kind << " (" << detail << ")\n// " << f.what
                       << "\n"
                       << f.source;
  }
  return f;
}

} // namespace

RaceCampaignResult campaign_file(const std::string& code, const std::string& file,
                                 const RaceCampaignOptions& opt) {
  RaceCampaignResult res;
  auto t0 = Clock::now();
  std::vector<Mutation> ms = mutations(code, file);
  ExtractResult original = extract(code, file);
  if (ms.empty() || !original.errors.empty()) return res;
  res.kernels = static_cast<int>(original.kernels.size());
  GpuVerifyHeader header = read_gpuverify_header(code);
  Launch base = launch_union(original.kernels, header);
  // The mutants: each mutation alone, then random pairs.
  std::vector<std::vector<size_t>> mutants;
  for (size_t i = 0; i < ms.size(); ++i)
    mutants.push_back({i});
  std::mt19937_64 rng(opt.seed);
  for (int p = 0; p < opt.pairs_per_kernel && ms.size() >= 2; ++p) {
    size_t a = rng() % ms.size(), b = rng() % (ms.size() - 1);
    if (b >= a) ++b;
    mutants.push_back({std::min(a, b), std::max(a, b)});
  }
  // Static verdicts.
  auto ts = Clock::now();
  std::vector<std::optional<std::vector<StaticVerdict>>> statics;
  statics.reserve(mutants.size());
  for (const auto& on : mutants)
    statics.push_back(static_verdicts(apply_mutants(code, ms, on), file, opt));
  res.static_seconds = since(ts);
  // One detector for every mutant.
  fs::path dir = fs::path(opt.work_dir) / fs::path(file).stem();
  auto tc = Clock::now();
  RaceDetector det(schema_source(code, ms), file, dir.string());
  res.compile_seconds = since(tc);
  if (!det.errors().empty()) {
    res.skipped = static_cast<int>(mutants.size());
    res.seconds = since(t0);
    return res;
  }
  std::vector<RaceJob> jobs;
  std::vector<std::tuple<size_t, std::string, std::string>> witness_jobs; // mutant, kernel, text
  for (size_t m = 0; m < mutants.size(); ++m) {
    RaceJob j;
    j.mutant = static_cast<long>(mutants[m][0]);
    j.mutant2 = mutants[m].size() > 1 ? static_cast<long>(mutants[m][1]) : -1;
    j.launch = base;
    // CUDA does not order blocks: every other mutant runs them from the last to the first.
    if (m % 2 == 1) j.launch.args["@@reverse"] = 1;
    jobs.push_back(j);
  }
  for (size_t m = 0; m < mutants.size(); ++m)
    if (statics[m])
      for (const StaticVerdict& v : *statics[m])
        if (v.verdict == Verdict::Race && v.witness) {
          RaceJob j = jobs[m];
          j.launch = witness_launch(*v.witness);
          jobs.push_back(j);
          std::string text = v.witness->first + " / " + v.witness->second + "; launch";
          for (const auto& [n, x] : v.witness->launch)
            text += " " + n + "=" + std::to_string(x);
          witness_jobs.push_back({m, v.kernel, text});
        }
  auto td = Clock::now();
  std::vector<std::vector<JobResult>> rs = det.run(jobs, opt.seconds);
  res.dynamic_seconds = since(td);
  auto record = [&](size_t m, const std::string& kernel, const std::string& kind,
                    const std::string& detail) {
    res.failures.push_back(make_failure(code, file, ms, mutants[m], kernel, kind, detail, opt, dir,
                                        jobs[m].launch, res.failures.size()));
  };
  for (size_t m = 0; m < mutants.size(); ++m) {
    ++res.mutants;
    if (!statics[m]) {
      ++res.skipped;
      continue;
    }
    for (const StaticVerdict& v : *statics[m]) {
      const JobResult* r = result_for(rs, m, v.kernel);
      if (!r || !r->finished) {
        ++res.skipped;
        continue;
      }
      if (!r->races.empty()) ++res.dynamic_races;
      if (v.verdict == Verdict::RaceFree) ++res.static_race_free;
      if (v.verdict == Verdict::Race) ++res.static_race;
      if (v.verdict == Verdict::RaceFree && !r->races.empty())
        record(m, v.kernel, "soundness",
               "static race-free, observed: " + r->races[0].object + " byte " +
                   std::to_string(r->races[0].byte) + ": " + r->races[0].first + " / " +
                   r->races[0].second);
    }
  }
  for (size_t w = 0; w < witness_jobs.size(); ++w) {
    const auto& [m, kernel, text] = witness_jobs[w];
    const JobResult* r = result_for(rs, mutants.size() + w, kernel);
    if (!r || !r->finished) continue;
    if (r->races.empty())
      record(m, kernel, "unconfirmed witness",
             "the static witness's launch ran without a race: " + text +
                 (r->errors.empty() ? "" : "; " + r->errors.front()));
  }
  if (opt.progress)
    opt.progress(file + ": " + std::to_string(res.mutants) + " mutants, " +
                 std::to_string(res.failures.size()) + " failure(s)");
  res.seconds = since(t0);
  return res;
}

} // namespace funmem::frontend
