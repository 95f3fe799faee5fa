// The CUDA code generator: golden files pin the generated text of small programs
// (FUNMEM_UPDATE_GOLDEN=1 rewrites them), and what it refuses it refuses with a reason.
#include "codegen/cuda.h"
#include "tests/test_util.h"
#include "verifier/cuda_check.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

const char* kMap = "def double (n : i64) (xs : [n]i64) : ([n]i64) =\n"
                   "  let (ys : [n]i64) = kernel i < n do\n"
                   "    let v = xs[i]\n"
                   "    let w = v * 2\n"
                   "    in (w)\n"
                   "  in (ys)\n";

const char* kLoop = "def rows (n : i64) (m : i64) (a : [n][m]f32) : ([n][m]f32, f32) =\n"
                    "  let (b : [n][m]f32) = copy a\n"
                    "  let (c : [n][m]f32) = loop (acc : [n][m]f32) = (b) for k < 3 do\n"
                    "    let (r : [n][m]f32) = kernel i < n do\n"
                    "      let (row : [m]f32) = kernel j < m do\n"
                    "        let x = acc[i, j]\n"
                    "        let y = x / 2.0f32 + f32(k)\n"
                    "        in (y)\n"
                    "      in (row)\n"
                    "    in (r)\n"
                    "  let (s : f32) = if n > 0 && m > 0 then\n"
                    "      let z = c[0, 0]\n"
                    "      in (z)\n"
                    "    else\n"
                    "      let z0 = 0.0f32\n"
                    "      in (z0)\n"
                    "  in (c, s)\n";

void golden(const std::string& name, const std::string& text) {
  fs::path path = fs::path(FUNMEM_SOURCE_DIR) / "tests" / "codegen" / "golden" / name;
  if (std::getenv("FUNMEM_UPDATE_GOLDEN")) std::ofstream(path) << text;
  INFO("golden file " << path << " (FUNMEM_UPDATE_GOLDEN=1 rewrites it)");
  CHECK(test::slurp(path) == text);
}

} // namespace

TEST_CASE("generated CUDA text of small programs is pinned", "[codegen][cuda][golden]") {
  LowerOptions o;
  std::string err;
  auto map = lower_to_cuda("map.fun", kMap, o, &err);
  INFO(err);
  REQUIRE(map);
  CHECK(map->code.kernels.size() == 1);
  golden("map.cu", map->code.text);
  auto loop = lower_to_cuda("loop.fun", kLoop, o, &err);
  INFO(err);
  REQUIRE(loop);
  golden("loop.cu", loop->code.text);
  o.cuda.checks = false;
  o.cuda.block_size = 128;
  auto unchecked = lower_to_cuda("map.fun", kMap, o, &err);
  REQUIRE(unchecked);
  CHECK(unchecked->code.checked_sites == 0);
  golden("map-unchecked.cu", unchecked->code.text);
}

TEST_CASE("the generator refuses what it cannot lower, with a reason", "[codegen][cuda]") {
  imp::Program p;
  p.name = Name{"f", {1, 1}};
  p.params.push_back(imp::Param{Name{"n", {1, 1}}, false, ScalarType::I64});
  imp::Block body;
  body.push_back(imp::Stmt{imp::Decl{Name{"m", {2, 3}}, true, ScalarType::I64}, {2, 3}});
  body.push_back(imp::Stmt{imp::Alloc{Name{"m", {2, 3}}, mk_var("n")}, {2, 3}});
  imp::Block outer;
  outer.push_back(imp::Stmt{imp::Loop{true, Name{"i", {2, 1}}, mk_var("n"), body}, {2, 1}});
  p.body = outer;
  std::string err;
  CHECK_FALSE(imp_to_cuda(p, {}, {}, &err));
  CHECK(err.find("2:3: an allocation inside a kernel") != std::string::npos);

  imp::Program q;
  q.name = Name{"g", {1, 1}};
  q.body.push_back(imp::Stmt{imp::Assign{Name{"x", {3, 5}}, mk_int(1)}, {3, 5}});
  CHECK_FALSE(imp_to_cuda(q, {}, {}, &err));
  CHECK(err.find("'x' is not declared") != std::string::npos);
}

TEST_CASE("IMP names become distinct C identifiers", "[codegen][cuda]") {
  // a_q and a' must not meet: `_` is doubled, `'` becomes `_p`.
  imp::Program p;
  p.name = Name{"f", {1, 1}};
  p.params.push_back(imp::Param{Name{"a_p", {1, 1}}, false, ScalarType::I64});
  p.params.push_back(imp::Param{Name{"a'", {1, 1}}, false, ScalarType::I64});
  p.results = {Name{"a_p", {1, 1}}, Name{"a'", {1, 1}}};
  std::string err;
  auto code = imp_to_cuda(p, {ScalarType::I64, ScalarType::I64}, {}, &err);
  INFO(err);
  REQUIRE(code);
  CHECK(code->text.find("int64_t v_a__p = ") != std::string::npos);
  CHECK(code->text.find("int64_t v_a_p = ") != std::string::npos);
}

namespace {

/// `kernel i < n do [var x; x <- READ[i * n];] kernel j < BOUND do WRITE[i * n + j] <- x
/// done done`, with `n`, `a` and `b` parameters.
imp::Program nest(const char* read, const char* write, SExpP bound, bool suffix = false) {
  imp::Program p;
  p.name = Name{"f", {1, 1}};
  p.params = {imp::Param{Name{"n", {1, 1}}, false, ScalarType::I64},
              imp::Param{Name{"a", {1, 1}}, true, ScalarType::I64},
              imp::Param{Name{"b", {1, 1}}, true, ScalarType::I64}};
  imp::Block inner, outer;
  SExpP row = mk_bin(BinOp::Mul, mk_var("i"), mk_var("n"));
  inner.push_back(imp::Stmt{
      imp::Write{Name{write, {4, 7}}, mk_bin(BinOp::Add, row, mk_var("j")), mk_var("x")}, {4, 7}});
  outer.push_back(imp::Stmt{imp::Decl{Name{"x", {2, 5}}, false, ScalarType::I64}, {2, 5}});
  outer.push_back(imp::Stmt{imp::Read{Name{"x", {2, 5}}, Name{read, {2, 5}}, row}, {2, 5}});
  outer.push_back(imp::Stmt{imp::Loop{true, Name{"j", {3, 5}}, std::move(bound), inner}, {3, 5}});
  if (suffix)
    outer.push_back(imp::Stmt{imp::Write{Name{"b", {5, 5}}, mk_var("i"), mk_int(0)}, {5, 5}});
  p.body.push_back(imp::Stmt{imp::Loop{true, Name{"i", {1, 3}}, mk_var("n"), outer}, {1, 3}});
  return p;
}

size_t thresholds(const imp::Program& p) {
  std::string err;
  auto code = imp_to_cuda(p, {}, {}, &err);
  INFO(err);
  REQUIRE(code);
  return code->thresholds.size();
}

} // namespace

TEST_CASE("kernel nests get versions only when every thread may redo the prefix",
          "[codegen][cuda][versions]") {
  // The prefix reads `a`, the inner kernel writes `b`: three versions, two thresholds.
  std::string err;
  auto code = imp_to_cuda(nest("a", "b", mk_var("n")), {}, {}, &err);
  REQUIRE(code);
  REQUIRE(code->thresholds.size() == 2);
  CHECK(code->thresholds[0].name == "f.suff_outer_par_0");
  CHECK(code->thresholds[0].parent == -1);
  CHECK(code->thresholds[0].exploits == "n");
  CHECK(code->thresholds[1].name == "f.suff_intra_par_0");
  CHECK(code->thresholds[1].parent == 0);
  CHECK(code->text.find("__global__ void fm_kernel_0_intra(") != std::string::npos);
  CHECK(code->text.find("__global__ void fm_kernel_0_flat(") != std::string::npos);
  CHECK(code->text.find("fm_h.above(0, fm_n)") != std::string::npos);
  // Not versioned: the inner kernel writes what the prefix reads (a thread of the
  // flattened version could read an element another one already overwrote) ...
  CHECK(thresholds(nest("a", "a", mk_var("n"))) == 0);
  // ... the inner bound depends on the outer iteration ...
  CHECK(thresholds(nest("a", "b", mk_var("i"))) == 0);
  // ... or work follows the inner kernel.
  CHECK(thresholds(nest("a", "b", mk_var("n"), true)) == 0);
  // --single-version.
  CudaOptions single;
  single.versions = false;
  auto one = imp_to_cuda(nest("a", "b", mk_var("n")), {}, single, &err);
  REQUIRE(one);
  CHECK(one->thresholds.empty());
  CHECK(one->text.find("_flat") == std::string::npos);
}
