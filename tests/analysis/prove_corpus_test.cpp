// The proof obligations of corpus/prove/*.prove: every query has the answer its
// `# expect:` line states, and every expected `disjoint` is confirmed by brute force on
// all small assignments (names in 0..6) that satisfy the facts.
#include "analysis/prover.h"
#include "tests/test_util.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

bool overlaps_somewhere_small(const ProveQuery& q, int& satisfying) {
  std::set<std::string> names;
  for (auto& v : lmad_free_vars(q.l1))
    names.insert(v);
  for (auto& v : lmad_free_vars(q.l2))
    names.insert(v);
  for (auto& f : q.facts)
    for (auto& v : f.free_vars())
      names.insert(v);
  std::vector<std::string> vars(names.begin(), names.end());
  bool overlap = false;
  for_each_assignment(vars, value_range(0, 6), [&](const Env& env) {
    if (!all_hold(q.facts, env)) return true;
    ++satisfying;
    auto a = lmad_eval(q.l1, env), b = lmad_eval(q.l2, env);
    if (!a || !b) return true;
    auto pa = a->points(1 << 22), pb = b->points(1 << 22);
    if (!pa || !pb) return true;
    std::set<int64_t> s(pa->begin(), pa->end());
    for (int64_t p : *pb)
      overlap = overlap || s.count(p);
    return !overlap;
  });
  return overlap;
}

} // namespace

TEST_CASE("corpus/prove obligations have their expected answers", "[prover][corpus]") {
  int queries = 0, disjoint = 0;
  std::vector<fs::path> files;
  for (const char* dir : {"prove", "regress"}) // regress: questions funmem-fuzz --mode lmads shrank
    for (const auto& e : fs::directory_iterator(fs::path(FUNMEM_SOURCE_DIR) / "corpus" / dir))
      if (e.path().extension() == ".prove") files.push_back(e.path());
  for (const fs::path& path : files) {
    std::istringstream in(funmem::test::slurp(path.string()));
    std::string line, expect;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      if (line.rfind("# expect: ", 0) == 0) {
        expect = line.substr(10);
        continue;
      }
      if (line.empty() || line[0] == '#') continue;
      INFO(path.filename().string() << ":" << lineno << ": " << line);
      REQUIRE_FALSE(expect.empty());
      Diagnostic d;
      auto q = parse_prove_line(line, &d);
      INFO(d.message);
      REQUIRE(q.has_value());
      ProveResult r = prove_disjoint(q->l1, q->l2, q->facts);
      INFO(explain(r));
      CHECK(answer_name(r.answer) == expect);
      ++queries;
      if (expect == "disjoint") {
        ++disjoint;
        int satisfying = 0;
        CHECK_FALSE(overlaps_somewhere_small(*q, satisfying));
      }
      expect.clear();
    }
  }
  CHECK(queries >= 30);
  CHECK(disjoint >= 15);
}
