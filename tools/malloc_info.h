// Which allocator an executable runs on (funmem_malloc in the top-level CMakeLists.txt):
// printed by the benchmarks and funmem-fuzz next to their rates.
#pragma once

#include <cstdlib>
#include <string>

#ifdef FUNMEM_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

namespace funmem {

/// "mimalloc 2.0.9" when mimalloc serves this process's malloc, else "glibc malloc"
/// (mimalloc linked but not in charge, which a preloaded allocator can cause, says so).
inline std::string allocator_name() {
#ifdef FUNMEM_HAVE_MIMALLOC
  const int v = mi_version();
  const std::string name = "mimalloc " + std::to_string(v / 100) + "." +
                           std::to_string(v / 10 % 10) + "." + std::to_string(v % 10);
  void* p = std::malloc(16);
  const bool ours = mi_is_in_heap_region(p);
  std::free(p);
  return ours ? name : "system malloc (" + name + " linked but not serving malloc)";
#else
  return "system malloc";
#endif
}

} // namespace funmem
