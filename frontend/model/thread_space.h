// The thread space's names (one home for frontend/): the built-in variables and their
// dimensions as the extractor names them (`threadIdx_x`), and the other thread's
// (primed) names the race checker gives them.
#pragma once

#include "ir/symbolic.h"

#include <set>
#include <string>
#include <vector>

namespace funmem::frontend {

/// The built-in variables whose members are the thread's position and the launch's sizes.
inline constexpr const char* kBuiltins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

/// The three dimensions of a launch.
inline constexpr const char* kDims[] = {"x", "y", "z"};

inline std::string tid(int d) {
  return std::string("threadIdx_") + kDims[d];
}
inline std::string bid(int d) {
  return std::string("blockIdx_") + kDims[d];
}
inline std::string bdim(int d) {
  return std::string("blockDim_") + kDims[d];
}
inline std::string gdim(int d) {
  return std::string("gridDim_") + kDims[d];
}
inline std::string primed(const std::string& n) {
  return n + "'";
}

inline bool mentions(const Poly& p, const std::string& n) {
  for (const std::string& v : p.free_vars())
    if (v == n) return true;
  return false;
}
/// threadIdx_* / blockIdx_*, of this thread or (primed) of the other.
inline bool is_builtin_index(const std::string& v) {
  return v.rfind("threadIdx_", 0) == 0 || v.rfind("blockIdx_", 0) == 0;
}
inline bool mentions_builtin_index(const Poly& p) {
  for (const std::string& v : p.free_vars())
    if (is_builtin_index(v)) return true;
  return false;
}

inline bool mentions_any(const std::vector<std::string>& vars, const std::set<std::string>& names) {
  for (const std::string& v : vars)
    if (names.count(v)) return true;
  return false;
}

/// `threadIdx_x` -> `threadIdx.x` (and the other built-ins) for messages.
std::string display_names(std::string text);

} // namespace funmem::frontend
