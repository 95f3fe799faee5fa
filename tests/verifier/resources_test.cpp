// ptxas's resource report (verifier/resources.h): parsed from a captured report, and read
// from nvcc for a generated kernel nest, with and without a register cap.
#include "support/files.h"
#include "verifier/cuda_check.h"
#include "verifier/resources.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

using namespace funmem;
namespace fs = std::filesystem;

TEST_CASE("ptxas's report: every kernel with its registers, memory and spills",
          "[verifier][resources]") {
  // nvcc 12 for sm_80 on corpus/nw/nw-full.funmem (shared memory and spills added to the
  // second kernel to read every field).
  const std::string report =
      "ptxas info    : 4 bytes gmem, 8 bytes cmem[4]\n"
      "ptxas info    : Compiling entry function '_Z16fm_kernel_0_flatlllll6fm_mem' for "
      "'sm_80'\n"
      "ptxas info    : Function properties for _Z16fm_kernel_0_flatlllll6fm_mem\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 0 barriers, 408 bytes cmem[0]\n"
      "ptxas info    : Compile time = 890.257 ms\n"
      "ptxas info    : Compiling entry function '_Z17fm_kernel_0_intralllll6fm_mem' for "
      "'sm_80'\n"
      "ptxas info    : Function properties for _Z17fm_kernel_0_intralllll6fm_mem\n"
      "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 1 barriers, 1040 bytes smem, 408 bytes "
      "cmem[0]\n"
      "ptxas info    : Compiling entry function 'plain_c_name' for 'sm_80'\n"
      "ptxas info    : Compile time = 1 ms\n";
  std::vector<KernelResources> ks = parse_ptxas_report(report);
  REQUIRE(ks.size() == 2); // the third has no `Used` line
  CHECK(ks[0].kernel == "fm_kernel_0_flat");
  CHECK(ks[0].mangled == "_Z16fm_kernel_0_flatlllll6fm_mem");
  CHECK(ks[0].registers == 40);
  CHECK(ks[0].shared_bytes == 0);
  CHECK(ks[0].constant_bytes == 408);
  CHECK(ks[1].kernel == "fm_kernel_0_intra");
  CHECK(ks[1].registers == 24);
  CHECK(ks[1].barriers == 1);
  CHECK(ks[1].shared_bytes == 1040);
  CHECK(ks[1].stack_bytes == 16);
  CHECK(ks[1].spill_store_bytes == 8);
  CHECK(ks[1].spill_load_bytes == 4);
  CHECK(parse_ptxas_report("").empty());
}

TEST_CASE("nvcc reports the registers of generated kernels, and a cap lowers them",
          "[verifier][resources]") {
  if (nvcc_path().empty()) {
    WARN("SKIPPED: nvcc not found under /usr/local/cuda");
    return;
  }
  const fs::path src = fs::path(FUNMEM_SOURCE_DIR) / "corpus" / "nw" / "nw-full.funmem";
  std::string error;
  LowerOptions lo;
  auto l = lower_to_cuda(src.string(), read_file(src.string()), lo, &error);
  REQUIRE(l);
  const fs::path dir = fs::temp_directory_path() / ("funmem-resources-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string cu = (dir / "nw.cu").string();
  REQUIRE(write_cuda(cu, l->code).empty());
  auto plain = ptxas_resources(cu, "sm_80", {}, &error);
  INFO(error);
  REQUIRE(plain);
  REQUIRE_FALSE(plain->empty());
  int most = 0;
  for (const KernelResources& k : *plain) {
    CHECK(k.kernel.rfind("fm_kernel_", 0) == 0);
    most = std::max(most, k.registers);
  }
  REQUIRE(most > 24);
  auto capped = ptxas_resources(cu, "sm_80", {"-maxrregcount=24"}, &error);
  REQUIRE(capped);
  REQUIRE(capped->size() == plain->size());
  for (const KernelResources& k : *capped)
    CHECK(k.registers <= 24);
  fs::remove_all(dir);
}
