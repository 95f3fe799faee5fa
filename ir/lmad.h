// Symbolic LMADs (thesis 3.4): offset + {(count : stride), ...} over Polys, and the
// change-of-layout operations the FUNMEM type rules need (fig. 3.6): fix, slice,
// LMAD slice, transpose, row- and column-major constructors. The full algebra and
// the non-overlap prover build on this in analysis/.
// Example: slice(R(n, m), [i, 0 : m]) == i*m + {(m : 1)}.
#pragma once

#include "ir/ast.h"
#include "ir/symbolic.h"

#include <optional>
#include <string>
#include <vector>

namespace funmem {

struct SymLmad {
  Poly offset;
  std::vector<std::pair<Poly, Poly>> dims; // (count, stride), outermost first
  friend bool operator==(const SymLmad&, const SymLmad&) = default;
  std::string to_string() const;
};

SymLmad row_major(const std::vector<Poly>& shape);
SymLmad col_major(const std::vector<Poly>& shape);

/// One entry of a symbolic index: an index (count empty) or offset/count/stride.
struct SymEntry {
  Poly start;
  std::optional<Poly> count;
  Poly stride = 1;
};

/// Applies indices and slices to the outer dimensions (thesis `fix` and `slice`).
SymLmad lmad_index(const SymLmad& l, const std::vector<SymEntry>& entries);
/// The LMAD slice `xs[inner]` of a one-dimensional array with layout `outer`.
SymLmad lmad_compose(const SymLmad& outer, const SymLmad& inner);
/// Swaps the two outermost dimensions.
SymLmad lmad_transpose(const SymLmad& l);

} // namespace funmem
