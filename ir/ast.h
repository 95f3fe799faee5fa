// The abstract syntax of FUN and FUNMEM (thesis figs. 4.1 and 4.5, extended as in
// docs/syntax.md with loops, in-place updates, concat, LMAD slices and element
// types). One tree serves both languages: FUNMEM array types carry `@mem -> LMAD`.
// Every node carries its source position; positions never take part in equality,
// so a printed and re-parsed program compares equal to the original.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace funmem {

/// A source position, 1-based. Positions are ignored by ==.
struct Pos {
  int line = 0;
  int col = 0;
  friend bool operator==(const Pos&, const Pos&) { return true; }
};

/// A shared immutable box with deep equality, for recursive nodes.
template <class T> class Box {
public:
  Box() = default;
  Box(T v) : p_(std::make_shared<const T>(std::move(v))) {} // NOLINT
  const T& operator*() const { return *p_; }
  const T* operator->() const { return p_.get(); }
  explicit operator bool() const { return p_ != nullptr; }
  friend bool operator==(const Box& a, const Box& b) {
    if (a.p_ == b.p_) return true;
    if (!a.p_ || !b.p_) return false;
    return *a.p_ == *b.p_;
  }

private:
  std::shared_ptr<const T> p_;
};

/// Where the interpreters found a name's binding the last time they looked it up: an
/// index into their environment stack, checked before use (names are never shadowed, so
/// a slot holding a binding of the same spelling is the binding). Not part of the
/// syntax: ignored by ==, reset by copies. Relaxed atomic: a tree may be run by several
/// threads at once.
class SlotHint {
public:
  SlotHint() = default;
  SlotHint(const SlotHint&) {}
  SlotHint& operator=(const SlotHint&) {
    set(-1);
    return *this;
  }
  int32_t get() const { return slot_.load(std::memory_order_relaxed); }
  void set(int32_t s) const { slot_.store(s, std::memory_order_relaxed); }
  friend bool operator==(const SlotHint&, const SlotHint&) { return true; }

private:
  mutable std::atomic<int32_t> slot_{-1};
};

/// A name occurrence with its position; compared by spelling only.
struct Name {
  std::string s;
  Pos pos;
  SlotHint hint = {};
  friend bool operator==(const Name& a, const Name& b) { return a.s == b.s; }
};

enum class ScalarType { I64, I32, F32, F64, Bool };
const char* scalar_type_name(ScalarType t);
bool is_integer(ScalarType t);
bool is_float(ScalarType t);

// ---------------------------------------------------------------- scalar expressions

enum class BinOp { Or, And, Eq, Ne, Lt, Le, Gt, Ge, Add, Sub, Mul, Div, Mod };
enum class UnOp { Neg, Not };
/// Size and Address appear only in IMP (funmem-to-imp writes them; no parser reads them): a
/// size evaluated over the integers, an address modulo 2^64 (interp/scalar.h, exact_int).
enum class Fn { Min, Max, Abs, Select, ToI64, ToI32, ToF32, ToF64, Size, Address };
const char* binop_text(BinOp op);
const char* fn_name(Fn f);
int binop_prec(BinOp op); // 1 (||) .. 5 (* / %)

/// A literal: integers keep their value in `i`, floats in `f` (an f32 literal holds
/// the float value widened to double), booleans in `i` (0 or 1).
struct Lit {
  ScalarType type = ScalarType::I64;
  int64_t i = 0;
  double f = 0;
  friend bool operator==(const Lit&, const Lit&) = default;
};

struct SExp;
using SExpP = Box<SExp>;

struct SVar {
  std::string name;
  SlotHint hint = {};
  friend bool operator==(const SVar&, const SVar&) = default;
};
struct SUnary {
  UnOp op;
  SExpP a;
  friend bool operator==(const SUnary&, const SUnary&) = default;
};
struct SBinary {
  BinOp op;
  SExpP a, b;
  friend bool operator==(const SBinary&, const SBinary&) = default;
};
struct SCall {
  Fn fn;
  std::vector<SExpP> args;
  friend bool operator==(const SCall&, const SCall&) = default;
};

struct SExp {
  std::variant<Lit, SVar, SUnary, SBinary, SCall> node;
  Pos pos;
  friend bool operator==(const SExp&, const SExp&) = default;
};

SExpP mk_lit(Lit l, Pos p = {});
SExpP mk_int(int64_t v, Pos p = {});
SExpP mk_var(std::string n, Pos p = {});
SExpP mk_bin(BinOp op, SExpP a, SExpP b, Pos p = {});

// ---------------------------------------------------------------- types and LMADs

/// LMAD as written: `off + {(n1 : s1), ...}`, `R(d, ...)` or `C(d, ...)`.
struct LmadSyn {
  enum class Form { Explicit, Row, Col };
  Form form = Form::Explicit;
  SExpP offset;                              // Explicit only
  std::vector<std::pair<SExpP, SExpP>> dims; // Explicit: (count, stride)
  std::vector<SExpP> args;                   // Row / Col: the shape
  Pos pos;
  friend bool operator==(const LmadSyn&, const LmadSyn&) = default;
};

struct MemAnn {
  Name mem;
  LmadSyn lmad;
  friend bool operator==(const MemAnn&, const MemAnn&) = default;
};

struct Type {
  enum class Kind { Scalar, Mem, Array };
  Kind kind = Kind::Scalar;
  ScalarType elem = ScalarType::I64; // scalar type, or array element type
  std::vector<SExpP> dims;           // Array only, outermost first
  std::optional<MemAnn> ann;         // FUNMEM arrays
  Pos pos;
  friend bool operator==(const Type&, const Type&) = default;
};

/// The type `mem`.
inline Type mem_type() {
  Type t;
  t.kind = Type::Kind::Mem;
  return t;
}

// ---------------------------------------------------------------- expressions

/// One entry of an index: `e` (fixes the dimension) or `off : count [: stride]`.
struct Entry {
  SExpP start;
  SExpP count;  // empty box for an index
  SExpP stride; // empty box when absent
  bool is_index() const { return !count; }
  friend bool operator==(const Entry&, const Entry&) = default;
};

/// ATOM ::= NAME | literal
struct AtomArg {
  std::variant<Name, Lit> v;
  Pos pos;
  friend bool operator==(const AtomArg&, const AtomArg&) = default;
};

struct Binding {
  Name name;
  std::optional<Type> type; // absent only for scalars with inferred type
  friend bool operator==(const Binding&, const Binding&) = default;
};

struct Stmt;
struct Body {
  std::vector<Stmt> stmts;
  std::vector<Name> results;
  Pos pos; // position of `in`
  friend bool operator==(const Body&, const Body&) = default;
};

struct EScalar {
  SExpP e;
  friend bool operator==(const EScalar&, const EScalar&) = default;
};
struct EIndex {
  Name arr;
  std::vector<Entry> entries;
  friend bool operator==(const EIndex&, const EIndex&) = default;
};
struct ELmadSlice {
  Name arr;
  LmadSyn lmad;
  friend bool operator==(const ELmadSlice&, const ELmadSlice&) = default;
};
struct ETranspose {
  Name arr;
  friend bool operator==(const ETranspose&, const ETranspose&) = default;
};
struct EIf {
  SExpP cond;
  Body then_body, else_body;
  friend bool operator==(const EIf&, const EIf&) = default;
};
struct EKernel {
  Name iter;
  SExpP bound;
  Body body;
  friend bool operator==(const EKernel&, const EKernel&) = default;
};
struct ELoop {
  std::vector<Binding> params;
  std::vector<Name> inits;
  Name iter;
  SExpP bound;
  Body body;
  friend bool operator==(const ELoop&, const ELoop&) = default;
};
struct EUpdate {
  Name arr;
  std::vector<Entry> entries;
  AtomArg value;
  friend bool operator==(const EUpdate&, const EUpdate&) = default;
};
struct EUpdateLmad {
  Name arr;
  LmadSyn lmad;
  Name value;
  friend bool operator==(const EUpdateLmad&, const EUpdateLmad&) = default;
};
struct EConcat {
  Name a, b;
  friend bool operator==(const EConcat&, const EConcat&) = default;
};
struct EIota {
  SExpP n;
  friend bool operator==(const EIota&, const EIota&) = default;
};
struct EReplicate {
  SExpP n;
  AtomArg value;
  friend bool operator==(const EReplicate&, const EReplicate&) = default;
};
struct ECopy {
  Name arr;
  friend bool operator==(const ECopy&, const ECopy&) = default;
};
struct EScratch {
  friend bool operator==(const EScratch&, const EScratch&) = default;
};
struct EAlloc {
  SExpP size;
  friend bool operator==(const EAlloc&, const EAlloc&) = default;
};

struct Exp {
  std::variant<EScalar, EIndex, ELmadSlice, ETranspose, EIf, EKernel, ELoop, EUpdate, EUpdateLmad,
               EConcat, EIota, EReplicate, ECopy, EScratch, EAlloc>
      node;
  Pos pos;
  friend bool operator==(const Exp&, const Exp&) = default;
};

struct SLet {
  std::vector<Binding> pats;
  Exp exp;
  friend bool operator==(const SLet&, const SLet&) = default;
};
/// `assume COND` (kind "assume"), or `assert COND KIND`: a run-time check that ends the
/// run with a KIND error when COND is false (short-circuiting moves an update's bounds
/// check to the source's creation this way).
struct SAssume {
  SExpP cond;
  std::string kind = "assume";
  friend bool operator==(const SAssume&, const SAssume&) = default;
};

struct Stmt {
  std::variant<SLet, SAssume> node;
  Pos pos;
  friend bool operator==(const Stmt&, const Stmt&) = default;
};

// ---------------------------------------------------------------- programs

struct Def {
  Name name;
  std::vector<Binding> params; // every parameter has a type
  std::vector<Type> rets;
  Body body;
  Pos pos;
  friend bool operator==(const Def&, const Def&) = default;
};

/// A value of an `-- input:` data set.
struct InputValue {
  enum class Kind { Scalar, Array, Iota, Zeros, Random };
  Kind kind = Kind::Scalar;
  Lit scalar;
  std::vector<InputValue> elems;
  friend bool operator==(const InputValue&, const InputValue&) = default;
};

struct InputSet {
  std::vector<std::pair<Name, InputValue>> values;
  Pos pos;
  friend bool operator==(const InputSet&, const InputSet&) = default;
};

/// `-- expect: WORD [ARG]`: valid | invalid | race | error KIND | short-circuit N
struct Expect {
  std::string word;
  std::string arg;
  Pos pos;
  friend bool operator==(const Expect&, const Expect&) = default;
};

enum class Lang { Fun, FunMem };

struct Program {
  Lang lang = Lang::Fun;
  Def def;
  std::vector<InputSet> inputs;
  std::vector<Expect> expects;
  friend bool operator==(const Program&, const Program&) = default;
};

} // namespace funmem
