// tools/malloc_info.h: when the build links mimalloc (funmem_malloc), it serves malloc.
#include "tools/malloc_info.h"

#include <catch2/catch.hpp>

TEST_CASE("the executables' allocator is the one the build chose", "[tools][malloc]") {
  const std::string name = funmem::allocator_name();
#ifdef FUNMEM_HAVE_MIMALLOC
  // Linked but not in charge (a lost link order) reads "system malloc (mimalloc ...".
  CHECK(name.rfind("mimalloc 2.", 0) == 0);
#else
  CHECK(name == "system malloc");
#endif
}
