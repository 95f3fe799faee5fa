// Rewriting the extractor's values (one home for frontend/ and translation validation):
// EXPAND of an access over the iterations of a loop.
#pragma once

#include "ir/lmad.h"

#include <optional>
#include <string>

namespace funmem::frontend {

/// EXPAND (proc. 3.4) of `l` over a loop whose counter `counter` runs from `lower` in
/// `count` steps of `step`: the counter becomes `lower + step * j` (`j` a name of its
/// own) and j is expanded over [0, count). nullopt when the union is not one LMAD.
std::optional<SymLmad> expand_loop(const SymLmad& l, const std::string& counter, const Poly& lower,
                                   const Poly& step, const Poly& count, const std::string& j);

} // namespace funmem::frontend
