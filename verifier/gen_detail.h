// The generator of FUN programs (gen.h) as a class, shared by gen.cpp (statements,
// expressions and the forms of produce()) and gen_shapes.cpp (the shapes aimed at
// the rules of short-circuiting and at aliases).
#pragma once

#include "verifier/gen.h"

#include <functional>
#include <initializer_list>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace funmem::gen_detail {

struct Ty {
  std::string elem; // i64, i32, f64, f32 or bool
  std::vector<std::string> dims;
  bool operator==(const Ty&) const = default;
  Ty row() const { return Ty{elem, {dims.begin() + 1, dims.end()}}; }
  std::string text() const {
    std::string s;
    for (const std::string& d : dims)
      s += "[" + d + "]";
    return s + elem;
  }
};

struct Var {
  std::string name;
  Ty ty;
};

struct Counter {
  std::string name, bound;
};

class Gen {
public:
  Gen(uint64_t seed, const GenOptions& o)
      : rng_(seed), opt_(o), boundary_rng_(seed ^ 0xb0a2d5e7c3f1a965ULL),
        boundary_(static_cast<int>(boundary_rng_() % 100) < o.boundary_percent),
        sized_rng_(seed ^ 0x5a3c96e1d2b7f4c8ULL),
        sized_(static_cast<int>(sized_rng_() % 100) < o.sized_percent),
        rare_rng_(seed ^ 0x3e9b07c1a5d2f864ULL) {}

  std::string program();

private:
  std::mt19937_64 rng_;
  GenOptions opt_;
  // The boundary draw has its own generator: programs without boundary values are the
  // same as before it existed.
  std::mt19937_64 boundary_rng_;
  bool boundary_;
  std::mt19937_64 sized_rng_; // likewise for the size (za - zb) * n
  bool sized_;
  // Draws whether a statement is a rare_shape(): a program without one is the same as
  // before those shapes existed.
  std::mt19937_64 rare_rng_;

  std::vector<Var> vars_;
  std::vector<Counter> counters_;
  int next_name_ = 0;

  int rnd(int n) { return n <= 1 ? 0 : static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return rnd(100) < percent; }
  template <class T> const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(rnd(static_cast<int>(v.size())))];
  }
  std::string fresh(const char* base) { return base + std::to_string(++next_name_); }
  static std::string pad(int indent) { return std::string(static_cast<size_t>(2 * indent), ' '); }

  std::string random_size() { return sized_ && rnd(4) == 0 ? "(za - zb) * n" : rnd(2) ? "n" : "m"; }
  /// i64 mostly; f64, i32 and f32 sometimes (f32 only with floats).
  std::string random_elem(int other_percent) {
    if (!chance(other_percent)) return "i64";
    switch (rnd(opt_.floats ? 3 : 1)) {
    case 1:
      return "f64";
    case 2:
      return "f32";
    default:
      return "i32";
    }
  }

  Ty random_array_type() {
    Ty t{random_elem(30), {random_size()}};
    if (chance(35)) t.dims.push_back(random_size());
    return t;
  }

  Ty random_type() {
    if (chance(30)) return Ty{random_elem(35), {}};
    return random_array_type();
  }

  /// An index into a dimension of size `dim`: a counter bounded by it, or 0.
  std::string index_for(const std::string& dim) {
    std::vector<std::string> cands;
    for (const Counter& c : counters_)
      if (c.bound == dim) cands.push_back(c.name);
    if (cands.empty() || chance(15)) return "0";
    const std::string& j = pick(cands);
    // Non-affine indices, still in bounds (0 <= j < dim): half the counter, or the
    // counter shifted and wrapped around the dimension.
    if (chance(8)) return "(" + j + " / 2)";
    if (chance(8)) return "((" + j + " + " + std::to_string(1 + rnd(3)) + ") % (" + dim + "))";
    return j;
  }

  /// A split point of a dimension of size `dim` (a name): 1, half of it, or an
  /// expression of a counter bounded by it (the counter, half of it, or `min(j + 1,
  /// dim)`); always 0 <= split <= dim, so either part may be empty. The parts' sizes
  /// then carry the division or the minimum (`[n - (j / 2)]`).
  std::string split_for(const std::string& dim) {
    std::vector<std::string> cands;
    for (const Counter& c : counters_)
      if (c.bound == dim) cands.push_back(c.name);
    if (cands.empty() || chance(30)) return chance(25) ? "(" + dim + " / 2)" : "1";
    const std::string& j = pick(cands);
    if (chance(15)) return "(" + j + " / 2)";
    if (chance(15)) return "min(" + j + " + 1, " + dim + ")";
    return j;
  }

  std::vector<const Var*> vars_of(const Ty& t) {
    std::vector<const Var*> out;
    for (const Var& v : vars_)
      if (v.ty == t) out.push_back(&v);
    return out;
  }

  std::string literal(const std::string& elem) {
    // Non-negative: a literal is also an atom (`replicate n 3`), where `-3` is not one.
    if (elem == "f64") return std::to_string(rnd(5)) + ".5";
    if (elem == "f32") return std::to_string(rnd(5)) + ".5f32";
    if (elem == "i32") return std::to_string(rnd(5)) + "i32";
    if (elem == "bool") return rnd(2) ? "true" : "false";
    return std::to_string(rnd(5));
  }

  /// A scalar expression of element type `elem`.
  std::string sexp(const std::string& elem, int depth);

  /// An existing variable of type `t` (sometimes) or a new one.
  Var find_or_produce(std::vector<std::string>& out, int indent, int depth, const Ty& t) {
    auto vs = vars_of(t);
    if (!vs.empty() && chance(50)) return *pick(vs);
    return produce(out, indent, depth, t);
  }

  Var bind(std::vector<std::string>& out, int indent, const Ty& t, const std::string& exp) {
    Var v{fresh(t.dims.empty() ? "s" : "a"), t};
    if (t.dims.empty())
      out.push_back(pad(indent) + "let " + v.name + " = " + exp);
    else
      out.push_back(pad(indent) + "let (" + v.name + " : " + t.text() + ") = " + exp);
    vars_.push_back(v);
    return v;
  }

  std::string indices(const Ty& t, size_t count) {
    std::string s;
    for (size_t k = 0; k < count; ++k)
      s += (k ? ", " : "") + index_for(t.dims[k]);
    return s;
  }

  /// A nested body: statements, then a result of type `t`; the scope ends after it.
  std::string body(int indent, int depth, const Ty& t, const std::vector<Var>& extra,
                   const std::vector<Counter>& counters,
                   const std::function<Var(std::vector<std::string>&)>& result = nullptr);

  /// One to max_stmts statements: productions, concats, shapes and assumptions.
  void stmts(std::vector<std::string>& out, int indent, int depth);

  /// A scalar `if` choosing `a` or `b` (FUN needs the result's type).
  std::string scalar_if(int indent, const std::string& a, const std::string& b);

  /// Removes the variables `names` (consumed, or not to be read again).
  void drop(std::initializer_list<std::string> names);

  /// The point `D with [k] = x`, consuming D and x; the result stays a variable unless a
  /// size of its type is the body's own.
  void update_point(std::vector<std::string>& out, int indent, const Var& D, const std::string& k,
                    const Var& x);

  /// The shapes short-circuiting's rules are about (docs/short-circuit.md; the coverage
  /// table of docs/fuzzing.md counts them): a source `x` created, then something the
  /// rule looks at, then the point `D with [k] = x` into a destination `D`. Valid for
  /// every data set (sizes 1 and more, xs's values -8..8); the source and the destination
  /// are consumed.
  void sc_shape(std::vector<std::string>& out, int indent);

  /// Shapes for the rules of short-circuiting that the other shapes rarely reach
  /// (docs/fuzzing.md, Rule coverage), each a source, a statement the rule is about and
  /// a point: an `if` returning an array created before it while its other branch (or
  /// the same one) passes that array on as an update's value (an outside result used
  /// otherwise); a read of the destination's row between the source's creation and the
  /// destination's (hoisting passes a use of a moved block; without the `assume` making
  /// the read safe, a destination block that may fail); a one-dimensional `scratch` whose
  /// size `s * s` (s read from the data) may overflow as the count of a replicate; a
  /// one-element slice update at the stride -2^63 (coefficients beyond 64 bits).
  void rare_shape(std::vector<std::string>& out, int indent);
  /// An `if` creating the source and a second array, and the update's row read from the
  /// second after the if, kept in the destination by min and max (about 1 statement in
  /// 1,000): the row cannot move above the if that defines what it reads (class 4).
  void if_other_result_index(std::vector<std::string>& out, int indent);
  /// An `if` one branch of which returns an array created before it while the other
  /// creates its result and then reads that array (directly, or in a loop summing it):
  /// built in one place, the read would see the other result (about 1 statement in
  /// 1,000; class 13).
  void if_outside_read(std::vector<std::string>& out, int indent);
  /// `let (y) (z) = if COND then A else B` with the branch `outside` (returning the array
  /// `b` created before the if) one of A and B at random, then the point `D with [k] = y`.
  void outside_result_point(std::vector<std::string>& out, int indent, const Var& y, const Var& z,
                            const std::string& outside, const std::string& other,
                            const std::string& b, const Var& D, const std::string& d2);

  /// Arrays that may be other arrays at run time (docs/syntax.md, Aliases): an `if`'s or
  /// a loop's result that is an array from outside it, updated afterwards; two loop
  /// parameters from one array; a body reading an alias of the parameter's initial value;
  /// a body result that may be another result; a swap updating one parameter. Every
  /// array updated here, and every alias of it, is dropped from the variables.
  void alias_shape(std::vector<std::string>& out, int indent);

  /// `concat a b` of two arrays whose outer sizes may differ.
  void concat(std::vector<std::string>& out, int indent, int depth);

  /// The forms 11 to 15 of produce(): scratch, LMAD views and updates, partial and
  /// strided slices; nullopt when the form does not apply.
  std::optional<Var> produce_view(std::vector<std::string>& out, int indent, int depth, const Ty& t,
                                  int form);

  /// The forms 0 to 10 of produce(): kernels, loops and ifs (when `nest`), replicate,
  /// iota, copy, updates, transposes, rows, slices and columns; nullopt when the form does
  /// not apply.
  std::optional<Var> produce_form(std::vector<std::string>& out, int indent, int depth, const Ty& t,
                                  int form, bool nest);

  /// Emits statements binding a new variable of type `t`.
  Var produce(std::vector<std::string>& out, int indent, int depth, const Ty& t);
};

} // namespace funmem::gen_detail
