// Symbolic integer expressions in a canonical polynomial normal form.
// A Poly is a sum of monomials with non-zero int64 coefficients; a monomial is a
// sorted product of atoms with positive powers. Atoms are variables or opaque terms
// (`/`, `%`, `min`, `max`, `abs`) whose arguments are themselves Polys.
// Formally, two Polys are equal iff their term maps are equal, and equal Polys denote
// the same function of their variables. Example: (n+1)*(n+1) == n*n + 2*n + 1.
#pragma once

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace funmem {

class Poly;

/// Thrown when a coefficient of a normal form does not fit in int64.
struct SymbolicOverflow : std::overflow_error {
  using std::overflow_error::overflow_error;
};

enum class AtomKind { Var, Div, Mod, Min, Max, Abs };

struct Atom;

/// A shared, immutable atom compared by value.
class AtomRef {
public:
  explicit AtomRef(std::shared_ptr<const Atom> p) : p_(std::move(p)) {}
  const Atom& operator*() const { return *p_; }
  const Atom* operator->() const { return p_.get(); }
  friend bool operator==(const AtomRef& a, const AtomRef& b);
  friend bool operator<(const AtomRef& a, const AtomRef& b);

private:
  std::shared_ptr<const Atom> p_;
};

/// Sorted by atom, powers >= 1. Most have one or two atoms: kept inline.
using Monomial = boost::container::small_vector<std::pair<AtomRef, int>, 2>;
/// The terms of a Poly, sorted by monomial, coefficients non-zero; inline up to two.
using Terms = boost::container::small_vector<std::pair<Monomial, int64_t>, 2>;

class Poly {
public:
  Poly() = default;
  Poly(int64_t k); // NOLINT: integers convert implicitly to constant polynomials
  // Moves do not allocate: a term list and its monomials either move their heap buffer
  // or, held inline, move their (at most two) elements into the same inline capacity.
  Poly(const Poly&) = default;
  Poly(Poly&&) noexcept = default;
  Poly& operator=(const Poly&) = default;
  Poly& operator=(Poly&&) noexcept = default;
  static Poly var(const std::string& name);
  static Poly div(const Poly& a, const Poly& b); // truncating, as C
  static Poly mod(const Poly& a, const Poly& b); // remainder of truncating division
  static Poly min(const Poly& a, const Poly& b);
  static Poly max(const Poly& a, const Poly& b);
  static Poly abs(const Poly& a);

  friend Poly operator+(const Poly& a, const Poly& b);
  friend Poly operator-(const Poly& a, const Poly& b);
  friend Poly operator*(const Poly& a, const Poly& b);
  Poly operator-() const;
  friend bool operator==(const Poly& a, const Poly& b) { return a.terms_ == b.terms_; }
  friend bool operator<(const Poly& a, const Poly& b) { return a.terms_ < b.terms_; }

  bool is_constant() const;
  /// The value when the polynomial is a constant.
  std::optional<int64_t> constant() const;
  /// Free variable names, including those inside opaque atoms.
  std::vector<std::string> free_vars() const;
  /// Calls f(name) for every variable occurrence, including those inside opaque atoms
  /// (a name may come more than once); allocates nothing.
  template <class F> void for_each_var(F&& f) const;
  /// Replace variables by polynomials (simultaneously) and renormalise.
  Poly substitute(const std::map<std::string, Poly>& s) const;
  /// Replace every occurrence of the atom `a` (compared by value, also inside other
  /// atoms' arguments) by `by` and renormalise, e.g. m*min(n, k) + 1 with min(n, k) := n
  /// is m*n + 1.
  Poly replace_atom(const AtomRef& a, const Poly& by) const;
  /// Evaluate under an assignment. Errors (unbound name, overflow, division by zero)
  /// are returned as a message in `error` and the result is nullopt.
  std::optional<int64_t> eval(const std::map<std::string, int64_t>& env,
                              std::string* error = nullptr) const;
  /// Canonical text in the scalar-expression syntax (parses back to an equal Poly).
  std::string to_string() const;
  /// The terms in the order to_string prints them: highest degree first, the constant
  /// last.
  std::vector<std::pair<const Monomial*, int64_t>> print_order() const;
  /// The largest total degree of a monomial (0 for constants).
  int degree() const;
  /// The monomial `c * m`.
  static Poly monomial(const Monomial& m, int64_t c);
  /// Multivariate division by the leading term of `b` (graded order, integer
  /// coefficients): returns (q, r) with a == q*b + r where no term of r is divisible by
  /// the leading term of b. Example: divide(n*b, n*b - b) == (1, b).
  static std::pair<Poly, Poly> divide(const Poly& a, const Poly& b);
  /// Folds `(a / b) * b * r + (a % b) * r` back into `a * r` (the identity of truncating
  /// division, where b != 0), repeatedly: the index a flattened loop computes from its
  /// quotient and remainder, e.g. (f / m) * m + f % m == f.
  Poly fold_divmod() const;
  /// a / b when b divides a exactly as polynomials, e.g. (n*m + n) / n == m + 1.
  std::optional<Poly> exact_div(const Poly& b) const;

  const Terms& terms() const { return terms_; }

private:
  static Poly atom(AtomKind k, std::string name, std::vector<Poly> args);
  /// Rebuilds the polynomial, each atom replaced by f(atom) where that is a value; the
  /// others keep their kind with rebuilt arguments.
  Poly rebuild(const std::function<std::optional<Poly>(const AtomRef&)>& f) const;
  void add_term(const Monomial& m, int64_t c);
  Terms::const_iterator find(const Monomial& m) const;
  Terms terms_;
};

struct Atom {
  AtomKind kind;
  std::string name;       // for Var
  std::vector<Poly> args; // for opaque atoms
};

template <class F> void Poly::for_each_var(F&& f) const {
  for (const auto& [m, c] : terms_)
    for (const auto& [a, e] : m) {
      if (a->kind == AtomKind::Var) f(a->name);
      for (const Poly& q : a->args)
        q.for_each_var(f);
    }
}

} // namespace funmem
