// Launch facts and GPUVerify's test headers (race.h): `--assume` text as a formula, and
// the header lines that give a test's launch and expected verdict.
#include "frontend/model/gpuverify_header.h"
#include "frontend/model/thread_space.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <sstream>

namespace funmem::frontend {

std::optional<Formula> parse_launch_fact(const std::string& text, Diagnostic* error) {
  std::string t = text;
  for (const char* b : {"threadIdx", "blockIdx", "blockDim", "gridDim"})
    for (const char* d : {".x", ".y", ".z"}) {
      std::string from = std::string(b) + d, to = std::string(b) + "_" + (d + 1);
      for (size_t at = 0; (at = t.find(from, at)) != std::string::npos; at += to.size())
        t.replace(at, from.size(), to);
    }
  return parse_fact(t, error);
}

GpuVerifyHeader read_gpuverify_header(const std::string& code) {
  GpuVerifyHeader h;
  std::istringstream in(code);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("//", 0) != 0) break; // the header is the leading comment lines
    std::string body = line.substr(2);
    if (body.rfind("pass", 0) == 0) h.expect = "race-free";
    if (body.rfind("xfail", 0) == 0) h.expect = "race";
    if (body.find("--equality-abstraction") != std::string::npos) h.equal_writes = true;
    if (body.find("--only-intra-group") != std::string::npos) h.only_intra_group = true;
    if (size_t at = body.find("--warp-sync="); at != std::string::npos) {
      std::string n = body.substr(at + 12);
      n = n.substr(0, n.find_first_not_of("0123456789"));
      if (!n.empty() && n.size() < 6) h.warp_sync = std::stoi(n);
    }
    std::istringstream w(body);
    for (std::string word; w >> word;) {
      if ((word.rfind("-D", 0) == 0 || word.rfind("-I", 0) == 0) && word.size() > 2)
        h.clang_args.push_back(word);
      for (const char* what : {"--blockDim=", "--gridDim="}) {
        if (word.rfind(what, 0) != 0) continue;
        std::string v = word.substr(std::string(what).size());
        // [a,b,c] or a single number.
        if (!v.empty() && v.front() == '[') v = v.substr(1, v.size() - 2);
        std::istringstream vs(v);
        std::string item;
        int d = 0;
        while (std::getline(vs, item, ',') && d < 3) {
          bool digits = !item.empty() && std::all_of(item.begin(), item.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
          });
          // A size beyond 64 bits is no launch fact (a fact fewer only loses precision).
          int64_t size = 0;
          auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), size);
          if (digits && ec == std::errc() && end == item.data() + item.size()) {
            std::string name =
                std::string(std::string(what) == "--blockDim=" ? "blockDim_" : "gridDim_") +
                kDims[d];
            h.facts.push_back(eq(Poly::var(name), size));
            h.fact_texts.push_back(display_names(name) + " == " + item);
          }
          ++d;
        }
        // The dimensions not given are 1 (`--blockDim=256` is 256 x 1 x 1).
        for (; d > 0 && d < 3; ++d) {
          std::string name =
              std::string(std::string(what) == "--blockDim=" ? "blockDim_" : "gridDim_") + kDims[d];
          h.facts.push_back(eq(Poly::var(name), 1));
          h.fact_texts.push_back(display_names(name) + " == 1");
        }
      }
    }
  }
  return h;
}

} // namespace funmem::frontend
