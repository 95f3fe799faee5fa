// Shapes of the configuration space (see config_space.h).
#include "tune/config_space.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace funmem::tune {

std::optional<Shape> parse_shape(const std::string& spec, std::string* error) {
  Shape s;
  s.spec = spec;
  std::istringstream in(spec);
  for (std::string item; in >> item;) {
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq == std::string::npos ? 0 : eq);
    const char* text = eq == std::string::npos ? "" : item.c_str() + eq + 1;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(text, &end, 10);
    if (name.empty() || !*text || *end || errno || v < 0) {
      if (error)
        *error = "expected NAME=VALUE with a non-negative integer VALUE, got '" + item + "'";
      return std::nullopt;
    }
    s.sizes.emplace_back(name, v);
  }
  if (s.sizes.empty()) {
    if (error) *error = "no sizes";
    return std::nullopt;
  }
  return s;
}

std::vector<double> shape_features(const Shape& s) {
  std::vector<double> f;
  f.reserve(s.sizes.size());
  for (const auto& [name, v] : s.sizes)
    f.push_back(std::log2(1.0 + static_cast<double>(v)));
  return f;
}

} // namespace funmem::tune
