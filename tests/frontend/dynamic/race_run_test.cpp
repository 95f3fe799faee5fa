// The dynamic race detector: instrumentation, the CPU emulation with real threads and
// barriers, every corpus/cuda kernel's race observed (and none in race-free ones), and
// funmem-race-run.
#include "frontend/check.h"
#include "frontend/dynamic/race_run.h"
#include "frontend/extract.h"
#include "frontend/race.h"
#include "tests/frontend/frontend_test_util.h"
#include "tests/test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

using namespace funmem;
using namespace funmem::frontend;
using funmem::frontend_test::scratch;
namespace fs = std::filesystem;

namespace {

/// Runs one job of `code` and returns its result for `kernel`.
JobResult run_once(const std::string& code, const std::string& name, const Launch& l,
                   int seconds = 10) {
  RaceDetector d(code, name + ".cu", scratch(name).string());
  for (const std::string& e : d.errors())
    UNSCOPED_INFO(e);
  REQUIRE(d.errors().empty());
  RaceJob j;
  j.launch = l;
  auto rs = d.run({j}, seconds);
  fs::remove_all(scratch(name));
  REQUIRE(rs.size() == 1);
  REQUIRE(rs[0].size() == 1);
  return rs[0][0];
}

} // namespace

TEST_CASE("instrumentation wraps every load and store of memory", "[frontend][race-run]") {
  Instrumented ins = instrument("struct P { int x, y; };\n"
                                "__device__ int g;\n"
                                "__global__ void k(int* a, P* p, int n) {\n"
                                "  int i = threadIdx.x;\n"
                                "  a[i] = a[i + 1] + n;\n"
                                "  p[i].y += g;\n"
                                "}\n",
                                "k.cu");
  REQUIRE(ins.errors.empty());
  CHECK(ins.kernels == std::vector<std::string>{"k"});
  CHECK(ins.source.find("(*::fmr::wr(&(a[i]), 5, 3)) = (*::fmr::rd(&(a[i + 1]), 5, 10)) + n;") !=
        std::string::npos);
  CHECK(ins.source.find("(*::fmr::rw(&(p[i].y), 6, 3)) += (*::fmr::rd(&(g), 6, 13));") !=
        std::string::npos);
  CHECK(ins.source.find("int i = threadIdx.x;") != std::string::npos); // built-ins, locals
  CHECK(ins.source.find("::fmr::reg(&g, sizeof(g), \"g\", false);") != std::string::npos);
  // What it cannot instrument is an error, never a silent gap.
  Instrumented mac = instrument("#define AT(p, i) p[i]\n"
                                "__global__ void k(int* a) { AT(a, 0) = 1; }\n",
                                "m.cu");
  REQUIRE_FALSE(mac.errors.empty());
  CHECK(mac.errors[0].find("m.cu:2:29: error: cannot instrument an access inside a macro") == 0);
  // A selection that depends on a template parameter is rewritten from the template's
  // instantiation; instantiations that select differently cannot share one text.
  const std::string st = "template <int N> __device__ void st(int* a) {\n"
                         "  __builtin_choose_expr(N, a[0], a[threadIdx.x]) = 1;\n"
                         "  _Generic((char(*)[N])0, char(*)[1]: a[0], default: a[1]) = 2;\n"
                         "}\n";
  Instrumented one = instrument(st + "__global__ void k(int* a) { st<1>(a); }\n", "d.cu");
  REQUIRE(one.errors.empty());
  CHECK(one.source.find("(*::fmr::wr(&((a[0])), 2, 3)) = 1;") != std::string::npos);
  Instrumented two = instrument(st + "__global__ void k(int* a) { st<1>(a); st<0>(a); }\n", "d.cu");
  REQUIRE(two.errors.size() == 1);
  CHECK(two.errors[0].find("d.cu:2:3: error: cannot instrument the template 'st': its "
                           "instantiation 'st<0>' loads or stores memory otherwise") == 0);
}

TEST_CASE("the detector observes races with both threads, and none in race-free code",
          "[frontend][race-run]") {
  Launch l; // 4 threads, 2 blocks
  JobResult r = run_once("__global__ void k(int* a) { a[threadIdx.x / 2] = 1; }\n", "pairs", l);
  CHECK(r.finished);
  REQUIRE_FALSE(r.races.empty());
  CHECK(r.races[0].object == "a");
  CHECK(r.races[0].first.find("writes 4 byte(s) at 1:29") != std::string::npos);
  // A real barrier orders the two halves: no race.
  JobResult b = run_once("__global__ void k(int* a) {\n  __shared__ int s[4];\n"
                         "  s[threadIdx.x] = threadIdx.x;\n  __syncthreads();\n"
                         "  a[blockIdx.x * 4 + threadIdx.x] = s[3 - threadIdx.x];\n}\n",
                         "barrier", l);
  CHECK(b.finished);
  CHECK(b.races.empty());
  // Without it, the same accesses race.
  JobResult nb = run_once("__global__ void k(int* a) {\n  __shared__ int s[4];\n"
                          "  s[threadIdx.x] = threadIdx.x;\n"
                          "  a[blockIdx.x * 4 + threadIdx.x] = s[3 - threadIdx.x];\n}\n",
                          "nobarrier", l);
  REQUIRE_FALSE(nb.races.empty());
  CHECK(nb.races[0].object == "s");
  // Atomics do not race with atomics; fields of one element are different bytes.
  CHECK(run_once("__global__ void k(int* c) { atomicAdd(c, 1); }\n", "atomic", l).races.empty());
  CHECK(run_once("struct P { int x, y; };\n__global__ void k(P* p) {\n"
                 "  if (threadIdx.x == 0) p[blockIdx.x].x = 1; else if (threadIdx.x == 1) "
                 "p[blockIdx.x].y = 2;\n}\n",
                 "fields", l)
            .races.empty());
  // Warp shuffles exchange values: each race below needs two correct results.
  Launch warps;
  warps.block[0] = 64;
  warps.grid[0] = 1;
  JobResult sh =
      run_once("__global__ void k(int* out) {\n  int v = threadIdx.x;\n"
               "  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);\n"
               "  if (threadIdx.x == 0 && v == 496) out[0] = 1;\n"
               "  if (threadIdx.x == 32 && v == 1520) out[0] = 2;\n"
               "  int w = __shfl_xor_sync(0xffffffff, (int)threadIdx.x, 1);\n"
               "  if (threadIdx.x == 5 && w == 4) out[1] = 1;\n"
               "  if (threadIdx.x == 6 && w == 7) out[1] = 2;\n}\n",
               "shuffle", warps);
  REQUIRE(sh.races.size() == 2);
  CHECK(sh.races[0].byte == 0);
  CHECK(sh.races[1].byte == 4);
  // Out of bounds is reported (and harmless); a hang is cut off.
  Launch small;
  small.elements = 2;
  JobResult oob = run_once("__global__ void k(int* a) { a[blockIdx.x * 4 + threadIdx.x] = 1; }\n",
                           "oob", small);
  CHECK(oob.finished);
  REQUIRE_FALSE(oob.errors.empty());
  CHECK(oob.errors[0].find("out of bounds: 4 byte(s) at 1:29") == 0);
  JobResult hang = run_once("__global__ void k(int* a) { while (a[0] >= 0) {} }\n", "hang", l, 1);
  CHECK_FALSE(hang.finished);
}

TEST_CASE("the detector instruments a template's loads and stores from its instantiations",
          "[frontend][race-run]") {
  // The pattern's `a[0]` (of type T) is no load until T is known; read by every thread
  // while thread 1 writes it.
  Launch l;
  JobResult r = run_once("template <typename T> __device__ T get(const T* a) { return a[0]; }\n"
                         "__global__ void k(int* a, int* out) {\n"
                         "  if (threadIdx.x == 1) a[0] = 3;\n"
                         "  out[threadIdx.x] = get(a);\n}\n",
                         "template-loads", l);
  REQUIRE_FALSE(r.races.empty());
  CHECK(r.races[0].object == "a");
  CHECK(r.races[0].first.find("reads 4 byte(s) at 1:61") != std::string::npos);
  Instrumented box = instrument("template <typename T> struct Box { __device__ void add(T* p, T v) "
                                "{ p[threadIdx.x] += v + p[0]; } };\n"
                                "__global__ void m(float* p) { Box<float>{}.add(p, 1.0f); }\n",
                                "box.cu");
  REQUIRE(box.errors.empty());
  CHECK(box.source.find("(*::fmr::rw(&(p[threadIdx.x]), 1, 69)) += v + (*::fmr::rd(&(p[0]), 1, "
                        "91))") != std::string::npos);
  // Instantiations that load otherwise (a pointer's element, a class's operator[] by
  // value) cannot share one text: refused.
  Instrumented two =
      instrument("struct V { __device__ int operator[](int i) const { return i; } };\n"
                 "template <typename T> __device__ int at0(T a) { return a[0]; }\n"
                 "__global__ void k(int* p, int* out) {\n"
                 "  out[threadIdx.x] = at0(p) + at0(V{});\n}\n",
                 "two.cu");
  REQUIRE(two.errors.size() == 1);
  CHECK(two.errors[0].find("two.cu:2:56: error: cannot instrument the template 'at0'") == 0);
}

TEST_CASE("funmem-race-run: races, exit codes, JSON", "[frontend][race-run][tools]") {
  const std::string bin = FUNMEM_RACE_RUN_BIN;
  const std::string dir = std::string(FUNMEM_SOURCE_DIR) + "/corpus/cuda/";
  auto race = test::run_command(bin + " " + dir + "shared-scalar.cu");
  CHECK(race.code == 1);
  CHECK(race.out.find("kernel k: race (blockDim 4 gridDim 2)") != std::string::npos);
  CHECK(race.out.find("race on a, byte 0:") != std::string::npos);
  auto free = test::run_command(bin + " " + dir + "reduce.cu --blockDim 8 --gridDim 2");
  CHECK(free.code == 0);
  CHECK(free.out.find("kernel reduce: no race observed (blockDim 8 gridDim 2)") !=
        std::string::npos);
  auto json = test::run_command(bin + " --json " + dir + "struct-assign.cu");
  CHECK(json.code == 1);
  CHECK(json.out.find("\"object\": \"pairs\"") != std::string::npos);
  // One buffer's size: x of 3 elements, read by 8 threads.
  // (A run with accesses out of bounds did not check everything: exit 2.)
  auto small = test::run_command(bin + " " + dir + "saxpy-gridstride.cu --size x=3");
  CHECK(small.code == 2);
  CHECK(small.out.find("no race observed, but not every access was checked") != std::string::npos);
  CHECK(small.out.find("out of bounds: 4 byte(s) at 7:16") != std::string::npos);
  // Names that no kernel has, and budgets of nothing, are refused.
  auto misspelt = test::run_command(bin + " " + dir + "saxpy-gridstride.cu --size xx=3");
  CHECK(misspelt.code == 2);
  CHECK(misspelt.out.find("--size 'xx': no kernel of") != std::string::npos);
  CHECK(test::run_command(bin + " " + dir + "saxpy-gridstride.cu --arg nn=3").code == 2);
  CHECK(test::run_command(bin + " " + dir + "saxpy-gridstride.cu --work 0").code != 0);
  // An index past a buffer's end never lands in the next buffer (rows of 64 elements in
  // buffers of 8^2 + 64): out of bounds, not a race.
  auto rows =
      test::run_command(bin + " " + dir + "detector-adjacent-buffers.cu --blockDim 8 --gridDim 1");
  CHECK(rows.code == 2);
  CHECK(rows.out.find("race on") == std::string::npos);
  CHECK(rows.out.find("out of bounds: 4 byte(s) at 7:50") != std::string::npos);
  // Nor past a named shared array's end into the one after it.
  auto tiles =
      test::run_command(bin + " " + dir + "shared-index-leaves.cu --blockDim 16,16 --gridDim 1");
  CHECK(tiles.code == 2);
  CHECK(tiles.out.find("race on") == std::string::npos);
  CHECK(tiles.out.find("of 'Bs'") != std::string::npos);
  CHECK(test::run_command(bin + " " + dir + "saxpy-gridstride.cu --size x").code == 2);
  CHECK(test::run_command(bin + " /nonexistent.cu").code == 2);
  CHECK(test::run_command(bin + " " + dir + "reduce.cu --blockDim 0").code == 2);
  CHECK(test::run_command(bin + " " + dir + "reduce.cu --arg n=x").code == 2);
}

TEST_CASE("the detector builds the text clang parsed, or refuses what it cannot",
          "[frontend][race-run]") {
  // The branches clang took (device-side macros) and its predefined macros' values.
  Launch l;
  CHECK_FALSE(run_once("__global__ void k(int* a) {\n#ifdef __CUDA_ARCH__\n  a[0] = threadIdx.x;\n"
                       "#else\n  a[blockIdx.x * blockDim.x + threadIdx.x] = 1;\n#endif\n}\n",
                       "arch", l)
                  .races.empty());
  CHECK_FALSE(
      run_once("__global__ void k(int* a) {\n  a[(__SIZEOF_LONG_DOUBLE__ - 8) * (blockIdx.x "
               "* blockDim.x + threadIdx.x)] = threadIdx.x;\n}\n",
               "predefined", l)
          .races.empty());
  // Only directives are blanked: not a `#if` line of a raw string or of a continued line.
  Instrumented raw = instrument("__global__ void k(int* a) {\n  a[sizeof(R\"(x\n#if 1\n)\")] = 1;\n"
                                "#define T a \\\n#if 1\n}\n",
                                "raw.cu");
  REQUIRE(raw.errors.empty());
  CHECK(raw.source.find("R\"(x\n#if 1\n)\"") != std::string::npos);
  CHECK(raw.source.find("#define T a \\\n#if 1\n") != std::string::npos);
  // A class template's constructor with a member initialiser (its body is its pattern's).
  CHECK(run_once("template <class T> struct W { T v; __device__ W(T x) : v(x) {} };\n"
                 "__global__ void k(int* a) { W<int> w(1); a[blockIdx.x * blockDim.x + "
                 "threadIdx.x] = w.v; }\n",
                 "ctor", l)
            .races.empty());
  for (const auto& [code, what] : std::vector<std::pair<std::string, std::string>>{
           {"__global__ void k(long double* a) { a[threadIdx.x] = 1; }\n", "'long double'"},
           {"__global__ void k(int* a) { a[sizeof(__PRETTY_FUNCTION__)] = 1; }\n",
            "'__PRETTY_FUNCTION__'"},
           {"__global__ void k(int* a) { __builtin_memmove(a, a + 1, 4); }\n",
            "the builtin '__builtin_memmove'"},
           {"__global__ void k(int* a) { __atomic_store_n(a, 5, __ATOMIC_RELAXED); }\n",
            "an atomic builtin"},
           {"__global__ void k(int* a) {\n  __shared__ char s[8];\n  a[0] = "
            "__builtin_strlen(s);\n}\n",
            "the builtin '__builtin_strlen'"},
           {"namespace mine { template <class T> T& wr(T* p, int, int) { return *p; } }\n"
            "#define fmr mine\n__global__ void k(int* a) { a[0] = 1; }\n#undef fmr\n",
            "defines the macro 'fmr'"}}) {
    Instrumented ins = instrument(code, "r.cu");
    INFO(code);
    REQUIRE_FALSE(ins.errors.empty());
    CHECK(ins.errors[0].find(what) != std::string::npos);
  }
}

TEST_CASE("funmem-race-run: clang's macros reach the build, a user header's code is refused",
          "[frontend][race-run][tools]") {
  const std::string bin = FUNMEM_RACE_RUN_BIN;
  const fs::path dir = scratch("race-run-args");
  fs::create_directories(dir / "inc");
  std::ofstream(dir / "macro.cu") << "__global__ void k(int* a) {\n"
                                     "#ifdef RACY\n  a[0] = threadIdx.x;\n"
                                     "#else\n  a[blockIdx.x * blockDim.x + threadIdx.x] = 1;\n"
                                     "#endif\n}\n";
  const std::string file = (dir / "macro.cu").string();
  CHECK(test::run_command(bin + " " + file).code == 0);
  CHECK(test::run_command(bin + " " + file + " -- -DRACY").code == 1);
  CHECK(test::run_command(bin + " " + file + " --clang-arg=-DRACY").code == 1);
  CHECK(test::run_command(bin + " " + file + " -- -DRACY -Wall -std=c++17").code == 1);
  auto other = test::run_command(bin + " " + file + " -- -fno-exceptions");
  CHECK(other.code == 2);
  CHECK(other.out.find("the clang argument '-fno-exceptions' has no counterpart") !=
        std::string::npos);
  // `char` unsigned: 200 is not negative, the store of element 0 runs.
  std::ofstream(dir / "sign.cu") << "__global__ void k(int* a) {\n  char c = (char)200;\n"
                                    "  if (c > 0) a[0] = threadIdx.x;\n}\n";
  CHECK(test::run_command(bin + " " + (dir / "sign.cu").string()).code == 0);
  CHECK(test::run_command(bin + " " + (dir / "sign.cu").string() + " -- -funsigned-char").code ==
        1);
  // A device function of a header g++ would compile uninstrumented: refused.
  std::ofstream(dir / "inc" / "st.h") << "__device__ void st(int* a) { a[0] = threadIdx.x; }\n";
  const std::string hdr = "#include \"st.h\"\n__global__ void k(int* a) { st(a); }\n";
  Instrumented ins = instrument(hdr, "h.cu", {"-I" + (dir / "inc").string()});
  REQUIRE(ins.errors.size() == 1);
  CHECK(ins.errors[0].find("st.h:1:17: error: cannot instrument 'st', defined outside the file") !=
        std::string::npos);
  // Nor code of a header that runs where the file uses it: a lambda, a default argument,
  // a member initialiser, text included into a function.
  std::ofstream(dir / "inc" / "more.h")
      << "inline constexpr auto put = [](int* p) { p[0] = 1; };\n"
         "__device__ int get(int* p, int v = 0);\nstruct M { int* p; int v = p[0]; };\n";
  std::ofstream(dir / "inc" / "body.inc") << "a[0] = threadIdx.x;\n";
  Instrumented more =
      instrument("#include \"more.h\"\n__device__ int get(int* p, int v) { return v; }\n"
                 "__global__ void k(int* a) {\n#include \"body.inc\"\n}\n",
                 "m.cu", {"-I" + (dir / "inc").string()});
  std::string all;
  for (const std::string& e : more.errors)
    all += e + "\n";
  INFO(all);
  CHECK(all.find("more.h:1:29: error: cannot instrument a lambda outside") != std::string::npos);
  CHECK(all.find("cannot instrument the initialiser of 'v' outside") != std::string::npos);
  CHECK(all.find("body.inc:1:1: error: cannot instrument an access in text included") !=
        std::string::npos);
  fs::remove_all(dir);
}

/// Writes `text` as `dir`/`name` (the folder created) and runs funmem-race-run on it.
static test::CommandResult run_file(const fs::path& dir, const std::string& name,
                                    const std::string& text, const std::string& args = "") {
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return test::run_command(std::string(FUNMEM_RACE_RUN_BIN) + " " + (dir / name).string() + args);
}

TEST_CASE("funmem-race-run: g++ sees clang's predefined macros, nested and in headers, or the "
          "file is refused",
          "[frontend][race-run][tools]") {
  // Every kernel writes element 0 from every thread where clang's macros hold, its own
  // element where g++'s would.
  const fs::path dir = scratch("race-run-predefined");
  auto run = [&](const std::string& name, const std::string& text, const std::string& args = "") {
    return run_file(dir, name, text, args);
  };
  const std::string gid = "blockIdx.x * blockDim.x + threadIdx.x";
  // Through a macro of the file (8 on the device, 16 for g++ on x86-64).
  CHECK(run("nested.cu", "#define BA __BIGGEST_ALIGNMENT__\n#define IDX(t) (BA == 8 ? 0 : (t))\n"
                         "__global__ void k(int* a) { a[IDX(" +
                             gid + ")] = threadIdx.x; }\n")
            .code == 1);
  // A user header's conditional on a macro clang defines and g++ does not, and on one
  // g++ defines and clang does not (through a macro of the header).
  std::ofstream(dir / "cfg.h")
      << "#ifdef __CUDA_ARCH__\n#define ON 1\n#else\n#define ON 0\n#endif\n"
         "#define GCC_ONLY __GNUC_STDC_INLINE__\n"
         "#if GCC_ONLY\n#define OFF 1\n#else\n#define OFF 0\n#endif\n";
  CHECK(run("header.cu", "#include \"cfg.h\"\n__global__ void k(int* a) { a[ON ? 0 : " + gid +
                             "] = threadIdx.x; }\n")
            .code == 1);
  CHECK(run("header2.cu", "#include \"cfg.h\"\n__global__ void k(int* a) { a[OFF ? " + gid +
                              " : 0] = threadIdx.x; }\n")
            .code == 1);
  // The dialect: C++17 for both, or the one the clang arguments name.
  const std::string dialect =
      "__global__ void k(int* a) { a[__cplusplus == 201703L ? 0 : " + gid + "] = threadIdx.x; }\n";
  CHECK(run("dialect.cu", dialect).code == 1);
  CHECK(run("dialect.cu", dialect, " -- -std=c++20").code == 0);
  // A system header's macro that reaches one (LDBL_MANT_DIG: 53 on the device, 64 in
  // g++'s <cfloat>), and __has_builtin in code: refused.
  auto sys = run("system.cu", "#include <cfloat>\n__global__ void k(int* a) {\n  a[LDBL_MANT_DIG "
                              "== 53 ? 0 : " +
                                  gid + "] = 1;\n}\n");
  CHECK(sys.code == 2);
  CHECK(sys.out.find("system.cu:3:5: error: cannot instrument the predefined macro "
                     "__LDBL_MANT_DIG__ reached through a system header's macro") !=
        std::string::npos);
  auto has = run("has.cu", "__global__ void k(int* a) {\n  a[__has_builtin(__builtin_bit_cast) ? 0 "
                           ": " +
                               gid + "] = 1;\n}\n");
  CHECK(has.code == 2);
  CHECK(has.out.find("has.cu:2:5: error: cannot instrument the builtin macro __has_builtin") !=
        std::string::npos);
  // In the file's own conditional directives clang's choice is kept: no refusal.
  CHECK(run("directive.cu", "__global__ void k(int* a) {\n#if __has_builtin(__builtin_bit_cast)\n"
                            "  a[0] = threadIdx.x;\n#endif\n}\n")
            .code == 1);
  fs::remove_all(dir);
}

TEST_CASE("the detector refuses calls whose accesses it does not see, and calls whose arguments' "
          "order matters",
          "[frontend][race-run]") {
  auto errors = [](const std::string& code) {
    std::string all;
    for (const std::string& e : instrument(code, "u.cu").errors)
      all += e + "\n";
    return all;
  };
  // A system header's function reading through references to shared memory.
  const std::string lib = "#include <cstdlib>\n#include <algorithm>\n__global__ void k(int* a) {\n"
                          "  __shared__ int s[8];\n  int x = a[0], y = 2;\n";
  CHECK(errors(lib + "  a[1] = std::min(s[0], s[1]);\n}\n")
            .find("u.cu:6:10: error: cannot instrument a call of 'std::min<int>' of a system "
                  "header, whose accesses the detector does not see, with argument 1 by "
                  "reference") != std::string::npos);
  CHECK(errors(lib + "  a[1] = std::max(a[0], y);\n}\n").find("'std::max<int>'") !=
        std::string::npos);
  // Its own locals, temporaries and their elements are the thread's: allowed.
  CHECK(errors(lib + "  int l[2] = {x, y};\n  a[1] = std::min(x, y) + std::max(l[0], 3);\n}\n")
            .empty());
  // The compiler's copy of a structure whose member copies itself: the array is copied
  // unseen.
  const std::string copy = "struct M { int v; M() = default; __device__ M(const M& o) : v(o.v) {} "
                           "};\nstruct S { int arr[4]; M m; };\n";
  CHECK(errors(copy + "__global__ void k(int* a) {\n  __shared__ S sh;\n  S loc = sh;\n"
                      "  a[0] = loc.m.v;\n}\n")
            .find("u.cu:5:11: error: cannot instrument a call of the implicit special member "
                  "'S::S'") != std::string::npos);
  const std::string assign = "struct M { int v; __device__ M& operator=(const M& o) { v = o.v; "
                             "return *this; } };\nstruct S { int arr[4]; M m; };\n";
  CHECK(
      errors(assign + "__global__ void k(int* a) {\n  __shared__ S sh;\n  S loc;\n  sh = loc;\n}\n")
          .find("u.cu:6:3: error: cannot instrument a call of the implicit special member "
                "'S::operator=', which copies members the detector does not see, on an "
                "object") != std::string::npos);
  CHECK(errors(copy + "__global__ void k(int* a) {\n  S x;\n  S y = x;\n  a[0] = y.m.v;\n}\n")
            .empty());
  // g++ evaluates arguments right to left, clang left to right.
  const std::string order = "__device__ void put(int* p, int i, int v) { p[i] = v; }\n"
                            "__device__ int set(int& x, int v) { x = v; return v; }\n";
  CHECK(errors(order + "__global__ void k(int* a) {\n  int i = 0;\n  put(a, i, set(i, 1));\n}\n")
            .find("u.cu:5:3: error: cannot instrument arguments whose order of evaluation C++ "
                  "leaves unspecified (one may change 'i'") != std::string::npos);
  CHECK(errors(order + "__global__ void k(int* a) {\n  int i = 0;\n  put(a, i, set(i, 1) + 0);\n"
                       "  int j = set(i, 2);\n  put(a, j, i);\n}\n")
            .find("order of evaluation") != std::string::npos);
  CHECK(errors(order + "__global__ void k(int* a) {\n  int i = 0;\n  int j = set(i, 2);\n"
                       "  put(a, j, i);\n}\n")
            .empty());
  // A store to memory in one argument and a load of it in another: the same.
  CHECK(errors(order + "__global__ void k(int* a) {\n  int l[2] = {0, 1};\n"
                       "  put(a, a[1] = 0, a[1]);\n  put(a, l[0] = 1, l[0]);\n}\n")
            .find("u.cu:5:3: error: cannot instrument arguments whose order of evaluation C++ "
                  "leaves unspecified (one may write memory that another reads or writes)") !=
        std::string::npos);
  CHECK(errors(order + "__global__ void k(int* a) {\n  put(a, a[1], a[2]);\n}\n").empty());
  // A host function of the file beside the device function a call names: g++ would
  // choose among both.
  CHECK(errors("__host__ int g(int) { return 0; }\n__device__ int g(long) { return 1; }\n"
               "__global__ void k(int* a) { a[g(1)] = 1; }\n")
            .find("u.cu:3:31: error: cannot instrument a call of 'g', which a host function of "
                  "the file overloads") != std::string::npos);
  CHECK(errors("__device__ int g(long) { return 1; }\n"
               "__global__ void k(int* a) { a[g(1)] = 1; }\n")
            .empty());
  // The runtime's C++ library headers are not the file's.
  CHECK(errors("using namespace std;\n__global__ void k(int* a) { a[0] = 1; }\n")
            .find("u.cu:1:1: error: cannot instrument a using-directive for namespace std") !=
        std::string::npos);
}

TEST_CASE("funmem-race-run: the device's float conversions, min and max, and a grid barrier "
          "across blocks is not modelled",
          "[frontend][race-run][tools]") {
  const std::string bin = FUNMEM_RACE_RUN_BIN;
  const fs::path dir = scratch("race-run-device-math");
  auto run = [&](const std::string& name, const std::string& text) {
    return run_file(dir, name, text);
  };
  const std::string own = "p[blockIdx.x * blockDim.x + threadIdx.x + 1] = 1;\n}\n";
  // Saturated (x86-64 gives INT_MIN), NaN to 0, fminf: each makes every thread write p[0].
  CHECK(run("sat.cu", "__global__ void k(int* p, float big) {\n"
                      "  if (__float2int_rz(1e10f + big * 0) > 0) p[0] = threadIdx.x; else " +
                          own)
            .code == 1);
  CHECK(run("nan.cu", "__global__ void k(int* p) {\n  float z = threadIdx.x * 0.0f;\n"
                      "  if (__float2int_rn(z / z) == 0) p[0] = threadIdx.x; else " +
                          own)
            .code == 1);
  CHECK(run("fmin.cu", "__global__ void k(int* p) {\n  float z = threadIdx.x * 0.0f;\n"
                       "  if (min(1.0f, z / z) == 1.0f) p[0] = threadIdx.x; else " +
                           own)
            .code == 1);
  auto grid = run("grid.cu", "using namespace cooperative_groups;\n"
                             "__global__ void k(int* p) {\n  this_grid().sync();\n"
                             "  p[blockIdx.x * blockDim.x + threadIdx.x] = 1;\n}\n");
  CHECK(grid.code == 2);
  CHECK(grid.out.find("a grid barrier in a launch of more than one block is not modelled") !=
        std::string::npos);
  CHECK(test::run_command(bin + " " + (dir / "grid.cu").string() + " --gridDim 1,1,1").code == 0);
  fs::remove_all(dir);
}

TEST_CASE("funmem-race-run: an --arg value its place's type cannot hold is refused",
          "[frontend][race-run][tools]") {
  // The kernel would get the value converted: another one than the one asked for.
  const std::string code =
      "enum E { A, B = 5 };\nenum N { M = -3, P = 2 };\nenum class F : signed char { X };\n"
      "struct S { unsigned f : 3; int g; };\n"
      "__global__ void k(unsigned char c, bool b, E e, N n, F x, S s, long long w, "
      "unsigned long long u, int* out) {\n"
      "  out[blockIdx.x * blockDim.x + threadIdx.x] = c + b + e + n + (int)x + s.f + (int)w + "
      "u;\n}\n";
  Instrumented ins = instrument(code, "k.cu");
  REQUIRE(ins.errors.empty());
  std::map<std::string, std::pair<int64_t, int64_t>> got;
  for (const ScalarRange& r : ins.ranges) {
    CHECK(r.kernel == "k");
    got[r.path] = {r.lo, r.hi};
  }
  using R = std::pair<int64_t, int64_t>;
  CHECK(got["c"] == R{0, 255});
  CHECK(got["b"] == R{0, 1});
  CHECK(got["e"] == R{0, 7});  // the values of the smallest bit-field holding 0 and 5
  CHECK(got["n"] == R{-4, 3}); // ... holding -3 and 2
  CHECK(got["x"] == R{-128, 127});
  CHECK(got["s.f"] == R{0, 7});
  CHECK(got["s.g"] == R{INT32_MIN, INT32_MAX});
  CHECK(got["w"] == R{INT64_MIN, INT64_MAX});
  CHECK(got["u"] == R{0, INT64_MAX});
  // The tool: a value that fits runs, one that does not is refused before any run.
  fs::path file = scratch("arg-types") / "k.cu";
  fs::create_directories(file.parent_path());
  std::ofstream(file) << code;
  const std::string run = FUNMEM_RACE_RUN_BIN + std::string(" ") + file.string() + " --arg ";
  CHECK(test::run_command(run + "c=255 --arg s.f=7 --arg n=-4").code == 0);
  auto r = test::run_command(run + "s.f=8");
  CHECK(r.code == 2);
  CHECK(r.out.find("error: --arg 's.f=8': 's.f' of kernel k has type 'unsigned int : 3', whose "
                   "values are 0 to 7") != std::string::npos);
  fs::remove_all(file.parent_path());
}

TEST_CASE("funmem-race-run: a run's budget counts work, structure arguments' members are filled",
          "[frontend][race-run][tools]") {
  const std::string bin = FUNMEM_RACE_RUN_BIN;
  const fs::path dir = scratch("race-run-work");
  fs::create_directories(dir);
  // A spin on memory no thread writes: stopped by its budget of accesses, whatever the
  // machine's load (the wall-clock guard is a minute away).
  std::ofstream(dir / "spin.cu") << "__global__ void k(volatile int* a) {\n"
                                    "  while (a[0] != 12345) {}\n"
                                    "}\n";
  auto spin = test::run_command(bin + " " + (dir / "spin.cu").string() + " --work 100000");
  CHECK(spin.code == 2);
  CHECK(spin.out.find("the run exceeded its work budget (100000 accesses") != std::string::npos);
  // Pointers inside a structure argument are buffers of their own, sized by their path.
  const std::string corpus = std::string(FUNMEM_SOURCE_DIR) + "/corpus/cuda/";
  auto nested = test::run_command(bin + " --json " + corpus +
                                  "struct-param-nested-race.cu --size q.out=3 --arg q.io.scale=3");
  CHECK(nested.code == 1);
  CHECK(nested.out.find("\"object\": \"q.io.dst[1]\"") != std::string::npos);
  CHECK(nested.out.find("out of bounds: 4 byte(s) at 18:5") != std::string::npos);
  CHECK(nested.out.find("q.out\",") == std::string::npos); // its writes are each thread's own
  // A bit-field of an enumeration's type is set from an integer (converted explicitly).
  std::ofstream(dir / "mode.cu")
      << "enum Mode { A, B, C };\nstruct Opts { Mode mode : 2; int n; };\n"
         "__global__ void k(int* a, Opts o) {\n"
         "  if (o.mode == B) a[0] = threadIdx.x;\n}\n";
  CHECK(test::run_command(bin + " " + (dir / "mode.cu").string()).code == 0);
  auto mode = test::run_command(bin + " " + (dir / "mode.cu").string() + " --arg o.mode=1");
  INFO(mode.out);
  CHECK(mode.code == 1);
  fs::remove_all(dir);
}

TEST_CASE("funmem-race-run: races seen before a run stops, kernels that cannot run, every "
          "argument filled",
          "[frontend][race-run][tools]") {
  const std::string bin = FUNMEM_RACE_RUN_BIN;
  const fs::path dir = scratch("race-run-stops");
  fs::create_directories(dir);
  // A race, then a loop past the budget; a race, then a division by zero; a kernel after
  // both still runs (a process of its own).
  std::ofstream(dir / "stops.cu")
      << "__global__ void spin(int* a) {\n"
         "  a[threadIdx.x / 2] = 1;\n"
         "  for (int i = 0; i < 1 << 30; ++i) a[64 + threadIdx.x] += i;\n"
         "}\n"
         "__global__ void divide(int* a, int n) {\n"
         "  int z = n - n;\n"
         "  a[100 + threadIdx.x] = 5 / z;\n"
         "}\n"
         "__global__ void last(int* a) { a[0] = threadIdx.x; }\n";
  auto stops = test::run_command(bin + " " + (dir / "stops.cu").string() + " --work 100000");
  INFO(stops.out);
  CHECK(stops.code == 1);
  CHECK(stops.out.find("kernel spin: race (the run did not finish)") != std::string::npos);
  CHECK(stops.out.find("the run exceeded its work budget (100000") != std::string::npos);
  CHECK(stops.out.find("kernel divide: did not finish") != std::string::npos);
  CHECK(stops.out.find("the run stopped at an arithmetic exception") != std::string::npos);
  CHECK(stops.out.find("kernel last: race (") != std::string::npos);
  // Constant structures and members, untyped and union pointers are filled; a kernel
  // whose argument cannot be made is reported and not run, the others are.
  std::ofstream(dir / "members.cu")
      << "struct Q { int* const out; void* raw; int n; };\n"
         "__global__ void k(const Q q) { q.out[threadIdx.x / 2] = 1; }\n"
         "__global__ void pp(int** p) { p[0][threadIdx.x] = 1; }\n"
         "struct R { int& r; };\n"
         "__global__ void ref(R s) { s.r = 1; }\n"
         "struct U { union { int* a; long b; }; };\n"
         "__global__ void un(U u) { u.a[threadIdx.x / 2] = 1; }\n"
         "__global__ void raw(Q q) { static_cast<char*>(q.raw)[threadIdx.x / 2] = 1; }\n"
         "struct RQ { float* __restrict__ res; };\n"
         "__global__ void rq(RQ r) { r.res[threadIdx.x / 2] = 1; }\n";
  auto members = test::run_command(bin + " " + (dir / "members.cu").string());
  CHECK(members.code == 1);
  CHECK(members.out.find("race on q.out, byte 0") != std::string::npos);
  CHECK(members.out.find("race on u.a, byte 0") != std::string::npos);
  CHECK(members.out.find("race on q.raw, byte 0") != std::string::npos);
  CHECK(members.out.find("race on r.res, byte 0") != std::string::npos);
  CHECK(members.out.find("the kernel is not run: cannot allocate 'p' of type 'int **'") !=
        std::string::npos);
  CHECK(members.out.find("the kernel is not run: the member 's.r' is a reference") !=
        std::string::npos);
  // A partial __syncwarp is not modelled: no answer (exit 2), never "no race".
  std::ofstream(dir / "warp.cu") << "__global__ void k(int* a) {\n"
                                    "  a[threadIdx.x] = 1;\n"
                                    "  __syncwarp(0x3);\n"
                                    "  a[threadIdx.x ^ 1] += 1;\n"
                                    "}\n";
  auto warp = test::run_command(bin + " " + (dir / "warp.cu").string());
  CHECK(warp.code == 2);
  CHECK(warp.out.find("not every access was checked") != std::string::npos);
  // A function declared without a body runs as funmem-extract assumes it: a value,
  // no memory. A derived structure's member and its base's of the same name are two.
  const std::string corpus = std::string(FUNMEM_SOURCE_DIR) + "/corpus/cuda/";
  CHECK(test::run_command(bin + " " + corpus + "bodyless-call-assumed.cu").code == 0);
  auto hidden = test::run_command(bin + " --json " + corpus + "base-method-hidden-member-race.cu");
  CHECK(hidden.code == 1);
  CHECK(hidden.out.find("\"object\": \"q.B::p\"") != std::string::npos);
  CHECK(test::run_command(bin + " " + corpus + "base-derived-same-name.cu --size q.D::p=70").code ==
        0);
  fs::remove_all(dir);
}

TEST_CASE("funmem-race-run: copies, bindings and casts are instrumented or refused, guards "
          "report what was seen",
          "[frontend][race-run][tools]") {
  const std::string bin = FUNMEM_RACE_RUN_BIN;
  const fs::path dir = scratch("race-run-copies");
  fs::create_directories(dir);
  // Thread 1 writes a[0]; every thread copies it (or writes all of it) at once.
  std::ofstream(dir / "copies.cu")
      << "#define G (blockIdx.x * blockDim.x + threadIdx.x)\n"
         "struct B { int y; };\nstruct D : B { int z; };\n"
         "__device__ int f(B v) { return v.y; }\n"
         "__global__ void k_arg(B* a, int* out) { if (G == 1) a[0].y = 3; out[G] = f(a[0]); }\n"
         "__global__ void k_paren(B* a, int* out) { if (G == 1) a[0].y = 3; B b = (a[0]); "
         "out[G] = b.y; }\n"
         "__global__ void k_brace(B* a, int* out) { if (G == 1) a[0].y = 3; B b{a[0]}; out[G] = "
         "b.y; }\n"
         "__global__ void k_ref(B* a, int* out) { if (G == 1) a[0].y = 3; B& r = a[0]; B b = r; "
         "out[G] = b.y; }\n"
         "__global__ void k_slice(D* a, int* out) { if (G == 1) a[0].y = 3; B b = a[0]; out[G] = "
         "b.y; }\n"
         "__global__ void k_cast(D* a) { B b; b.y = G; (B&)a[0] = b; }\n"
         "__global__ void k_cond(B* a, int c) { B b; b.y = G; (c ? a[0] : a[1]) = b; }\n"
         "struct P { int x, y; };\n"
         "__global__ void k_bind(P* a) { auto& [x, y] = a[0]; x = threadIdx.x; }\n"
         "__global__ void k_bindval(P* a, int* out) { if (G == 1) a[0].y = 5; auto [x, y] = "
         "a[0]; out[G] = x + y; }\n";
  auto copies = test::run_command(bin + " " + (dir / "copies.cu").string());
  CHECK(copies.code == 1);
  for (const char* k : {"k_arg", "k_paren", "k_brace", "k_ref", "k_slice", "k_cast", "k_cond",
                        "k_bind", "k_bindval"}) {
    INFO(k << "\n" << copies.out);
    CHECK(copies.out.find(std::string("kernel ") + k + ": race (") != std::string::npos);
  }
  // Copies without source text are refused, never missed.
  std::ofstream(dir / "refused.cu")
      << "__global__ void k(int* a, int* out) { int& r = a[0]; auto f = [=] { return r; }; "
         "out[threadIdx.x] = f(); }\n"
         "__global__ void s(int* out) { __shared__ int t[4]; int sum = 0; for (int v : t) sum "
         "+= v; out[threadIdx.x] = sum; }\n";
  auto refused = test::run_command(bin + " " + (dir / "refused.cu").string());
  CHECK(refused.code == 2);
  CHECK(refused.out.find("cannot instrument the copy of 'r' that a lambda captures") !=
        std::string::npos);
  CHECK(refused.out.find("cannot instrument the loads of a range-based for over memory ('t')") !=
        std::string::npos);
  // Races seen before a stack overflow or the CPU-time guard are reported; a thread that
  // returned before a barrier is ordered with nothing after it.
  std::ofstream(dir / "guards.cu")
      << "__device__ int rec(int n) { volatile int pad[64]; pad[0] = n; return n ? rec(n - 1) + "
         "pad[0] : 0; }\n"
         "__global__ void deep(int* a, int n) { a[0] = threadIdx.x; __syncthreads(); a[threadIdx.x "
         "+ 1] = rec(n); }\n";
  auto deep = test::run_command(bin + " " + (dir / "guards.cu").string() + " --arg n=100000000");
  CHECK(deep.code == 1);
  CHECK(deep.out.find("the run stopped at a segmentation fault") != std::string::npos);
  std::ofstream(dir / "spin.cu") << "__global__ void k(int* a) {\n  a[0] = threadIdx.x;\n"
                                    "  volatile int x = 0;\n  for (;;) x++;\n}\n";
  auto spin = test::run_command(bin + " " + (dir / "spin.cu").string() + " --seconds 2");
  CHECK(spin.code == 1);
  CHECK(spin.out.find("the run used its 2 s of CPU time") != std::string::npos);
  std::ofstream(dir / "exit.cu") << "__global__ void k(int* out) {\n  __shared__ int s[4];\n"
                                    "  if (threadIdx.x == 0) { s[0] = 1; return; }\n"
                                    "  __syncthreads();\n  out[threadIdx.x] = s[0];\n}\n";
  CHECK(test::run_command(bin + " " + (dir / "exit.cu").string()).code == 1);
  // A parameter whose type is no declarator prefix (a pointer to arrays) builds.
  std::ofstream(dir / "rows.cu")
      << "__global__ void k(int (*m)[4]) { m[blockIdx.x * blockDim.x + threadIdx.x][0] = 1; }\n"
         "__global__ void other(int* a) { a[0] = threadIdx.x; }\n";
  auto rows = test::run_command(bin + " " + (dir / "rows.cu").string());
  CHECK(rows.code == 1);
  CHECK(rows.out.find("kernel k: no race observed") != std::string::npos);
  CHECK(rows.out.find("kernel other: race") != std::string::npos);
  fs::remove_all(dir);
}
