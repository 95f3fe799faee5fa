// Rewriting the extractor's values (rewrite.h).
#include "frontend/model/rewrite.h"

namespace funmem::frontend {

std::optional<SymLmad> expand_loop(const SymLmad& l, const std::string& counter, const Poly& lower,
                                   const Poly& step, const Poly& count, const std::string& j) {
  return lmad_expand(j, 0, count, lmad_substitute(l, {{counter, lower + step * Poly::var(j)}}));
}

} // namespace funmem::frontend
