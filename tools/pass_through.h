// The arguments after `--` on a tool's command line, passed on as they are (to clang):
// CLI11 would read them as positionals, so the tools split them off before parsing.
#pragma once

#include <string>
#include <vector>

namespace funmem {

/// The count of arguments before the first `--` (argc when there is none); the ones after
/// it are appended to `after`.
inline int split_at_dashes(int argc, char** argv, std::vector<std::string>& after) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      for (int j = i + 1; j < argc; ++j)
        after.push_back(argv[j]);
      return i;
    }
  return argc;
}

} // namespace funmem
