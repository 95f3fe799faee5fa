// Differential tests of the generated CUDA code: every corpus program that the
// pipeline accepts is lowered, compiled by g++ against the CPU emulation (eight files to
// an executable) and run on its data sets, and its results equal the interpreter's; with
// nvcc present every generated file also compiles with nvcc. Programs expected to be invalid, racy
// or to fail with a heap-only error (elemtype) are not compared: their FUNMEM is wrong on purpose.
// Nor are programs where expand keeps an allocation inside a kernel (the code generator has no
// per-thread blocks); each is listed, and expand's report must say why it kept it.
#include "tests/corpus_util.h"
#include "verifier/cuda_check.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>

using namespace funmem;
namespace fs = std::filesystem;

namespace {

struct Case {
  fs::path path;
  std::string text;
};

/// The corpus programs to lower (test::lowerable_corpus), at most `limit`.
std::vector<Case> accepted_corpus(size_t limit) {
  std::vector<std::string> kept;
  std::vector<Case> out;
  for (const test::CorpusProgram& c : test::lowerable_corpus(&kept))
    out.push_back({c.path, test::slurp(c.path)});
  for (const std::string& k : kept)
    WARN("not lowered: expand keeps an allocation inside a kernel: " << k);
  if (out.size() > limit) out.resize(limit);
  return out;
}

fs::path work_dir(const char* name) {
  fs::path d =
      fs::temp_directory_path() / ("funmem-cuda-test-" + std::to_string(::getpid())) / name;
  fs::create_directories(d);
  return d;
}

/// Lowers a case and writes its .cu file; on failure nullopt and `error` says why.
std::optional<Lowered> lower_and_write(const Case& c, const std::string& cu, std::string* error) {
  auto l = lower_to_cuda(c.path.string(), c.text, {}, error);
  if (!l) {
    *error = c.path.string() + ": not lowered: " + *error;
    return std::nullopt;
  }
  if (std::string e = write_cuda(cu, l->code); !e.empty()) {
    *error = c.path.string() + ": " + e;
    return std::nullopt;
  }
  return l;
}

/// Runs f on every item with two workers (the compilers dominate).
template <class T, class F> void in_parallel(const std::vector<T>& items, F f) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next++) < items.size();)
      f(items[k], k);
  };
  auto a = std::async(std::launch::async, worker);
  worker();
  a.get();
}

/// A lowered program and how to run it: its executable and the arguments that select
/// it there (a batch's), or why it has none.
struct Built {
  const Case* c;
  Lowered l;
  std::string exe, args, error;
};

/// Lowers the cases and builds their CPU emulation (-O0: the data sets are small, and
/// the build is most of the time), in batches of files that share one executable; a
/// batch that does not build is built file by file, to name the files that fail.
std::vector<Built> build_batch(const std::vector<const Case*>& batch, size_t b, const fs::path& dir,
                               std::vector<std::string>* failures) {
  std::vector<Built> out;
  std::vector<std::string> cus;
  for (const Case* c : batch) {
    std::string cu = (dir / ("b" + std::to_string(b) + "p" + std::to_string(cus.size()) + ".cu"))
                         .string(),
                err;
    auto l = lower_and_write(*c, cu, &err);
    if (!l) {
      failures->push_back(err);
      continue;
    }
    out.push_back({c, std::move(*l), "", emulation_batch_args(cus.size()), ""});
    cus.push_back(cu);
  }
  if (out.empty()) return out;
  const std::string exe = (dir / ("b" + std::to_string(b) + ".emu")).string();
  if (build_emulation_batch(cus, (dir / ("b" + std::to_string(b) + ".cpp")).string(), exe,
                            EmuOpt::Quick)
          .empty()) {
    for (Built& x : out)
      x.exe = exe;
    return out;
  }
  fs::path single = dir / "single";
  fs::create_directories(single);
  for (size_t k = 0; k < out.size(); ++k) {
    std::string cu = (single / fs::path(cus[k]).filename()).string();
    if (std::string e = write_cuda(cu, out[k].l.code); !e.empty()) {
      out[k].error = e;
      continue;
    }
    out[k].error = build_emulation(cu, cu + ".emu", true, EmuOpt::Quick);
    out[k].exe = cu + ".emu";
    out[k].args.clear();
  }
  return out;
}

} // namespace

TEST_CASE("every accepted corpus program agrees with the interpreter on the CPU emulation",
          "[codegen][cuda][corpus]") {
  std::vector<Case> cases = accepted_corpus(test::cuda_corpus_limit().value_or(100000));
  REQUIRE(cases.size() >= 3);
  fs::path dir = work_dir("emulation");
  std::vector<std::vector<const Case*>> batches;
  for (size_t k = 0; k < cases.size(); ++k) {
    if (k % 8 == 0) batches.emplace_back();
    batches.back().push_back(&cases[k]);
  }
  std::mutex mu;
  std::vector<std::string> failures;
  int lowered = 0, runs = 0, versioned = 0;
  in_parallel(batches, [&](const std::vector<const Case*>& batch, size_t b) {
    std::vector<std::string> errors;
    std::vector<Built> built = build_batch(batch, b, dir, &errors);
    for (const Built& x : built) {
      std::vector<CudaRun> rs;
      int nests = 0;
      if (x.error.empty()) {
        // The default thresholds, then every version of every multi-versioned nest.
        rs = run_and_compare(x.l, x.exe, false, 0, dir.string(), x.args);
        for (const ForcedVersion& v : forced_versions(x.l.code)) {
          ++nests;
          for (CudaRun r :
               run_and_compare(x.l, x.exe, false, 0, dir.string(), x.args + " " + v.args)) {
            r.name += " (" + v.name + " version)";
            rs.push_back(r);
          }
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      ++lowered;
      versioned += nests > 0 ? 1 : 0;
      if (!x.error.empty()) {
        failures.push_back(x.c->path.string() + ": " + x.error);
        continue;
      }
      for (const CudaRun& r : rs) {
        ++runs;
        if (!r.ok) failures.push_back(x.c->path.string() + ": " + r.name + ": " + r.detail);
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    failures.insert(failures.end(), errors.begin(), errors.end());
  });
  for (const std::string& f : failures)
    UNSCOPED_INFO(f);
  CHECK(failures.empty());
  CHECK(lowered == static_cast<int>(cases.size()));
  CHECK(runs >= lowered);
  if (!test::cuda_corpus_limit()) CHECK(versioned >= 2);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("every generated corpus file compiles with nvcc", "[codegen][cuda][nvcc]") {
  // The kernels of every file (nvcc --cubin), 16 files to one nvcc run (the runtime
  // header is parsed once: about 1 s per file instead of 4), and the whole program
  // (host and device, linked, about 4 s each) for every 16th file;
  // FUNMEM_CUDA_NVCC_FULL=1 builds every file whole. A batch that fails is built file
  // by file, to name the files that fail.
  if (nvcc_path().empty()) {
    WARN("SKIPPED: nvcc not found under /usr/local/cuda");
    return;
  }
  const bool all_full = std::getenv("FUNMEM_CUDA_NVCC_FULL") != nullptr;
  std::vector<Case> cases = accepted_corpus(test::cuda_corpus_limit().value_or(100000));
  fs::path dir = work_dir("nvcc");
  std::mutex mu;
  std::vector<std::string> failures;
  std::vector<std::string> kernels_only; // lowered files that are not built whole
  int full = 0;
  in_parallel(cases, [&](const Case& c, size_t k) {
    std::string cu = (dir / ("p" + std::to_string(k) + ".cu")).string(), e;
    const bool whole = all_full || k % 16 == 0;
    const bool lowered = lower_and_write(c, cu, &e).has_value();
    if (lowered && whole) {
      e = build_nvcc(cu, cu + ".gpu", "sm_80", false);
      if (!e.empty()) e = c.path.string() + ": " + e;
    }
    std::lock_guard<std::mutex> lock(mu);
    full += whole ? 1 : 0;
    if (!e.empty()) failures.push_back(e);
    if (lowered && !whole) kernels_only.push_back(cu);
  });
  std::sort(kernels_only.begin(), kernels_only.end());
  std::vector<Case> batches; // one per 16 files: the path names the batch file
  for (size_t k = 0; k < kernels_only.size(); k += 16)
    batches.push_back({dir / ("batch" + std::to_string(k / 16) + ".cu"), ""});
  int batched = 0;
  in_parallel(batches, [&](const Case& b, size_t k) {
    const auto first = kernels_only.begin() + static_cast<long>(16 * k);
    std::vector<std::string> files(first, std::min(first + 16, kernels_only.end()));
    std::vector<std::string> errs;
    if (!build_nvcc_batch(files, b.path.string()).empty())
      for (const std::string& cu : files)
        if (std::string e = build_nvcc(cu, cu + ".cubin", "sm_80", true); !e.empty())
          errs.push_back(cu + ": " + e);
    std::lock_guard<std::mutex> lock(mu);
    batched += static_cast<int>(files.size());
    failures.insert(failures.end(), errs.begin(), errs.end());
  });
  for (const std::string& f : failures)
    UNSCOPED_INFO(f);
  CHECK(failures.empty());
  CHECK(full >= 1);
  CHECK(full + batched == static_cast<int>(cases.size()));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a batch of generated files that nvcc rejects fails", "[codegen][cuda][nvcc]") {
  if (nvcc_path().empty()) {
    WARN("SKIPPED: nvcc not found under /usr/local/cuda");
    return;
  }
  fs::path dir = work_dir("nvcc-batch");
  std::vector<std::string> files;
  for (const char* name : {"ok.cu", "bad.cu"}) {
    files.push_back((dir / name).string());
    std::ofstream(files.back()) << "__global__ void k(int* a) { a[threadIdx.x] = "
                                << (std::string(name) == "ok.cu" ? "1" : "undeclared_name")
                                << "; }\n";
  }
  std::ofstream(dir / "funmem_cuda_rt.h") << "#pragma once\n";
  CHECK(build_nvcc_batch({files[0]}, (dir / "b0.cu").string()).empty());
  CHECK_FALSE(build_nvcc_batch(files, (dir / "b1.cu").string()).empty());
  fs::remove_all(dir.parent_path());
}

TEST_CASE("the harness format round-trips values exactly", "[codegen][cuda]") {
  Inputs in;
  Data n;
  n.scalar = Scalar::of_int(ScalarType::I64, -7);
  in["n"] = n;
  Data m;
  m.is_array = true;
  m.elems = {Scalar::of_float(ScalarType::F64, 0.1), Scalar::of_int(ScalarType::I32, -3),
             Scalar::of_int(ScalarType::Bool, 1), Scalar::of_float(ScalarType::F32, 0.5)};
  in["m"] = m;
  std::string text = harness_input(in);
  CHECK(text.find("scalar n i64 -7") != std::string::npos);
  CHECK(text.find("mem m 4 f64 0x1.999999999999ap-4 i32 -3 bool true f32 0x1p-1") !=
        std::string::npos);
  auto out = parse_harness_output("scalar r f64 0x1.999999999999ap-4\nmem q 2 i64 5 -6\n");
  REQUIRE(out);
  REQUIRE(out->size() == 2);
  CHECK((*out)[0].scalar == Scalar::of_float(ScalarType::F64, 0.1));
  CHECK((*out)[1].elems.size() == 2);
  CHECK((*out)[1].elems[1] == Scalar::of_int(ScalarType::I64, -6));
  std::string why;
  CHECK_FALSE(parse_harness_output("mem q 3 i64 1 2\n", &why));
  CHECK_FALSE(why.empty());
  CHECK_FALSE(parse_harness_output("scalar x i65 1\n"));
}
