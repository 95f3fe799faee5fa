// Translation validation of funmem-cuda's kernels: every accepted
// corpus program's kernels (every version) are proved race-free and store where FUNMEM
// says; racy programs and generated code broken by hand are caught; the host facts
// (assumptions, host loops, definitions) reach the launch and are needed; the extractor
// reads the generated code's constructs; funmem-cuda validates by default.
#include "support/files.h"
#include "tests/corpus_util.h"
#include "tests/test_util.h"
#include "verifier/comprehensive.h"
#include "verifier/cuda_check.h"
#include "verifier/validate.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

using namespace funmem;
using namespace funmem::frontend; // the extractor and the race checker
namespace fs = std::filesystem;

namespace {

bool expects(const test::CorpusProgram& c, const char* word) {
  for (const Expect& e : c.program.expects)
    if (e.word == word) return true;
  return false;
}

const char* kRows = "def rows (n : i64) (m : i64) (xss : [n][m]i64) : ([n][m]i64) =\n"
                    "  let (r : [n][m]i64) = kernel i < n do\n"
                    "    let (row : [m]i64) = xss[i]\n"
                    "    let (out : [m]i64) = kernel j < m do\n"
                    "      let x = row[j]\n"
                    "      let y = x + i\n"
                    "      in (y)\n"
                    "    in (out)\n"
                    "  in (r)\n";

Lowered lower(const std::string& text, const std::string& name = "rows.fun") {
  std::string err;
  auto l = lower_to_cuda(name, text, {}, &err);
  INFO(err);
  REQUIRE(l);
  return *l;
}

/// `code` with its text replaced once (the replaced text must be there).
CudaCode edited(CudaCode code, const std::string& from, const std::string& to) {
  size_t at = code.text.find(from);
  INFO(from);
  REQUIRE(at != std::string::npos);
  code.text.replace(at, from.size(), to);
  return code;
}

const FunctionValidation& function(const Validation& v, const std::string& name) {
  for (const FunctionValidation& f : v.functions)
    if (f.name == name) return f;
  FAIL("no function " << name);
  return v.functions.front();
}

} // namespace

TEST_CASE("every accepted corpus program's kernels pass translation validation",
          "[frontend][validate][corpus]") {
  // The sanitizer build checks a few (test::cuda_corpus_limit).
  const std::optional<size_t> few = test::cuda_corpus_limit();
  const int limit = few ? static_cast<int>(*few) : 1 << 30;
  int programs = 0, functions = 0, stores = 0;
  // The documented limit (its own test below): index arithmetic beyond 64 bits, as in
  // regress/sc-coefficient-overflow.fun's stride of -2^63, regress/sc-wrap-offset.funmem's
  // offset of 2^62 * k and regress/f2f-slice-stride-overflow.fun's stride of 2^62, is not
  // validated; no other program may meet it.
  const std::set<std::string> beyond_64_bits_expected = {
      "sc-coefficient-overflow.fun", "sc-wrap-offset.funmem", "f2f-slice-stride-overflow.fun"};
  std::vector<std::string> kept;
  for (const test::CorpusProgram& c : test::lowerable_corpus(&kept)) {
    if (programs >= limit) break;
    std::string err;
    auto l = lower_to_cuda(c.path.string(), test::slurp(c.path), {}, &err);
    INFO(c.path.string() << ": " << err);
    REQUIRE(l);
    Validation v = validate_cuda(l->code, l->imp_stats, c.path.string() + ".cu");
    INFO(validation_report(v, true));
    if (!v.ok() && v.errors.size() == 1 &&
        v.errors[0].find("index arithmetic leaves 64 bits") != std::string::npos) {
      CHECK(beyond_64_bits_expected.count(c.path.filename().string()));
      continue;
    }
    CHECK(v.ok());
    ++programs;
    for (const FunctionValidation& f : v.functions) {
      ++functions;
      stores += static_cast<int>(f.stores.size());
    }
  }
  for (const std::string& k : kept)
    WARN("not lowered: expand keeps an allocation inside a kernel: " << k);
  CHECK(programs >= std::min(limit, 40));
  if (!few) {
    CHECK(functions > programs); // the versions of multi-versioned nests too
    CHECK(stores >= functions);
  }
}

TEST_CASE("racy corpus programs fail validation with a witness", "[frontend][validate][corpus]") {
  int racy = 0;
  for (const test::CorpusProgram& c : test::well_typed_corpus(Lang::FunMem)) {
    if (!expects(c, "race")) continue;
    std::string err;
    auto l = lower_to_cuda(c.path.string(), test::slurp(c.path), {}, &err);
    if (!l) {
      WARN("racy corpus program not lowered: " << c.path.string() << ": " << err);
      continue;
    }
    Validation v = validate_cuda(l->code, l->imp_stats, "racy.cu");
    INFO(c.path.string() << "\n" << validation_report(v));
    CHECK_FALSE(v.ok());
    bool witnessed = false, race_free = false;
    for (const FunctionValidation& f : v.functions) {
      witnessed = witnessed || (f.race.verdict == Verdict::Race && f.race.witness);
      race_free = race_free || f.race.verdict == Verdict::RaceFree;
    }
    ++racy;
    // A known gap of the witness search: a block every thread writes in an inner loop
    // (the block allocated outside the kernel) is found to overlap but no launch shows
    // it, so the kernel is `unknown`. It must never be called race-free.
    if (c.path.filename() == "sc-kernel-shared-block.funmem" && !witnessed) {
      CHECK_FALSE(race_free);
      WARN("no race witness (a known gap, docs/extract.md): " << c.path.string());
      continue;
    }
    CHECK(witnessed);
  }
  CHECK(racy >= 3);
}

TEST_CASE("generated code broken by hand is caught", "[frontend][validate]") {
  Lowered l = lower(kRows);
  REQUIRE(l.code.kernels.size() == 1);
  REQUIRE(l.code.kernels[0].functions.size() == 3);
  Validation ok = validate_cuda(l.code, l.imp_stats, "rows.cu");
  INFO(validation_report(ok, true));
  REQUIRE(ok.ok());
  const std::string store = "fm_st<int64_t>(v_r__mem, ";

  SECTION("an index one element off") {
    Validation v = validate_cuda(edited(l.code, store, store + "1 + "), l.imp_stats, "rows.cu");
    INFO(validation_report(v, true));
    const FunctionValidation& f = function(v, "fm_kernel_0");
    CHECK_FALSE(f.ok);
    REQUIRE(f.stores.size() == 1);
    CHECK_FALSE(f.stores[0].equal);
    CHECK(f.stores[0].why.find("differs from the index function") != std::string::npos);
  }
  SECTION("a store into another block") {
    Validation v =
        validate_cuda(edited(l.code, store, "fm_st<int64_t>(v_xss__mem, "), l.imp_stats, "rows.cu");
    const FunctionValidation& f = function(v, "fm_kernel_0");
    CHECK_FALSE(f.ok);
    CHECK(f.stores.at(0).why.find("stores into 'p_v_xss__mem'") != std::string::npos);
  }
  SECTION("every thread of a block on the same inner iteration: the index still matches the "
          "IMP write, the race is found") {
    Validation v = validate_cuda(edited(l.code, "= threadIdx.x;", "= 0;"), l.imp_stats, "rows.cu");
    INFO(validation_report(v, true));
    const FunctionValidation& f = function(v, "fm_kernel_0_intra");
    CHECK_FALSE(f.ok);
    CHECK(f.stores.at(0).equal);
    CHECK(f.race.verdict == Verdict::Race);
    CHECK(function(v, "fm_kernel_0").ok);
  }
  SECTION("an inner loop one iteration short: every store matches, the write set does not") {
    Validation v =
        validate_cuda(edited(l.code, "v_j < fm_n0;", "v_j < fm_n0 - 1;"), l.imp_stats, "rows.cu");
    INFO(validation_report(v, true));
    const FunctionValidation& f = function(v, "fm_kernel_0");
    CHECK_FALSE(f.ok);
    CHECK(f.race.verdict == Verdict::RaceFree);
    REQUIRE(f.stores.size() == 1);
    CHECK(f.stores[0].equal);
    CHECK_FALSE(f.stores[0].lmad_equal);
    CHECK(function(ok, "fm_kernel_0").stores.at(0).lmad_equal);
    CHECK(function(ok, "fm_kernel_0").stores.at(0).expected_lmad == "0 + {(p_v_m*p_v_n : 1)}");
  }
  SECTION("a store left out") {
    CudaCode c = l.code;
    size_t at = c.text.find(store);
    size_t end = c.text.find('\n', at);
    c.text.replace(at, end - at, ";");
    Validation v = validate_cuda(c, l.imp_stats, "rows.cu");
    CHECK_FALSE(function(v, "fm_kernel_0").ok);
    CHECK(function(v, "fm_kernel_0").problems.at(0).find("found 0 store(s)") != std::string::npos);
  }
}

TEST_CASE("host facts reach the launch and NW's kernels need them", "[frontend][validate]") {
  fs::path nw = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "nw" / "nw-full.funmem";
  Lowered l = lower(test::slurp(nw), nw.string());
  REQUIRE(l.code.kernels.size() == 1);
  const std::vector<HostFact>& facts = l.code.kernels[0].host_facts;
  bool assumed = false, loop = false, defined = false;
  for (const HostFact& f : facts) {
    assumed = assumed || f.kind == HostFact::Kind::Holds; // assume q > 1 && b > 1
    loop = loop || (f.kind == HostFact::Kind::Below && f.name == "i");
    defined = defined || (f.kind == HostFact::Kind::Equal && f.name == "n");
  }
  CHECK(assumed);
  CHECK(loop);
  CHECK(defined);
  Validation v = validate_cuda(l.code, l.imp_stats, "nw.cu");
  INFO(validation_report(v, true));
  CHECK(v.ok());
  // Every version writes exactly the update's index function in the program text,
  // i*b + n + 1 + {(i+1 : n*b - b), (b : n), (b : 1)}.
  for (const FunctionValidation& f : v.functions) {
    REQUIRE(f.stores.size() == 1);
    CHECK(f.stores[0].extracted_lmad ==
          "p_v_b*p_v_i + p_v_n + 1 + {(p_v_b : 1), (p_v_i + 1 : p_v_b*p_v_n - p_v_b), (p_v_b : "
          "p_v_n)}");
    CHECK(f.stores[0].lmad_equal);
  }
  // Without them the launch could be any: the kernel is racy for some q, b, i, n.
  CudaCode bare = l.code;
  bare.kernels[0].host_facts.clear();
  Validation w = validate_cuda(bare, l.imp_stats, "nw.cu");
  CHECK_FALSE(w.ok());
}

TEST_CASE("the extractor reads generated code: blocks, loads, stores, checked arithmetic",
          "[frontend][validate]") {
  const std::string code =
      std::string("#include \"") + kRtModelPath +
      "\"\n"
      "__global__ void k(int64_t fm_n, int64_t p_v_m, fm_mem p_v_a) {\n"
      "  for (int64_t fm_o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; fm_o < fm_n;\n"
      "       fm_o += (int64_t)blockDim.x * gridDim.x) {\n"
      "    fm_mem v_a = p_v_a;\n"
      "    for (int64_t v_j = 0, fm_n0 = fm_bound(p_v_m, 0); v_j < fm_n0; ++v_j) {\n"
      "      int64_t v_x = int64_t{};\n"
      "      v_x = fm_add(fm_mul(fm_o, p_v_m, 1), v_j, 2);\n"
      "      int64_t v_y = fm_ld<int64_t>(v_a, v_x, 3);\n"
      "      fm_st<int64_t>(v_a, fm_mod(v_x, INT64_C(7), 0, 0), v_y, 4);\n"
      "      if (v_y > 0) { v_x = 0; }\n"
      "      fm_st<int64_t>(v_a, v_x, v_y, 5);\n"
      "    }\n"
      "  }\n"
      "}\n";
  ExtractResult r = extract(code, "gen.cu");
  for (const std::string& e : r.errors)
    UNSCOPED_INFO(e);
  REQUIRE(r.errors.empty());
  REQUIRE(r.kernels.size() == 1);
  const KernelSummary& k = r.kernels[0];
  CHECK(k.pointer_params == std::vector<std::string>{"p_v_a"});
  REQUIRE(k.accesses.size() == 3); // the load and both stores
  Poly fm_o = Poly::var("fm_o"), m = Poly::var("p_v_m"), j = Poly::var("v_j");
  CHECK(!k.accesses[0].write);
  CHECK(k.accesses[0].index == fm_o * m + j);
  CHECK(k.accesses[1].write);
  CHECK(k.accesses[1].index == Poly::mod(fm_o * m + j, 7));
  CHECK(k.accesses[1].scope.at("v_x") == fm_o * m + j);
  REQUIRE(k.accesses[0].loops.size() == 2);
  CHECK(k.accesses[0].loops[1].count == m);
  // v_x is assigned inside a condition: after it, any value (the last store's index is
  // an unknown, the store an over-approximation).
  CHECK(k.unsupported.empty());
  CHECK(k.accesses[1].exact_guards);
  CHECK_FALSE(k.accesses[2].exact_guards);
  REQUIRE(k.accesses[2].index.free_vars().size() == 1);
  CHECK(k.accesses[2].index.free_vars()[0].rfind("fm_any_", 0) == 0);
}

TEST_CASE("the extractor follows a memory block named again, not one renamed in a loop",
          "[frontend][validate]") {
  auto kernel = [](const std::string& body) {
    return std::string("#include \"") + kRtModelPath +
           "\"\n"
           "__global__ void k(int64_t fm_n, fm_mem p_v_a, fm_mem p_v_b) {\n"
           "  for (int64_t fm_o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; fm_o < fm_n;\n"
           "       fm_o += (int64_t)blockDim.x * gridDim.x) {\n"
           "    fm_mem v_m = fm_mem{nullptr, 0};\n" +
           body + "  }\n}\n";
  };
  SECTION("straight-line: the store is into the block assigned last") {
    ExtractResult r = extract(kernel("    v_m = p_v_a;\n"
                                     "    v_m = p_v_b;\n"
                                     "    fm_st<int64_t>(v_m, fm_o, INT64_C(1), 0);\n"),
                              "gen.cu");
    REQUIRE(r.errors.empty());
    REQUIRE(r.kernels.size() == 1);
    const KernelSummary& k = r.kernels[0];
    for (const Problem& p : k.unsupported)
      UNSCOPED_INFO(p.pos.line << ":" << p.pos.col << ": " << p.what);
    CHECK(k.unsupported.empty());
    REQUIRE(k.accesses.size() == 1);
    CHECK(k.accesses[0].array == "p_v_b");
    CHECK(k.accesses[0].index == Poly::var("fm_o"));
  }
  SECTION("inside a condition or a loop it is not followed") {
    for (const char* body : {"    if (fm_o > 2) { v_m = p_v_a; }\n"
                             "    fm_st<int64_t>(v_m, fm_o, INT64_C(1), 0);\n",
                             "    v_m = p_v_a;\n"
                             "    for (int64_t v_i = 0; v_i < 4; ++v_i) {\n"
                             "      fm_st<int64_t>(v_m, fm_o, INT64_C(1), 0);\n"
                             "      v_m = p_v_b;\n"
                             "    }\n"}) {
      INFO(body);
      ExtractResult r = extract(kernel(body), "gen.cu");
      REQUIRE(r.errors.empty());
      REQUIRE(r.kernels.size() == 1);
      CHECK_FALSE(r.kernels[0].unsupported.empty());
    }
  }
}

TEST_CASE("funmem-cuda validates its kernels by default", "[frontend][validate][tools]") {
  const std::string bin = FUNMEM_CUDA_BIN, dir = std::string(FUNMEM_SOURCE_DIR) + "/corpus/";
  const std::string out = (fs::temp_directory_path() / "funmem-validate-test.cu").string();
  auto ok = test::run_command(bin + " " + dir + "tune/mapscan.fun -o " + out + " -v");
  INFO(ok.out);
  CHECK(ok.code == 0);
  CHECK(ok.out.find("translation validation: passed") != std::string::npos);
  CHECK(ok.out.find("fm_kernel_0_flat: validated: race-free") != std::string::npos);
  CHECK(ok.out.find("r_mem[fm_f] == i*m + j = fm_f") != std::string::npos);
  auto racy = test::run_command(bin + " " + dir + "race/write-write.funmem -o " + out);
  INFO(racy.out);
  CHECK(racy.code == 1);
  CHECK(racy.out.find("translation validation: FAILED") != std::string::npos);
  CHECK(racy.out.find("race (two threads access p_v_m[0])") != std::string::npos);
  auto skipped =
      test::run_command(bin + " " + dir + "race/write-write.funmem --no-validate -o " + out);
  CHECK(skipped.code == 0);
  std::remove(out.c_str());
}

/// A corpus program's comprehensive kernels, which validate; `broken(fn, from, to)`
/// validates function `fn` with `from` replaced in it, expects a failure and returns its
/// validation (the prover given a budget: a broken variant needs no proof, only none
/// that it is race-free).
struct Parametric {
  Lowered l;
  CudaCode code;
  explicit Parametric(const std::string& file) {
    bool read = false;
    l = lower(read_file(std::string(FUNMEM_SOURCE_DIR) + "/corpus/" + file, &read), file);
    REQUIRE(read);
    ComprehensiveOptions o;
    o.registers = false;
    std::string err;
    auto c = comprehensive_kernels(l, o, &err);
    REQUIRE(c);
    code = c->code;
  }
  FunctionValidation broken(const std::string& fn, const std::string& from,
                            const std::string& to) const {
    CudaCode c = code;
    size_t at = c.text.find("void " + fn + "(");
    REQUIRE(at != std::string::npos);
    at = c.text.find(from, at);
    REQUIRE(at != std::string::npos);
    c.text.replace(at, from.size(), to);
    for (CudaKernelInfo& k : c.kernels)
      std::erase_if(k.functions, [&](const CudaFunction& f) { return f.name != fn; });
    RaceOptions o;
    o.budget_ms = 1000;
    o.search_limit = 2000;
    Validation v = validate_cuda(c, l.imp_stats, "p.cu", o);
    INFO(validation_report(v, true));
    CHECK_FALSE(v.ok());
    return function(v, fn);
  }
};

TEST_CASE("parametric variants broken by hand are caught", "[frontend][validate][comprehensive]") {
  const Parametric p("cpk/jacobi-1d.fun");
  Validation ok = validate_cuda(p.code, p.l.imp_stats, "j.cu");
  INFO(validation_report(ok, true));
  REQUIRE(ok.ok());
  CHECK(function(ok, "fm_kernel_0_gc").stores.at(0).lmad_equal);
  auto broken = [&](const std::string& fn, const std::string& from, const std::string& to) {
    return p.broken(fn, from, to);
  };
  SECTION("a round too many: two threads run one iteration") {
    CHECK(broken("fm_kernel_0_g", "fm_k < fm_s;", "fm_k <= fm_s;").race.verdict !=
          Verdict::RaceFree);
  }
  SECTION("every block takes every chunk") {
    CHECK(broken("fm_kernel_0_g", "fm_c += gridDim.x", "fm_c += 1").race.verdict !=
          Verdict::RaceFree);
  }
  SECTION("the last chunk left out: the iterations run are not shown") {
    const FunctionValidation& f =
        broken("fm_kernel_0_g", "(fm_n + fm_per - 1) / fm_per", "fm_n / fm_per");
    REQUIRE_FALSE(f.problems.empty());
    CHECK(f.problems.back().find("which iterations it runs is not shown") != std::string::npos);
  }
  SECTION("every thread copies the same tile cells") {
    CHECK(broken("fm_kernel_0_gc", "fm_j * fm_B + fm_t,", "fm_j * fm_B,").race.verdict !=
          Verdict::RaceFree);
  }
  SECTION("no barrier between the tile's copy and its reads") {
    CHECK(broken("fm_kernel_0_gc", "FM_SYNC();\n", "\n").race.verdict != Verdict::RaceFree);
  }
}

TEST_CASE("a nest's two-dimensional variants broken by hand are caught",
          "[frontend][validate][comprehensive]") {
  static const Parametric p("cpk/transpose.fun"); // once for all sections
  SECTION("as generated, every variant validates") {
    Validation ok = validate_cuda(p.code, p.l.imp_stats, "t.cu");
    INFO(validation_report(ok, true));
    REQUIRE(ok.ok());
    CHECK(function(ok, "fm_kernel_0_b2c").stores.at(0).lmad_equal);
  }
  SECTION("every row of blocks takes every row of chunks") {
    CHECK(p.broken("fm_kernel_0_b2", "fm_ci += gridDim.y", "fm_ci += 1").race.verdict !=
          Verdict::RaceFree);
  }
  SECTION("rows of a block overlap: two threads run one iteration") {
    CHECK(p.broken("fm_kernel_0_b2", "fm_o = fm_i0 + FM_TY", "fm_o = fm_i0 + FM_TY / 2")
              .race.verdict != Verdict::RaceFree);
  }
  SECTION("the last column of chunks left out: the iterations run are not shown") {
    const FunctionValidation f =
        p.broken("fm_kernel_0_b2", "(fm_m + fm_per - 1) / fm_per", "fm_m / fm_per");
    CHECK(std::any_of(f.problems.begin(), f.problems.end(), [](const std::string& q) {
      return q.find("which iterations it runs is not shown") != std::string::npos;
    }));
  }
  SECTION("no barrier between the tile's copy and its reads") {
    CHECK(p.broken("fm_kernel_0_b2c", "FM_SYNC();\n", "\n").race.verdict != Verdict::RaceFree);
  }
  SECTION("every thread copies the same tile cells") {
    CHECK(p.broken("fm_kernel_0_b2c", "fm_q * fm_bt + fm_t;", "fm_q * fm_bt;").race.verdict !=
          Verdict::RaceFree);
  }
}

TEST_CASE("index arithmetic beyond 64 bits leaves a kernel unvalidated, with a clear error",
          "[frontend][validate]") {
  // The extractor's byte offsets of a[i + 9223372036854775000] overflow: no proof, no
  // internal error.
  const char* text = R"(def far (n : i64) (a : [n]i64) : ([n]i64) =
  let (r : [n]i64) = kernel i < n do
    let inner = i > 100
    let (v : i64) = if inner then
        let x = a[i + 9223372036854775000]
        in (x)
      else
        let z = a[i]
        in (z)
    in (v)
  in (r)
)";
  Lowered l = lower(text, "far.fun");
  Validation v = validate_cuda(l.code, l.imp_stats, "far.cu");
  CHECK_FALSE(v.ok());
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0] == "far.cu: error: the kernels' index arithmetic leaves 64 bits (coefficient "
                       "overflow in *)");
}

TEST_CASE("a nest tiled in strips of its loop validates, and without its barriers it does not",
          "[frontend][validate][comprehensive]") {
  static const Parametric p("cpk/matmul.fun"); // once for all sections
  SECTION("as generated: the strips, the tiles and the state in shared memory") {
    CudaCode code = p.code; // the strip-tiled variant (the capped one differs by a macro)
    for (CudaKernelInfo& k : code.kernels)
      std::erase_if(k.functions, [](const CudaFunction& f) { return f.name != "fm_kernel_0_b2c"; });
    RaceOptions o; // a patient prover: the state cells' questions are non-linear
    o.prover.timeout_ms = 10000;
    Validation ok = validate_cuda(code, p.l.imp_stats, "m.cu", o);
    REQUIRE(ok.functions.size() == 1);
    INFO(validation_report(ok, true));
    REQUIRE(ok.ok());
    CHECK(function(ok, "fm_kernel_0_b2c").stores.at(0).lmad_equal);
  }
  SECTION("no barrier after a strip: its tiles are overwritten while read") {
    CHECK(p.broken("fm_kernel_0_b2c", "      FM_SYNC();\n      }\n", "      }\n").race.verdict !=
          Verdict::RaceFree);
  }
}
