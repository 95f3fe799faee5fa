// Comprehensive parametric kernels (verifier/comprehensive.h, codegen/parametric.cpp):
// the tiles and variants codegen finds, the case discussion of the seed's 1-D Jacobi
// against its golden file and against enumeration of the parameter space, every leaf
// run on the emulation against the interpreter with the dispatcher choosing it, and
// the dispatcher's refusals (no leaf fits, bad parameters).
#include "ir/parser.h"
#include "support/files.h"
#include "tests/test_util.h"
#include "verifier/comprehensive.h"
#include "verifier/input_tuning.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <unistd.h>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

std::string corpus(const std::string& f) {
  return std::string(FUNMEM_SOURCE_DIR) + "/corpus/" + f;
}

Lowered lower(const std::string& path, const std::string& text) {
  std::string err;
  LowerOptions lo;
  auto l = lower_to_cuda(path, text, lo, &err);
  INFO(err);
  REQUIRE(l);
  return *l;
}

Lowered lower_file(const std::string& rel) {
  bool ok = false;
  std::string text = read_file(corpus(rel), &ok);
  REQUIRE(ok);
  return lower("corpus/" + rel, text);
}

Comprehensive discuss(const Lowered& l, bool registers) {
  ComprehensiveOptions o;
  o.registers = registers;
  std::string err;
  auto c = comprehensive_kernels(l, o, &err);
  INFO(err);
  REQUIRE(c);
  return std::move(*c);
}

std::string scratch() {
  fs::path d = fs::temp_directory_path() / ("funmem-cpk-test-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d.string();
}

const char* kMap = R"(def scale (n : i64) (xs : [n]f64) : ([n]f64) =
  let (ys : [n]f64) = kernel i < n do
    let x = xs[i]
    let y = x * 2.0
    in (y)
  in (ys)
)";

// Reads 2i and 2i + 1 (stride 2, span 1) of one input and i of another: one tile.
const char* kPairs = R"(def pairs (n : i64) (xs : [2 * n]i64) (ys : [n]i64) : ([n]i64) =
  let (zs : [n]i64) = kernel i < n do
    let a = xs[2 * i]
    let b = xs[2 * i + 1]
    let c = ys[i]
    let d = a + b + c
    in (d)
  in (zs)
-- input: n=5
)";

/// The seed's shape of a case discussion without registers: s and the cache (variant
/// `plain` + "c"); s = 1 and the cache; s = 1 and no cache (`plain`); Definition 2 (i)
/// and (iii).
void check_seed_shape(const KernelCases& k, const std::string& plain) {
  REQUIRE(k.leaves.size() == 3);
  CHECK(k.cases.leaves[0].strategies.empty());
  CHECK(k.cases.leaves[1].strategies == std::vector<std::string>{"granularity"});
  CHECK(k.cases.leaves[2].strategies == std::vector<std::string>{"granularity", "no-cache"});
  CHECK(k.leaves[0].function == plain + "c");
  CHECK(k.leaves[1].function == plain + "c");
  CHECK(k.leaves[2].function == plain);
  CHECK(k.cases.all_consistent);
  CHECK(k.cases.coverage == SatResult::Unsat);
}

} // namespace

TEST_CASE("parametric variants: tiles of reused inputs, variants per cache and register cap",
          "[codegen][comprehensive]") {
  Lowered jacobi = lower_file("cpk/jacobi-1d.fun");
  CudaOptions co = jacobi.cuda;
  co.parametric = true;
  auto code = imp_to_cuda(jacobi.imp, jacobi.result_types, co);
  REQUIRE(code);
  REQUIRE(code->kernels.size() == 1);
  const CudaKernelInfo& k = code->kernels[0];
  REQUIRE(k.tiles.size() == 1);
  CHECK(k.tiles[0].mem == "a_mem");
  CHECK(k.tiles[0].stride == 1);
  CHECK(k.tiles[0].span == 2);
  CHECK(k.tiles[0].reads == 4);
  std::vector<std::string> names;
  for (const CudaVariant& v : k.variants)
    names.push_back(v.function);
  CHECK(names == std::vector<std::string>{"fm_kernel_0_g", "fm_kernel_0_g_r24", "fm_kernel_0_gc",
                                          "fm_kernel_0_gc_r24"});
  // Every variant is a function of the file: the base version and four parametric ones.
  CHECK(k.functions.size() == 5);
  CHECK(code->text.find("__global__ void FM_MAXNREG(24) fm_kernel_0_gc_r24(") != std::string::npos);
  CHECK(code->text.find("fm_ld_tile<double>(v_a__mem") != std::string::npos);

  // No input read at two offsets: no tile, no cached variant.
  Lowered map = lower("scale.fun", kMap);
  co = map.cuda;
  co.parametric = true;
  code = imp_to_cuda(map.imp, map.result_types, co);
  REQUIRE(code);
  CHECK(code->kernels[0].tiles.empty());
  CHECK(code->kernels[0].variants.size() == 2);

  Lowered pairs = lower("pairs.fun", kPairs);
  co = pairs.cuda;
  co.parametric = true;
  code = imp_to_cuda(pairs.imp, pairs.result_types, co);
  REQUIRE(code);
  REQUIRE(code->kernels[0].tiles.size() == 1);
  CHECK(code->kernels[0].tiles[0].stride == 2);
  CHECK(code->kernels[0].tiles[0].span == 1);
}

TEST_CASE("the case discussion of 1-D Jacobi: the golden tree, Definition 2, enumeration",
          "[verifier][comprehensive]") {
  Lowered l = lower_file("cpk/jacobi-1d.fun");
  Comprehensive c = discuss(l, false);
  const std::string text = comprehensive_text(c);
  const std::string golden_path = corpus("cpk/jacobi-1d.cases");
  if (std::getenv("FUNMEM_UPDATE_GOLDEN")) std::ofstream(golden_path) << text;
  bool ok = false;
  CHECK(text == read_file(golden_path, &ok));
  CHECK(ok);
  REQUIRE(c.kernels.size() == 1);
  const KernelCases& k = c.kernels[0];
  check_seed_shape(k, "fm_kernel_0_g"); // the seed's figure 7

  // Over a grid of the domain: exactly one leaf holds at each point (the dispatcher's
  // choice is unique), and its counters fit the limits there.
  int points = 0;
  for (int64_t B : {1, 2, 3, 32, 256, 1024})
    for (int64_t s : {1, 2, 4, 1024})
      for (int64_t T : {1, 3, 256, 1024})
        for (int64_t Z : {0, 23, 24, 40, 2063, 2064, 49152})
          for (int64_t R : {24, 64, 255}) {
            Env e{{"B", B}, {"s", s}, {"T", T}, {"Z", Z}, {"R", R}};
            if (!all_hold(c.domain, e)) continue;
            ++points;
            int holding = 0;
            for (const CaseLeaf& leaf : k.cases.leaves) {
              if (!all_hold(leaf.constraints, e)) continue;
              ++holding;
              for (const auto& [counter, v] : leaf.counters) {
                auto value = v.eval(e);
                REQUIRE(value);
                const char* limit = counter == "shared" ? "Z" : "T";
                CHECK(*value <= e.at(limit));
              }
            }
            INFO("B=" << B << " s=" << s << " T=" << T << " Z=" << Z << " R=" << R);
            CHECK(holding == 1);
          }
  CHECK(points > 100);
}

namespace {

/// A nest's case discussion against its golden file (FUNMEM_UPDATE_GOLDEN=1 rewrites
/// it), with the seed's shape: s and the cache; s = 1 and the cache; no cache; and
/// exactly one leaf holding at every point of a grid of the domain, its counters fitting.
void check_nest_cases(const Comprehensive& c, const std::string& golden) {
  const std::string text = comprehensive_text(c);
  const std::string golden_path = corpus(golden);
  if (std::getenv("FUNMEM_UPDATE_GOLDEN")) std::ofstream(golden_path) << text;
  bool ok = false;
  CHECK(text == read_file(golden_path, &ok));
  CHECK(ok);
  REQUIRE(c.kernels.size() == 1);
  const KernelCases& k = c.kernels[0];
  CHECK(k.block_dims == 2);
  check_seed_shape(k, "fm_kernel_0_b2"); // the seed's figure 8
  int points = 0;
  for (int64_t B0 : {1, 2, 8, 32})
    for (int64_t B1 : {1, 32, 128, 1024})
      for (int64_t s : {1, 4, 1024})
        for (int64_t T : {1, 256, 1024})
          for (int64_t Z : {0, 7, 8, 2048, 8192, 49152})
            for (int64_t R : {24, 255}) {
              Env e{{"B0", B0}, {"B1", B1}, {"s", s}, {"T", T}, {"Z", Z}, {"R", R}};
              if (!all_hold(k.domain, e)) continue;
              ++points;
              int holding = 0;
              for (const CaseLeaf& leaf : k.cases.leaves) {
                if (!all_hold(leaf.constraints, e)) continue;
                ++holding;
                auto shared = leaf.counters.at("shared").eval(e);
                REQUIRE(shared);
                CHECK(*shared <= Z);
                CHECK(B0 * B1 <= T);
              }
              INFO("B0=" << B0 << " B1=" << B1 << " s=" << s << " T=" << T << " Z=" << Z);
              CHECK(holding == 1);
            }
  CHECK(points > 100);
}

} // namespace

TEST_CASE("the case discussion of matrix multiplication: strips of q in shared memory",
          "[verifier][comprehensive]") {
  Lowered l = lower_file("cpk/matmul.fun");
  Comprehensive c = discuss(l, false);
  check_nest_cases(c, "cpk/matmul.cases");
  const KernelCases& k = c.kernels.at(0);
  // a[i, q]: a strip of B0 rows by B0 values of q; b[q, j]: B0 values of q by B1*s
  // columns; the accumulator, one cell per iteration of the block.
  REQUIRE(k.tiles.size() == 3);
  CHECK(k.tiles[0].strip == CudaTile::Strip::Rows);
  CHECK(k.tiles[0].mem == "a_mem");
  CHECK(k.tiles[1].strip == CudaTile::Strip::Columns);
  CHECK(k.tiles[1].mem == "b_mem");
  CHECK(k.tiles[2].strip == CudaTile::Strip::State);
  CHECK(k.tiles[2].span == 1);
  CHECK(tile_bytes(k.tiles, Poly::var("B1"), Poly::var("s"), Poly::var("B0")).to_string() ==
        "16*B0*B1*s + 8*B0*B0");
}

TEST_CASE("the case discussion of matrix transposition: two-dimensional blocks and tile",
          "[verifier][comprehensive]") {
  Lowered l = lower_file("cpk/transpose.fun");
  Comprehensive c = discuss(l, false);
  check_nest_cases(c, "cpk/transpose.cases");
  const KernelCases& k = c.kernels.at(0);
  // a[j, i]: coefficient 1 on the outer iterator, a row stride on the inner one; the
  // tile is B0 x (B1*s) cells, rows fastest (loaded along a's rows).
  REQUIRE(k.tiles.size() == 1);
  CHECK(k.tiles[0].dims == 2);
  CHECK(k.tiles[0].unit == 0);
  CHECK(k.tiles[0].span == 0);

  // Blocks of more threads than the device allows fit no leaf: a clear error.
  l.code = c.code;
  const std::string dir = scratch(), cu = dir + "/transpose.cu", exe = cu + ".emu";
  REQUIRE(write_cuda(cu, l.code).empty());
  REQUIRE(build_emulation(cu, exe, false, EmuOpt::Quick).empty());
  fs::path in = fs::path(dir) / "in.txt";
  std::ofstream(in) << "scalar n i64 4\nscalar m i64 3\nmem a_mem 12 random f64 1\n";
  test::CommandResult big = test::run_command(exe + " " + in.string() +
                                              " --param B0=64 --param B1=32 --threshold '*=inf'");
  CHECK(big.code == 1);
  CHECK(big.out.find("corpus/cpk/transpose.fun:7:3: error: resource: no leaf of fm_kernel_0's "
                     "case discussion fits B0=64 B1=32 s=1 with T=1024") != std::string::npos);
  CHECK(test::run_command(exe + " " + in.string() + " --param B0=0").code == 1);
  fs::remove_all(dir);
}

TEST_CASE("every leaf runs on the emulation, chosen by the dispatcher",
          "[verifier][comprehensive]") {
  // Jacobi (one tile) and a stencil over two inputs (two tiles, one after the other).
  // And the nests of the transposition (two-dimensional tile) and of the matrix
  // multiplication (strips of its loop, its accumulator in shared memory).
  for (const char* file :
       {"cpk/jacobi-1d.fun", "cpk/stencil-two-inputs.fun", "cpk/transpose.fun", "cpk/matmul.fun"}) {
    Lowered l = lower_file(file);
    // Registers (ptxas, when nvcc is there) split Jacobi's leaves on R; the capped
    // variants differ from the others by a macro the emulation ignores, so the rest
    // run without (3 leaves).
    const bool registers = !nvcc_path().empty() && std::string(file) == "cpk/jacobi-1d.fun";
    Comprehensive c = discuss(l, registers);
    l.code = c.code;
    const std::string dir = scratch(), cu = dir + "/leaves.cu", exe = cu + ".emu";
    REQUIRE(write_cuda(cu, l.code).empty());
    REQUIRE(build_emulation(cu, exe, false, EmuOpt::Quick).empty());
    const KernelCases& k = c.kernels.at(0);
    if (!registers)
      CHECK(k.leaves.size() == 3u);
    else
      CHECK(k.leaves.size() >= 6u); // each also under the register cap
    for (size_t j = 0; j < k.leaves.size(); ++j) {
      std::vector<CudaRun> runs = run_and_compare(l, exe, true, 0, dir, leaf_args(k, j));
      REQUIRE(runs.size() == l.source.inputs.size());
      for (const CudaRun& r : runs) {
        INFO(file << ": " << r.name << " leaf " << j << ": " << r.detail << "\n" << r.time_report);
        CHECK(r.ok);
        CHECK(launched_functions(r.time_report, "fm_kernel_0") == k.leaves[j].function);
      }
    }
    fs::remove_all(dir);
  }
}

TEST_CASE("the dispatcher never launches a leaf whose constraints fail",
          "[verifier][comprehensive]") {
  Lowered l = lower_file("cpk/jacobi-1d.fun");
  Comprehensive c = discuss(l, false);
  l.code = c.code;
  const std::string dir = scratch(), cu = dir + "/jacobi.cu", exe = cu + ".emu";
  REQUIRE(write_cuda(cu, l.code).empty());
  REQUIRE(build_emulation(cu, exe, false, EmuOpt::Quick).empty());

  // Shared memory too small for any tile: the leaf without the cache.
  std::vector<CudaRun> low = run_and_compare(l, exe, true, 0, dir, "--param s=4 --limit Z=8");
  for (const CudaRun& r : low) {
    INFO(r.detail << r.time_report);
    CHECK(r.ok);
    CHECK(launched_functions(r.time_report, "fm_kernel_0") == "fm_kernel_0_g");
  }

  // A block larger than the device allows fits no leaf: a clear error, nothing launched.
  fs::path in = fs::path(dir) / "in.txt";
  std::ofstream(in) << "scalar n i64 8\nscalar steps i64 1\nmem a0_mem 8 random f64 1\n";
  auto run = [&](const std::string& args) {
    return test::run_command(exe + " " + in.string() + " " + args);
  };
  test::CommandResult big = run("--param B=512 --limit T=256");
  CHECK(big.code == 1);
  CHECK(big.out.find("corpus/cpk/jacobi-1d.fun:8:5: error: resource: no leaf of fm_kernel_0's "
                     "case discussion fits B=512 s=1 with T=256") != std::string::npos);
  CHECK(big.out.find("mem ") == std::string::npos);
  test::CommandResult zero = run("--param B=0");
  CHECK(zero.code == 1);
  CHECK(zero.out.find("error: input: --param: expected NAME=VALUE") != std::string::npos);
  CHECK(run("--limit Q=3").code == 1);
  CHECK(run("--param B=64 --param s=3").code == 0);
  fs::remove_all(dir);
}

TEST_CASE("kernel nests keep their versions and thresholds, blocked variants in place of flat",
          "[verifier][comprehensive]") {
  // A multi-versioned nest (mapscan's) followed by a plain kernel over its result.
  const char* text = R"(def both (n : i64) (m : i64) (xss : [n][m]i64) : ([n][m]i64, [n]i64) =
  let (r : [n][m]i64) = kernel i < n do
    let (row : [m]i64) = xss[i]
    let (out : [m]i64) = kernel j < m do
      let x = row[j]
      let y = x + i
      in (y)
    in (out)
  let (firsts : [n]i64) = kernel i < n do
    let (row : [m]i64) = xss[i]
    let x = row[0]
    in (x)
  in (r, firsts)
-- input: n=3 m=5
-- input: n=37 m=70
)";
  Lowered l = lower("both.fun", text);
  Comprehensive c = discuss(l, false);
  REQUIRE(c.code.kernels.size() == 2);
  const CudaKernelInfo& nest = c.code.kernels[0];
  CHECK(nest.block_dims == 2);
  CHECK(nest.tiles.empty()); // row[j] is coalesced and not reused
  REQUIRE(nest.variants.size() == 2);
  CHECK(nest.variants[0].function == "fm_kernel_0_b2");
  CHECK(nest.variants[1].function == "fm_kernel_0_b2_r24");
  CHECK(nest.functions.size() == 5); // outer, intra, the two blocked variants, flat
  CHECK(c.code.kernels[1].variants.size() == 2);
  CHECK(c.code.thresholds.size() == 2);
  REQUIRE(c.kernels.size() == 2);
  CHECK(c.kernels[0].kernel == "fm_kernel_0");
  CHECK(c.kernels[0].block_dims == 2);
  CHECK(c.kernels[1].kernel == "fm_kernel_1");
  l.code = c.code;
  const std::string dir = scratch(), cu = dir + "/both.cu", exe = cu + ".emu";
  REQUIRE(write_cuda(cu, l.code).empty());
  REQUIRE(build_emulation(cu, exe, false, EmuOpt::Quick).empty());
  // Every version of the nest forced by its thresholds, with a leaf of the other kernel:
  // the flattened version's place goes to the nest's dispatcher.
  const std::map<std::string, std::string> launched = {{"outer", "fm_kernel_0"},
                                                       {"intra", "fm_kernel_0_intra"},
                                                       {"flat", c.kernels[0].leaves[0].function}};
  for (const ForcedVersion& v : forced_versions(l.code))
    for (const CudaRun& r :
         run_and_compare(l, exe, true, 0, dir, v.args + " " + leaf_args(c.kernels[1], 0))) {
      INFO(v.name << ": " << r.detail << r.time_report);
      CHECK(r.ok);
      CHECK(launched_functions(r.time_report, "fm_kernel_1") == c.kernels[1].leaves[0].function);
      CHECK(launched_functions(r.time_report, "fm_kernel_0") == launched.at(v.name));
    }
  // Every leaf of the nest, the other kernel with its defaults.
  for (size_t j = 0; j < c.kernels[0].leaves.size(); ++j)
    for (const CudaRun& r : run_and_compare(l, exe, true, 0, dir, leaf_args(c.kernels[0], j))) {
      INFO("leaf " << j << ": " << r.detail << r.time_report);
      CHECK(r.ok);
      CHECK(launched_functions(r.time_report, "fm_kernel_0") == c.kernels[0].leaves[j].function);
    }
  fs::remove_all(dir);
}

TEST_CASE("the input-aware tuning space: every configuration runs the variant it names",
          "[verifier][comprehensive][isaac]") {
  // Each configuration of the space is run on the emulation with its flags: the
  // dispatcher launches the variant the space's leaf evaluation names, and a point the
  // space calls illegal (blocks above T) is one where the dispatcher finds no leaf.
  for (const char* file : {"cpk/jacobi-1d.fun", "cpk/transpose.fun"}) {
    Lowered l = lower_file(file);
    Comprehensive c = discuss(l, false);
    TuningSpaceOptions so;
    so.T = 128;
    const tune::ConfigSpace sp = tuning_space(c, so);
    INFO(file);
    CHECK(sp.illegal > 0);
    const size_t forced = c.code.thresholds.empty() ? 0 : 2; // outer and intra-block
    CHECK(sp.grid == sp.illegal + sp.duplicates + sp.configs.size() - forced);
    CHECK(sp.grid_map.size() == sp.grid);
    const std::string dir = scratch(), cu = dir + "/space.cu", exe = cu + ".emu";
    REQUIRE(write_cuda(cu, c.code).empty());
    REQUIRE(build_emulation(cu, exe, false, EmuOpt::Quick).empty());
    std::string err;
    auto input = harness_random_input(
        l, std::string(file) == "cpk/transpose.fun" ? "n=40 m=70" : "n=300 steps=1", &err);
    REQUIRE(input);
    std::ofstream(dir + "/in.txt") << *input;
    std::set<std::string> labels;
    for (const tune::TuneConfig& cfg : sp.configs) {
      labels.insert(cfg.label);
      CHECK(cfg.features.size() == sp.feature_names.size());
      test::CommandResult r =
          test::run_command(exe + " " + dir + "/in.txt --no-output --time " + cfg.flags);
      INFO(cfg.flags << "\n" << r.out);
      REQUIRE(r.code == 0);
      const std::string launched = launched_functions(r.out, "fm_kernel_0");
      if (cfg.label.rfind("fm_kernel_0", 0) == 0)
        CHECK(cfg.label.substr(0, cfg.label.find(' ')) == launched);
      else // the nests' forced versions
        CHECK(launched.find("_b2") == std::string::npos);
    }
    CHECK(labels.size() == sp.configs.size()); // distinct
    // Blocks of 256 threads exceed T = 128: no leaf, as the space says.
    const std::string big = std::string(file) == "cpk/transpose.fun"
                                ? "--param B0=8 --param B1=32 --threshold '*=inf'"
                                : "--param B=256";
    test::CommandResult r =
        test::run_command(exe + " " + dir + "/in.txt --no-output --limit T=128 " + big);
    CHECK(r.code == 1);
    CHECK(r.out.find("error: resource: no leaf of fm_kernel_0") != std::string::npos);
    fs::remove_all(dir);
  }
}
