// A tool's main without an exception escaping it: an internal error (an exception no
// layer turned into a diagnostic) is reported as one and the tool exits with status 2,
// instead of terminating.
#pragma once

#include <cstdio>
#include <exception>

namespace funmem {

template <class F> int guarded_main(const char* tool, F body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", tool, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: internal error\n", tool);
  }
  return 2;
}

} // namespace funmem
