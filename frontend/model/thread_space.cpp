// The thread space's names (thread_space.h).
#include "frontend/model/thread_space.h"

namespace funmem::frontend {

std::string display_names(std::string text) {
  for (const char* b : kBuiltins)
    for (const char* d : {"_x", "_y", "_z"}) {
      std::string from = std::string(b) + d, to = std::string(b) + "." + (d + 1);
      for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
    }
  return text;
}

} // namespace funmem::frontend
