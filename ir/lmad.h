// Symbolic LMADs (thesis ch. 3): offset + {(count : stride), ...} over Polys.
// As index functions (3.4, fig. 3.6): application, fix, slice, strided slice, LMAD
// slices, transpose, permute, row- and column-major constructors, unrank, reshape.
// As sets of points (3.5): normalisation, empty dimensions, split, join, EXPAND.
// In the set interpretation a count <= 0 denotes the empty set.
// Example: slice(R(n, m), [i, 0 : m]) == i*m + {(m : 1)}.
#pragma once

#include "ir/ast.h"
#include "ir/symbolic.h"

#include <cstdint>
#include <functional>
#include <map>
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

// ---------------------------------------------------------------- index functions

/// Application: L(y1..yq) = offset + sum yk * stride_k (missing indices are 0).
Poly lmad_apply(const SymLmad& l, const std::vector<Poly>& idx);
/// fix(L, k): index the outermost dimension with k. Requires at least one dimension.
SymLmad lmad_fix(const SymLmad& l, const Poly& k);
/// slice(L, [x1 : y1, ...]) (offset : count per leading dimension).
SymLmad lmad_slice(const SymLmad& l, const std::vector<std::pair<Poly, Poly>>& s);
struct Triplet {
  Poly start, count, stride;
};
/// slice'(L, [x1 : y1 : z1, ...]) (thesis 3.4.1, strided triplets).
SymLmad lmad_slice_strided(const SymLmad& l, const std::vector<Triplet>& s);
/// slice_LMADS: one LMAD slice per dimension of `l` (nullopt when the counts differ).
std::optional<SymLmad> lmad_slice_lmads(const SymLmad& l, const std::vector<SymLmad>& per_dim);
/// permute(L, [i0, ...]): result dimension k is dimension perm[k] of L.
/// nullopt unless perm is a permutation of 0..rank-1.
std::optional<SymLmad> lmad_permute(const SymLmad& l, const std::vector<int>& perm);
/// UNRANK (proc. 3.2): the row-major multi-index of flat offset x in the shape of l.
std::vector<Poly> lmad_unrank(const SymLmad& l, const Poly& x);
/// reshape: the index function of `l` viewed with the row-major shape `shape`, when it
/// is one LMAD (dimensions are split and joined as needed); nullopt otherwise.
std::optional<SymLmad> lmad_reshape(const SymLmad& l, const std::vector<Poly>& shape);

// ---------------------------------------------------------------- sets of points

/// Decides the sign of a polynomial (-1, 0, 1) or nullopt when unknown.
using SignOracle = std::function<std::optional<int>(const Poly&)>;
/// The oracle that only knows constants.
SignOracle constant_sign_oracle();
/// The first half of NORMALIZE: every stride made positive, a negative one reversed
/// (offset + (count-1)*stride). With `drop_trivial`, dimensions of count 1 and of
/// stride 0 are dropped first (the points are the same, or a superset when a dropped
/// count may be <= 0); `notes` (when given) receives one line per reversed or dropped
/// dimension. nullopt when a sign is unknown.
std::optional<SymLmad> lmad_positive_strides(const SymLmad& l, const SignOracle& sign,
                                             bool drop_trivial = false,
                                             std::vector<std::string>* notes = nullptr);
/// NORMALIZE (proc. 3.3, with the offset correction (count-1)*stride): positive
/// strides, dimensions sorted by decreasing stride. nullopt when a sign is unknown.
std::optional<SymLmad> lmad_normalize(const SymLmad& l, const SignOracle& sign);
/// Inserts the empty dimension (1 : stride) before position pos.
SymLmad lmad_insert_empty(const SymLmad& l, size_t pos, const Poly& stride);
/// join(L, i): dimensions i and i+1 with stride_i == count_{i+1} * stride_{i+1}
/// become one; nullopt when that equation does not hold symbolically.
std::optional<SymLmad> lmad_join(const SymLmad& l, size_t i);
/// split(L, i, j): dimension i becomes (count/j : j*stride), (j : stride); nullopt
/// unless j divides the count exactly (as polynomials).
std::optional<SymLmad> lmad_split(const SymLmad& l, size_t i, const Poly& j);
/// EXPAND (proc. 3.4): the union over lower <= i < lower + span of L, as one LMAD with a
/// new outermost dimension; nullopt when `i` occurs in a dimension or the offset is not
/// affine in `i`.
std::optional<SymLmad> lmad_expand(const std::string& i, const Poly& lower, const Poly& span,
                                   const SymLmad& l);
/// A canonical form of an LMAD as a set of points, for comparing two that must denote
/// the same set: count-1 and zero-stride dimensions dropped, a dimension whose stride is
/// another's count times stride joined into it, the dimensions sorted by stride, then
/// count. The same points whenever every count is positive.
SymLmad lmad_canonical_set(SymLmad l);
/// Substitutes variables in every component.
SymLmad lmad_substitute(const SymLmad& l, const std::map<std::string, Poly>& s);
/// The free variables of every component.
std::vector<std::string> lmad_free_vars(const SymLmad& l);

/// A concrete LMAD (all components evaluated).
struct ConcreteLmad {
  int64_t offset = 0;
  std::vector<std::pair<int64_t, int64_t>> dims;
  /// Number of index tuples (0 when a count <= 0); nullopt on overflow.
  std::optional<int64_t> domain_size() const;
  /// The points, sorted and without duplicates; nullopt when more than `limit` index
  /// tuples would be enumerated or a point overflows.
  std::optional<std::vector<int64_t>> points(int64_t limit) const;
  /// Whether every point fits in int64 (its domain size too), without enumerating them.
  bool fits() const;
  /// A sufficient test that distinct index tuples reach distinct cells: no tuple, or the
  /// dimensions of two or more points, ordered by |stride|, each step beyond the span of
  /// the smaller ones (exact arithmetic). False for some injective LMADs (`{(3 : 2), (2 :
  /// 3)}`), never for one that sends two tuples to one cell.
  bool nested() const;
  int64_t apply(const std::vector<int64_t>& idx) const;
};
/// Evaluates every component under env; nullopt (with a message) on failure.
std::optional<ConcreteLmad> lmad_eval(const SymLmad& l, const std::map<std::string, int64_t>& env,
                                      std::string* error = nullptr);

} // namespace funmem
