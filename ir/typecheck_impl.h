// Internals of the type checker (see typecheck.h), shared by typecheck.cpp (the
// environment, scalar expressions, types, bodies) and typecheck_let.cpp (let
// statements: every expression form, loops, patterns).
#pragma once

#include "ir/convert.h"
#include "ir/lmad.h"
#include "ir/overloaded.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/scalar_types.h"
#include "ir/typecheck.h"

#include <algorithm>
#include <set>

namespace funmem::tc {

std::string pos_text(Pos p);

/// What the checker knows about a name.
struct Info {
  enum class Kind { Scalar, Mem, Array, Poisoned };
  Kind kind = Kind::Poisoned;
  ScalarType elem = ScalarType::I64;
  std::vector<Poly> dims;
  std::string mem;             // FUNMEM arrays
  std::optional<SymLmad> lmad; // FUNMEM arrays
  std::set<int> roots;         // aliasing roots of arrays
  Pos pos;
};

Info scalar_info(ScalarType t);
Info mem_info();
std::string shape_text(const std::vector<Poly>& dims, ScalarType elem);
std::string info_text(const Info& i);

class Checker {
public:
  explicit Checker(Lang lang) : lang_(lang) {}

  std::vector<Diagnostic> run(const Def& d);

private:
  // ------------------------------------------------------------ environment

  Lang lang_;
  std::vector<Diagnostic> errs_;
  std::vector<std::map<std::string, Info>> scopes_;
  std::vector<std::map<std::string, Poly>> defs_;
  std::map<int, Pos> consumed_;
  int next_root_ = 0;

  // Roots that may be consumed in the current kernel or loop body (those created in it
  // or its loop parameters); nullopt at top level, where everything may be consumed.
  std::vector<std::set<int>> local_roots_;
  void error(Pos p, std::string msg);
  int fresh_root();
  void push();
  void pop();
  const Info* find(const std::string& n) const;
  void bind(const Name& n, Info i);

  /// p with the integer definitions in scope substituted (the outermost of a name).
  Poly subst_defs(const Poly& p) const;

  /// Looks up an array name in use: unbound, not an array, or consumed are errors.
  const Info* use_array(const Name& n);
  void check_live(const Name& n, const Info& i);
  void consume(const Name& n, const Info& i, Pos at);

  // ------------------------------------------------------------ scalars

  std::optional<ScalarType> sexp(const SExp& e);
  std::optional<ScalarType> call(const SCall& c, Pos pos);
  std::optional<ScalarType> rule(const OpType& r, Pos pos);

  /// Checks that e is an i64 expression and returns its normal form (with `extra`
  /// names allowed as free integer variables, for existential sizes).
  std::optional<Poly> size(const SExp& e, const std::set<std::string>& extra, const char* what);
  std::optional<SymLmad> lmad(const LmadSyn& l, const std::set<std::string>& extra);

  // ------------------------------------------------------------ types

  /// Γ ⊢ τ: converts a written type; `extra` are existential names of its pattern.
  Info type_info(const Type& t, const std::set<std::string>& extra, bool need_ann = true);
  static bool same_shape(const Info& a, const Info& b);

  /// Substitutes pattern names by result names (T-RESULT's S) in a pattern type.
  Info apply(const Info& i, const std::map<std::string, Poly>& s,
             const std::map<std::string, std::string>& mems) const;

  /// T-RESULT: values `vals` (named by `names`) bound to the pattern `pats` typed `want`.
  void match_pattern(const std::vector<Binding>& pats, const std::vector<Info>& want,
                     const std::vector<Name>& names, const std::vector<const Info*>& vals,
                     Pos where, const std::string& what, bool with_memory);

  // ------------------------------------------------------------ bodies

  std::vector<const Info*> body(const Body& b);
  void stmt(const Stmt& s);

  /// The declared types of a pattern; existential names are those of its i64 scalars.
  std::vector<Info> pattern_types(const std::vector<Binding>& pats, bool existential);

  /// Binds a single-value pattern to `got`, checking it against the declared type.
  /// `view` says whether a FUNMEM layout must equal the computed one.
  void bind_one(const SLet& l, Pos at, std::optional<Info> got, bool view, const std::string& what);
  void record_def(const SLet& l, const std::string& n);
  std::optional<std::vector<SymEntry>> entries(const Info& src, const std::vector<Entry>& es,
                                               Pos at, std::vector<Poly>& dims_out,
                                               bool& scalar_out);

  Info array_info(ScalarType elem, std::vector<Poly> dims);
  void let(const SLet& l, Pos at);
  /// The let of one expression form.
  void let_exp(const SLet& l, Pos at, const EScalar& x);
  void let_exp(const SLet& l, Pos at, const EIndex& x);
  void let_exp(const SLet& l, Pos at, const ELmadSlice& x);
  void let_exp(const SLet& l, Pos at, const ETranspose& x);
  void let_exp(const SLet& l, Pos at, const EIf& x);
  void let_exp(const SLet& l, Pos at, const EKernel& x);
  void let_exp(const SLet& l, Pos at, const ELoop& x);
  void let_exp(const SLet& l, Pos at, const EUpdate& x);
  void let_exp(const SLet& l, Pos at, const EUpdateLmad& x);
  void let_exp(const SLet& l, Pos at, const EConcat& x);
  void let_exp(const SLet& l, Pos at, const EIota& x);
  void let_exp(const SLet& l, Pos at, const EReplicate& x);
  void let_exp(const SLet& l, Pos at, const ECopy& x);
  void let_exp(const SLet& l, Pos at, const EScratch&);
  void let_exp(const SLet& l, Pos at, const EAlloc& x);
  std::optional<Info> atom(const AtomArg& a);

  /// The new value of an update has the updated place's type and does not alias the
  /// updated array.
  void check_update_value(const Name& arr, const Info& src, const Info& val, const Info& want,
                          Pos at, const std::string& place);

  void bind_update(const SLet& l, Pos at, std::optional<Info> got);
  /// Binds an `if`'s or a loop's pattern: each array gets a fresh root plus the roots
  /// of the arrays from outside that it may be at run time (`aliases[k]`).
  void bind_pattern(const std::vector<Binding>& pats, const std::vector<Info>& types,
                    const std::vector<std::set<int>>& aliases);
  /// Consumes the initial values of the parameters whose blocks a loop may update, and
  /// returns the roots from outside the loop that each of its results may be (the
  /// initial values, and arrays from outside the body that the body returns, through the
  /// parameters).
  std::vector<std::set<int>> loop_aliases(const ELoop& x, const std::vector<const Info*>& inits,
                                          const std::vector<int>& param_roots,
                                          const std::vector<std::set<int>>& results, int start,
                                          Pos at);
  void loop(const SLet& l, const ELoop& x, Pos at);

  /// T-MEM-PROG: an array result is preceded by its memory block and is row-major.
  void check_prog_result(const Def& d, const std::vector<const Info*>& res, size_t k);
};

} // namespace funmem::tc
