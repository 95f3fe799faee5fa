// The generator's internals (generator.h): C integer types with value intervals, memory
// objects and their roles, and the generator itself, whose expressions are in
// generator_expr.cpp, loops in generator_loops.cpp and other statements in generator.cpp.
#pragma once

#include "frontend/campaign/generator.h"

#include <algorithm>
#include <random>
#include <sstream>

namespace funmem::frontend::gen_detail {

__extension__ typedef __int128 I; // NOLINT(modernize-use-using): __extension__ needs it

struct CType {
  const char* name;
  int bits;
  bool sign;
};
constexpr CType kBool{"bool", 1, false}, kSChar{"signed char", 8, true},
    kUChar{"unsigned char", 8, false}, kShort{"short", 16, true},
    kUShort{"unsigned short", 16, false}, kInt{"int", 32, true}, kUInt{"unsigned", 32, false},
    kLL{"long long", 64, true}, kULL{"unsigned long long", 64, false};
constexpr CType kAllTypes[] = {kBool, kSChar, kUChar, kShort, kUShort, kInt, kUInt, kLL, kULL};

inline bool same(CType a, CType b) {
  return a.bits == b.bits && a.sign == b.sign;
}
inline I tmin(CType t) {
  return t.sign ? -(I(1) << (t.bits - 1)) : I(0);
}
inline I tmax(CType t) {
  return t.sign ? (I(1) << (t.bits - 1)) - 1 : (I(1) << t.bits) - 1;
}
inline CType promote(CType t) {
  return t.bits < 32 ? kInt : t;
}
/// C's usual arithmetic conversions (int and long long are 32 and 64 bits).
inline CType common(CType a, CType b) {
  a = promote(a);
  b = promote(b);
  if (same(a, b)) return a;
  if (a.sign == b.sign) return a.bits >= b.bits ? a : b;
  CType u = a.sign ? b : a, s = a.sign ? a : b;
  return u.bits >= s.bits ? u : s;
}
inline CType unsigned_of(CType t) {
  return promote(t).bits == 64 ? kULL : kUInt;
}
inline I wrap(I x, CType t) {
  I m = I(1) << t.bits;
  I r = (x - tmin(t)) % m;
  if (r < 0) r += m;
  return r + tmin(t);
}

/// An integer expression: its text, C type and the interval of its values.
struct Val {
  std::string s;
  CType t = kInt;
  I lo = 0, hi = 0;
  bool uniform = true; // the same in every thread of a block (no thread index, no memory)
};

/// The interval of `v` converted to `t` (the text is unchanged).
inline Val conv(Val v, CType t) {
  if (t.bits == 1) {
    I lo = (v.lo > 0 || v.hi < 0) ? 1 : 0, hi = (v.lo == 0 && v.hi == 0) ? 0 : 1;
    v.lo = lo;
    v.hi = hi;
  } else if (v.lo < tmin(t) || v.hi > tmax(t)) {
    if (v.hi - v.lo + 1 >= (I(1) << t.bits)) {
      v.lo = tmin(t);
      v.hi = tmax(t);
    } else {
      I a = wrap(v.lo, t), b = wrap(v.hi, t);
      v.lo = a <= b ? a : tmin(t);
      v.hi = a <= b ? b : tmax(t);
    }
  }
  v.t = t;
  return v;
}

inline std::string lit(I x) {
  bool neg = x < 0;
  unsigned long long m = static_cast<unsigned long long>(neg ? -x : x);
  return (neg ? "-" : "") + std::to_string(m);
}
/// A literal of type int (or long long / unsigned when it does not fit an int).
inline Val constant(I x) {
  Val v;
  v.lo = v.hi = x;
  if (x >= tmin(kInt) && x <= tmax(kInt)) {
    v.s = x < 0 ? "(" + lit(x) + ")" : lit(x);
    v.t = kInt;
  } else if (x >= 0 && x <= tmax(kUInt)) {
    v.s = lit(x) + "u";
    v.t = kUInt;
  } else {
    v.s = "(" + lit(x) + "ll)";
    v.t = kLL;
  }
  return v;
}

enum class Role { Own, ReadOnly, Free, Atomic };

/// A memory object: a pointer parameter, a `__shared__`, `extern __shared__`,
/// file-scope `__shared__` or `__device__` array.
struct Obj {
  std::string name;
  CType el;
  int64_t count = 0;
  Role role = Role::Own;
  bool shared = false; // per block (own element: the block-local id)
  bool phased = false; // shared: written at own elements in even phases, read in odd ones
  std::string own;     // the own element's index text
  std::string kind;    // for structs/unions: "struct", "union"; empty for integers
};

struct Local {
  Val v;
  int loop_depth = 0;
  bool assignable = true;
};

constexpr int64_t kShared = 256;    // elements of a static shared array (>= threads per block)
constexpr int64_t kDynShared = 256; // elements of an extern shared array's indices

class Gen {
public:
  Gen(uint64_t seed, uint64_t index, bool simple)
      : rng_(seed * 0x9E3779B97F4A7C15ull + index * 0xD1B54A32D192ED03ull + 1),
        spell_(seed * 0xC2B2AE3D27D4EB4Full + index * 0x165667B19E3779F9ull + 7),
        hint_(seed * 0x94D049BB133111EBull + index * 0xBF58476D1CE4E5B9ull + 13),
        more_(seed * 0xD6E8FEB86659FD93ull + index * 0xA0761D6478BD642Full + 29),
        name_("g" + std::to_string(seed) + "_" + std::to_string(index)) {
    simple_ = simple;
  }

  GeneratedKernel run();

private:
  std::mt19937_64 rng_;
  // Spellings of values (an enumerator or a character literal for a constant, a min/max
  // that keeps its value): a stream of their own, so that they change no other choice.
  std::mt19937_64 spell_;
  // Forms that change no other choice of the kernel (pointers passed in a structure,
  // `#pragma unroll`): a third stream, so that adding them kept every kernel's choices.
  std::mt19937_64 hint_;
  // Forms added after the third stream's (lambdas converted in template instantiations,
  // stores in unevaluated operands): a fourth, for the same reason.
  std::mt19937_64 more_;
  std::string name_;
  std::set<std::string> cs_;
  std::ostringstream helpers_, file_scope_;
  std::vector<Obj> objs_;
  std::vector<size_t> aliased_; // two extern __shared__ arrays (one object in CUDA)
  std::vector<Local> locals_;
  int dims_ = 1, loop_depth_ = 0, phase_ = 0, fresh_ = 0, depth_ = 0;
  std::vector<std::string> params_;
  bool no_memory_ = false; // building an index: memory reads are rare
  // A plain kernel: none of the constructs the extractor refuses (lambdas, switch,
  // bit-fields, reference members, virtual calls), no memory read in an index, no
  // object written at any element: most such kernels get a verdict.
  bool plain_ = false;
  // The simple profile: plain, short, shallow kernels (most get a verdict).
  bool simple_ = false;
  bool in_loop_ = false, in_switch_ = false, tag_ = false, struct_ = false, union_ = false;

  uint64_t below(uint64_t n) { return n ? rng_() % n : 0; }
  bool chance(int pct) { return static_cast<int>(below(100)) < pct; }
  template <class T> const T& pick(const std::vector<T>& xs) { return xs[below(xs.size())]; }
  std::string fresh(const std::string& p) { return p + std::to_string(fresh_++) + "_" + name_; }
  CType any_type() { return kAllTypes[below(std::size(kAllTypes))]; }
  CType int_type() { return kAllTypes[1 + below(std::size(kAllTypes) - 1)]; }

  // Expressions.
  bool spell(int pct) { return static_cast<int>(spell_() % 100) < pct; }
  Val spelled(Val v);
  Val builtin();
  Val atom(bool uniform_only);
  Val expr(int depth, bool uniform_only = false);
  Val shift(int depth, bool uniform_only);
  Val bitwise(int depth, bool uniform_only);
  Val binary(const std::string& op, Val a, const Val& b);
  Val as_unsigned(const Val& a);
  Val cast(const Val& v, CType t, bool lossy = false);
  Val fit(Val v, int64_t count);
  Val index_any(const Obj& o);
  Val gid(bool local);
  Val chain(Val g, int steps);
  Val float_step(const Val& g);
  Val mul24_step(const Val& g);
  Val call_value(const Val& arg);
  Val read(const Obj& o);
  std::string value_for(CType el);
  void unevaluated_store(std::ostringstream& o, const std::string& pad, const Obj& ob);
  // The kernel.
  void parameters(std::ostringstream& sig);
  void memory(std::ostringstream& prologue);
  void segments(std::ostringstream& body);
  // Statements.
  void stmts(std::ostringstream& o, int n, int ind);
  void stmt(std::ostringstream& o, int ind);
  void store(std::ostringstream& o, const std::string& pad);
  void plain_store(std::ostringstream& o, const std::string& pad, const Obj& ob,
                   const std::string& at);
  void written(std::ostringstream& o, const std::string& pad, const Obj& ob, const std::string& idx,
               const std::string& at);
  void loop(std::ostringstream& o, int ind);
  /// Another `for` header (counter `c` of type ct, its values' interval cv), or none
  /// (`taken`, or by chance); returns a statement that must open the body.
  std::string odd_loop(CType ct, const std::string& c, const std::string& zero, std::string& header,
                       Val& cv, bool taken, std::string& reached);
  /// The header of odd_loop, always: sets `reached` to a value the counter takes.
  std::string odd_header(CType ct, const std::string& c, const std::string& zero,
                         std::string& header, Val& cv, std::string& reached);
  /// Perhaps a loop of odd_header's with a counter-guarded write, after the last segment.
  void tail_loop(std::ostringstream& o);
  /// A write (`always`, or perhaps) that happens only where counter `c` equals `reached`.
  void counter_guarded(std::ostringstream& o, const std::string& pad, const std::string& c,
                       const std::string& reached, bool always = false);
  void phase_body(std::ostringstream& o, int n, int ind);
  std::string cond(bool uniform_only);
  void declare(std::ostringstream& o, const std::string& pad, const Val& v, bool assignable = true);
};

} // namespace funmem::frontend::gen_detail
