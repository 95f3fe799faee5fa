// The generator's expressions (generator_impl.h): built-in values, arithmetic with C's
// conversions and value intervals, casts, indices kept inside their objects, the chain
// that makes a thread's own element, and helpers (device functions, templates, lambdas).
#include "frontend/campaign/generator_impl.h"

namespace funmem::frontend::gen_detail {

Val Gen::builtin() {
  struct B {
    const char* s;
    int d;
    I lo, hi;
  };
  static const B bs[] = {
      {"threadIdx.x", 0, 0, 255}, {"threadIdx.y", 1, 0, 3}, {"threadIdx.z", 2, 0, 1},
      {"blockIdx.x", 0, 0, 3},    {"blockIdx.y", 1, 0, 1},  {"blockIdx.z", 2, 0, 1},
      {"blockDim.x", 0, 1, 256},  {"blockDim.y", 1, 1, 4},  {"blockDim.z", 2, 1, 2},
      {"gridDim.x", 0, 1, 4},     {"gridDim.y", 1, 1, 2},   {"gridDim.z", 2, 1, 2}};
  const B* b = &bs[below(std::size(bs))];
  while (b->d >= dims_ && !chance(5))
    b = &bs[below(std::size(bs))];
  Val v;
  v.s = b->s;
  v.t = kUInt;
  v.lo = b->lo;
  v.hi = b->hi;
  v.uniform = std::string(b->s).rfind("threadIdx", 0) != 0;
  cs_.insert(v.uniform ? "block and grid indices and sizes" : "thread indices");
  if (b->d == 1) cs_.insert("2-D thread indices");
  if (b->d == 2) cs_.insert("3-D thread indices");
  return v;
}

Val Gen::atom(bool uniform_only) {
  for (;;) {
    switch (below(uniform_only || (no_memory_ && (plain_ || chance(85))) ? 4 : 6)) {
    case 0: {
      static const I cs[] = {0,   1,  2,  3,    5,     7,     31,         64,          255,
                             256, -1, -3, 1000, 65535, 65536, 2147483647, 4294967295ll};
      return spelled(constant(cs[below(std::size(cs))]));
    }
    case 1: {
      Val v = builtin();
      if (uniform_only && !v.uniform) continue;
      return spelled(v);
    }
    case 2: {
      if (params_.empty()) continue;
      // s0..s2 have the types recorded in their Val (declared at the kernel's top).
      const Local& l = locals_[below(params_.size())];
      return spelled(l.v);
    }
    case 3: {
      std::vector<const Local*> ok;
      for (const Local& l : locals_)
        if (!uniform_only || l.v.uniform) ok.push_back(&l);
      if (ok.empty()) continue;
      return spelled(pick(ok)->v);
    }
    default: {
      std::vector<const Obj*> ok;
      for (const Obj& ob : objs_)
        if (ob.kind.empty() && ob.role != Role::Atomic) ok.push_back(&ob);
      if (ok.empty()) continue;
      return read(*pick(ok));
    }
    }
  }
}

/// `v` spelled otherwise with its value and type: a constant as an enumerator (plain,
/// fixed-type or scoped) or a character literal; a value of type int, unsigned or a
/// 64-bit type as a CUDA min/max that keeps it (`min(u, -1)` is u: min(unsigned, int)
/// compares unsigned).
Val Gen::spelled(Val v) {
  const bool is_int = same(v.t, kInt);
  if (v.lo == v.hi && is_int && spell(20)) {
    const std::string e = fresh("E"), k = fresh("K");
    switch (spell_() % 4) {
    case 0: // a plain enum: its enumerators promote to int (they all fit one)
      file_scope_ << "enum " << e << " { " << k << " = " << lit(v.lo) << " };\n";
      v.s = k;
      break;
    case 1: // a fixed underlying type, converted back
      file_scope_ << "enum " << e << " : long long { " << k << " = " << lit(v.lo) << " };\n";
      v.s = "(int)" + k;
      break;
    case 2: // scoped
      file_scope_ << "enum class " << e << " : int { " << k << " = " << lit(v.lo) << " };\n";
      v.s = "static_cast<int>(" + e + "::" + k + ")";
      break;
    default: { // a character literal (char is signed: '\x80' to '\xff' are negative)
      if (v.lo < -128 || v.hi > 127) return v;
      static const char* hex = "0123456789abcdef";
      const int c = static_cast<int>(v.lo) & 255;
      v.s = std::string("'\\x") + hex[c >> 4] + hex[c & 15] + "'";
      cs_.insert("character literals");
      return v;
    }
    }
    cs_.insert("enumerators");
    return v;
  }
  if (v.t.bits < 32 || !spell(8)) return v;
  const bool wide = v.t.bits == 64;
  if (v.t.sign) { // int with int (or long long with long long): the bounds keep it
    // (a bound that is no literal of the type, such as -2^31, is not spelled)
    const I edge = wide ? (I(1) << 62) : I(2147483647);
    if (v.lo <= -edge || v.hi >= edge) return v;
    v.s = spell(50) ? "max(" + v.s + ", " + lit(v.lo) + (wide ? "ll)" : ")")
                    : "min(" + v.s + ", " + lit(v.hi) + (wide ? "ll)" : ")");
  } else { // unsigned with a signed argument: compared unsigned
    v.s = spell(50) ? "min(" + v.s + (wide ? ", -1ll)" : ", -1)")
                    : "max(" + std::string(wide ? "0ll, " : "0, ") + v.s + ")";
    cs_.insert("min and max of mixed signedness");
  }
  return v;
}

Val Gen::as_unsigned(const Val& a) {
  CType u = unsigned_of(a.t);
  Val r = conv(a, u);
  r.s = "(" + std::string(u.name) + ")(" + a.s + ")";
  cs_.insert("explicit casts");
  return r;
}

Val Gen::cast(const Val& v, CType t, bool lossy) {
  // A plain kernel wraps only where asked to (the own element's chain: the lossy index).
  if (plain_ && !lossy && (v.lo < tmin(t) || v.hi > tmax(t) || t.bits == 1)) t = promote(v.t);
  Val r = conv(v, t);
  if (chance(50))
    r.s = "(" + std::string(t.name) + ")(" + v.s + ")";
  else
    r.s = "static_cast<" + std::string(t.name) + ">(" + v.s + ")";
  cs_.insert("explicit casts");
  if (r.lo != v.lo || r.hi != v.hi) cs_.insert("narrowing conversions that wrap");
  if (t.bits == 1) cs_.insert("bool values");
  return r;
}

Val Gen::binary(const std::string& op, Val a, const Val& b) {
  CType c = common(a.t, b.t);
  if (a.t.sign != b.t.sign && promote(a.t).bits == promote(b.t).bits && promote(a.t).bits >= 32)
    cs_.insert("mixed signed and unsigned operands");
  Val x = conv(a, c), y = conv(b, c), r;
  r.uniform = a.uniform && b.uniform;
  r.t = c;
  if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=") {
    r.t = kBool;
    r.lo = 0;
    r.hi = 1;
    r.s = "(" + a.s + " " + op + " " + b.s + ")";
    cs_.insert("comparisons");
    return r;
  }
  I cands[4];
  if (op == "+") {
    r.lo = x.lo + y.lo;
    r.hi = x.hi + y.hi;
  } else if (op == "-") {
    r.lo = x.lo - y.hi;
    r.hi = x.hi - y.lo;
  } else if (op == "*") {
    // Two 64-bit bounds may multiply beyond 128 bits: then the product certainly leaves
    // the type (made unsigned below if signed, the whole range if unsigned).
    bool big = __builtin_mul_overflow(x.lo, y.lo, &cands[0]) ||
               __builtin_mul_overflow(x.lo, y.hi, &cands[1]) ||
               __builtin_mul_overflow(x.hi, y.lo, &cands[2]) ||
               __builtin_mul_overflow(x.hi, y.hi, &cands[3]);
    r.lo = big ? tmin(c) - 1 : *std::min_element(cands, cands + 4);
    r.hi = big ? tmax(c) + 1 : *std::max_element(cands, cands + 4);
  }
  if (c.sign && (r.lo < tmin(c) || r.hi > tmax(c))) {
    // Signed overflow possible: C would not define it; the operation is made unsigned.
    Val ua = as_unsigned(a);
    if (promote(b.t).bits > promote(ua.t).bits) ua = cast(a, unsigned_of(b.t));
    Val ub = promote(b.t).bits < promote(ua.t).bits ? cast(b, ua.t) : as_unsigned(b);
    return binary(op, ua, ub);
  }
  if (!c.sign && (r.lo < 0 || r.hi > tmax(c))) {
    if (plain_) return a; // a plain kernel does not wrap
    cs_.insert("unsigned wrap-around");
  }
  r = conv(r, c);
  r.s = "(" + a.s + " " + op + " " + b.s + ")";
  cs_.insert("arithmetic + - *");
  return r;
}

/// `v` made an index in [0, count): unchanged when it is one already.
Val Gen::fit(Val v, int64_t count) {
  if (v.lo >= 0 && v.hi < count) return v;
  Val r;
  r.uniform = v.uniform;
  r.t = kUInt;
  r.lo = 0;
  r.hi = count - 1;
  if (plain_ && v.lo >= 0) {
    // Non-negative: a remainder in the value's own type (nothing wraps).
    r.s = "(" + v.s + " % " + std::to_string(count) + ")";
    r.t = promote(v.t);
    cs_.insert("division and remainder");
    return r;
  }
  if ((count & (count - 1)) == 0 && (plain_ || chance(50))) {
    r.s = "(" + v.s + " & " + std::to_string(count - 1) + ")";
    r.t = common(v.t, kInt);
    cs_.insert("bitwise operators");
    if (v.t.bits == 64) {
      r.s = "(int)" + r.s;
      r.t = kInt;
    }
  } else {
    r.s = "((" + std::string(unsigned_of(v.t).name) + ")(" + v.s + ") % " + std::to_string(count) +
          "u)";
    r.t = unsigned_of(v.t);
    cs_.insert("division and remainder");
  }
  return r;
}

/// A shift: by a constant, or by an amount masked to 0..7.
Val Gen::shift(int depth, bool uniform_only) {
  // Shifts: by a constant, or by an amount masked to 0..7.
  Val a = expr(depth - 1, uniform_only);
  CType c = promote(a.t);
  Val x = conv(a, c);
  bool left = chance(50);
  int k = static_cast<int>(below(left ? 9 : static_cast<uint64_t>(c.bits)));
  Val r = x;
  r.uniform = a.uniform;
  std::string amount = std::to_string(k);
  if (left) {
    if (plain_ && (x.lo < 0 || (x.hi << k) > tmax(c))) return a;
    if (x.lo < 0 || (c.sign && (x.hi << k) > tmax(c))) x = conv(as_unsigned(a), unsigned_of(c));
    c = x.t;
    r.t = c;
    r.lo = x.lo << k;
    r.hi = x.hi << k;
    if (!c.sign && r.hi > tmax(c)) cs_.insert("unsigned wrap-around");
    r = conv(r, c);
    r.s = "(" + x.s + " << " + amount + ")";
    if (x.s == a.s) r.s = "(" + a.s + " << " + amount + ")";
  } else {
    if (plain_ && x.lo < 0) return a;
    r.lo = x.lo >> k;
    r.hi = x.hi >> k;
    r.s = "(" + a.s + " >> " + amount + ")";
  }
  r.t = c;
  cs_.insert("shifts");
  return r;
}

/// A bitwise operation with a mask, or ~.
Val Gen::bitwise(int depth, bool uniform_only) {
  // Bitwise with a mask, or ~.
  Val a = expr(depth - 1, uniform_only);
  CType c = promote(a.t);
  Val x = conv(a, c), r = x;
  cs_.insert("bitwise operators");
  if (chance(20)) {
    r.lo = c.sign ? -x.hi - 1 : tmax(c) - x.hi;
    r.hi = c.sign ? -x.lo - 1 : tmax(c) - x.lo;
    r.s = "(~" + a.s + ")";
    return r;
  }
  I m = static_cast<I>(below(256));
  const char* op = below(3) == 0 ? " & " : below(2) ? " | " : " ^ ";
  r.s = "(" + a.s + op + lit(m) + ")";
  if (std::string(op) == " & ") {
    r.lo = 0;
    r.hi = m;
  } else if (x.lo >= 0) {
    I top = 1;
    while (top <= std::max(x.hi, m))
      top <<= 1;
    r.lo = 0;
    r.hi = top - 1;
  } else {
    r.lo = tmin(c);
    r.hi = tmax(c);
  }
  return r;
}

Val Gen::expr(int depth, bool uniform_only) {
  if (simple_) depth = std::min(depth, 1);
  if (depth <= 0 || chance(25)) return atom(uniform_only);
  switch (below(10)) {
  case 0:
  case 1:
  case 2: {
    static const char* ops[] = {"+", "-", "*", "<", ">=", "==", "!="};
    return binary(ops[below(std::size(ops))], expr(depth - 1, uniform_only),
                  expr(depth - 1, uniform_only));
  }
  case 3: {
    Val a = expr(depth - 1, uniform_only);
    I d = 1 + static_cast<I>(below(17));
    CType c = promote(a.t);
    Val r = a;
    r.t = c;
    Val x = conv(a, c);
    bool rem = chance(50);
    if (rem) {
      r.lo = x.lo >= 0 ? I(0) : std::max(x.lo, -(d - 1));
      r.hi = x.hi <= 0 ? I(0) : std::min(x.hi, d - 1);
    } else {
      r.lo = x.lo / d;
      r.hi = x.hi / d;
    }
    r.s = "(" + a.s + (rem ? " % " : " / ") + lit(d) + (c.sign ? "" : "u") + ")";
    cs_.insert("division and remainder");
    return r;
  }
  case 4:
    return shift(depth, uniform_only);
  case 5:
    return bitwise(depth, uniform_only);
  case 6:
    return cast(expr(depth - 1, uniform_only), any_type());
  case 7: {
    Val c = expr(depth - 1, uniform_only), a = expr(depth - 1, uniform_only),
        b = expr(depth - 1, uniform_only);
    CType t = common(a.t, b.t);
    Val x = conv(a, t), y = conv(b, t), r;
    r.t = t;
    r.lo = std::min(x.lo, y.lo);
    r.hi = std::max(x.hi, y.hi);
    r.uniform = c.uniform && a.uniform && b.uniform;
    r.s = "(" + c.s + " ? " + a.s + " : " + b.s + ")";
    cs_.insert("conditional expressions");
    return r;
  }
  case 8: {
    Val a = expr(depth - 1, uniform_only);
    CType c = promote(a.t);
    Val x = conv(a, c), r = x;
    r.lo = -x.hi;
    r.hi = -x.lo;
    if (c.sign && (r.lo < tmin(c) || r.hi > tmax(c))) return a;
    if (plain_ && (r.lo < tmin(c) || r.hi > tmax(c))) return a;
    r = conv(r, c);
    r.s = "(-" + a.s + ")";
    if (!c.sign) cs_.insert("unsigned wrap-around");
    return r;
  }
  default:
    if (uniform_only || depth_ > 1) return expr(depth - 1, uniform_only);
    return call_value(expr(depth - 1, uniform_only));
  }
}

/// A helper computing from `arg`: a device function, a template or a lambda.
Val Gen::call_value(const Val& arg) {
  ++depth_;
  CType pt = int_type(), rt = int_type();
  Val param = conv(arg, pt);
  std::string pn = "x";
  param.s = pn;
  // The body: arithmetic on the parameter only.
  Val body = binary(chance(50) ? "+" : "*", param, constant(static_cast<I>(below(4))));
  Val ret = conv(body, rt);
  ret.uniform = arg.uniform;
  std::string f = fresh("h");
  if (hint_() % 100 < 5) {
    // A function declared without a body (compiled elsewhere): any value of its type.
    helpers_ << "__device__ " << rt.name << " " << f << "(" << pt.name << ");\n";
    ret.s = f + "(" + arg.s + ")";
    ret.lo = tmin(rt);
    ret.hi = tmax(rt);
    ret.uniform = false;
    cs_.insert("functions without a body");
    --depth_;
    return ret;
  }
  switch (!plain_ && chance(10) ? 2 : below(2)) {
  case 0:
    helpers_ << "__device__ " << rt.name << " " << f << "(" << pt.name << " " << pn << ") { return "
             << body.s << "; }\n";
    ret.s = f + "(" + arg.s + ")";
    cs_.insert("device functions returning values");
    break;
  case 1:
    helpers_ << "template <typename T> __device__ " << rt.name << " " << f << "(T " << pn
             << ") { return " << body.s << "; }\n";
    ret.s = f + "<" + pt.name + ">(" + arg.s + ")";
    cs_.insert("templates");
    break;
  default:
    ret.s = "([](" + std::string(pt.name) + " " + pn + ") -> " + rt.name + " { return " + body.s +
            "; })(" + arg.s + ")";
    cs_.insert("lambdas");
    break;
  }
  --depth_;
  return ret;
}

/// The thread's global (or block-local) linear id in the kernel's dimensions.
Val Gen::gid(bool local) {
  Val v;
  v.t = kUInt;
  v.uniform = false;
  v.lo = 0;
  // Linearised in int, as CUDA code does (an unsigned product of block indices and
  // sizes may wrap for large grids; an int one is an assumed signed overflow).
  std::string l = dims_ == 1   ? (plain_ ? "(int)threadIdx.x" : "threadIdx.x")
                  : dims_ == 2 ? "((int)threadIdx.y * (int)blockDim.x + (int)threadIdx.x)"
                               : "(((int)threadIdx.z * (int)blockDim.y + (int)threadIdx.y) * "
                                 "(int)blockDim.x + (int)threadIdx.x)";
  I per_block = 256; // the most threads a launch of generator_launches() has in a block
  if (plain_ || dims_ > 1) v.t = kInt;
  if (local) {
    v.s = l;
    v.hi = per_block - 1;
    return v;
  }
  std::string b = dims_ == 1 ? "blockIdx.x"
                  : dims_ == 2
                      ? "((int)blockIdx.y * (int)gridDim.x + (int)blockIdx.x)"
                      : "(((int)blockIdx.z * (int)gridDim.y + (int)blockIdx.y) * (int)gridDim.x + "
                        "(int)blockIdx.x)";
  std::string bs = dims_ == 1   ? "blockDim.x"
                   : dims_ == 2 ? "((int)blockDim.x * (int)blockDim.y)"
                                : "((int)blockDim.x * (int)blockDim.y * (int)blockDim.z)";
  v.s = dims_ == 1 && plain_ ? "(int)(blockIdx.x * blockDim.x + threadIdx.x)"
                             : "(" + b + " * " + bs + " + " + l + ")";
  v.hi = (dims_ == 1 ? 4 : dims_ == 2 ? 8 : 16) * per_block - 1;
  return v;
}

/// `g` through `steps` transformations (casts, locals of other types, helpers,
/// arithmetic): injective or not, as it happens.
Val Gen::chain(Val g, int steps) {
  for (int i = 0; i < steps; ++i) {
    switch (below(7)) {
    case 0:
      g = cast(g, int_type(), chance(30));
      break;
    case 1:
      g = binary("*", g, constant(1 + static_cast<I>(below(4))));
      break;
    case 2:
      g = binary(chance(70) ? "+" : "-", g, constant(static_cast<I>(below(300))));
      break;
    case 3:
      g = call_value(g);
      break;
    case 4: {
      Val r = g;
      I m = static_cast<I>(below(2) ? 1 : 3);
      CType c = promote(g.t);
      r = conv(g, c);
      if (r.lo >= 0) {
        I top = 1;
        while (top <= std::max(r.hi, m))
          top <<= 1;
        r.hi = top - 1;
        r.lo = 0;
      } else {
        r.lo = tmin(c);
        r.hi = tmax(c);
      }
      r.s = "(" + g.s + " ^ " + lit(m) + ")";
      cs_.insert("bitwise operators");
      g = r;
      break;
    }
    case 5:
      if (chance(30)) {
        Val r = conv(g, promote(g.t));
        r.lo /= 2;
        r.hi /= 2;
        r.s = "(" + g.s + " / 2)";
        cs_.insert("division and remainder");
        g = r;
      }
      break;
    default: {
      // Through a bool or a char: the classic lossy index.
      if (chance(40)) g = cast(g, chance(30) ? kBool : kUChar, true);
      break;
    }
    }
    // Drawn from the fourth stream: the other draws, and so the kernels without it, stay.
    const uint64_t extra = more_() % 100;
    if (extra < 3) g = float_step(g);
    if (extra >= 3 && extra < 5) g = mul24_step(g);
  }
  return g;
}

/// `g` through float arithmetic and back by the device's conversions, which saturate
/// and take NaN to 0 (`__float2int_*`), or through `fminf` / `fmaxf` with a NaN, which
/// give the other argument: injective or not, as it happens. `(float)g` must be exact.
Val Gen::float_step(const Val& g) {
  const I exact = I(1) << 22; // 3 * g is exact too
  if (g.lo <= -exact || g.hi >= exact) return g;
  static const char* const conversions[] = {"__float2int_rn", "__float2int_rz", "__float2int_rd",
                                            "__float2int_ru"};
  const std::string to_int = conversions[more_() % 4], f = "(float)(" + g.s + ")";
  Val r = g;
  r.t = kInt;
  switch (more_() % 5) {
  case 0: // halved and rounded: neighbours meet (rn rounds halves to even)
    r.s = to_int + "(" + f + " * 0.5f)";
    r.lo = g.lo / 2 - 1;
    r.hi = g.hi / 2 + 1;
    break;
  case 1: // tripled: exact
    r.s = to_int + "(" + f + " * 3.0f)";
    r.lo = g.lo * 3;
    r.hi = g.hi * 3;
    break;
  case 2: // fminf / fmaxf of a NaN and the value: the value
    r.s = to_int + "(" + (more_() % 2 ? "fminf(" : "fmaxf(") + "sqrtf(-1.0f), " + f + "))";
    break;
  case 3: // NaN converted: 0 in every thread
    r.s = to_int + "(sqrtf(-1.0f) * " + f + ")";
    r.lo = r.hi = 0;
    break;
  default: // beyond int: saturated (every positive value meets the others)
    r.s = to_int + "(" + f + " * 1e10f)";
    r.lo = g.lo < 0 ? tmin(kInt) : g.lo == 0 ? 0 : tmax(kInt);
    r.hi = g.hi > 0 ? tmax(kInt) : g.hi == 0 ? 0 : tmin(kInt);
    break;
  }
  cs_.insert("the device's float conversions");
  return r;
}

/// `g` through `__mul24` / `__umul24` by a constant: the low 32 bits of the product of the
/// operands' low 24 bits. `g` fits in 24 bits; the factor's low 24 bits may be 0 (2^24:
/// every thread meets), the product may wrap (2^22: injective below 1024 only) or stay.
Val Gen::mul24_step(const Val& g) {
  const bool u = more_() % 2 == 1;
  const I lim = u ? I(1) << 24 : I(1) << 23;
  if (g.lo < (u ? 0 : -lim) || g.hi >= lim) return g;
  static const I factors[] = {1, 3, I(1) << 12, I(1) << 22, I(1) << 24};
  const I k = factors[more_() % 5];
  Val r = g;
  r.t = u ? kUInt : kInt;
  r.s = std::string(u ? "__umul24(" : "__mul24(") + g.s + ", " + lit(k) + ")";
  if (k >= lim) {
    r.lo = r.hi = 0;
  } else if (g.lo * k >= tmin(r.t) && g.hi * k <= tmax(r.t)) {
    r.lo = g.lo * k;
    r.hi = g.hi * k;
  } else {
    r.lo = tmin(r.t);
    r.hi = tmax(r.t);
  }
  cs_.insert("24-bit multiplications");
  return r;
}

/// A read of `o` at an element this thread may read in the current phase.
Val Gen::read(const Obj& o) {
  Val idx = o.role == Role::Own && (!o.phased || phase_ % 2 == 0) ? Val{o.own, kInt, 0, 0, false}
                                                                  : index_any(o);
  Val v;
  v.t = o.el;
  v.lo = tmin(o.el);
  v.hi = tmax(o.el);
  v.uniform = false;
  v.s = o.name + "[" + idx.s + "]";
  cs_.insert("reads of memory");
  if (more_() % 100 < 5) {
    // Through a template whose load is dependent in its pattern (the detector instruments
    // it from the instantiation); the index keeps its type.
    const std::string f = fresh("ld");
    helpers_ << "template <typename T, typename I> __device__ T " << f
             << "(T* q, I i) { return q[i]; }\n";
    v.s = f + "(" + o.name + ", " + idx.s + ")";
    cs_.insert("loads in templates");
  }
  return v;
}

Val Gen::index_any(const Obj& o) {
  ++depth_;
  bool was = no_memory_;
  no_memory_ = true;
  Val e = expr(1 + static_cast<int>(below(2)));
  no_memory_ = was;
  --depth_;
  return fit(e, o.count);
}

std::string Gen::value_for(CType el) {
  ++depth_;
  Val e = expr(static_cast<int>(below(3)));
  --depth_;
  (void)el; // an integer of any type converts to the element's (defined for every pair)
  if (e.t.bits != el.bits || e.t.sign != el.sign) cs_.insert("implicit conversions");
  return e.s;
}

std::string Gen::cond(bool uniform_only) {
  Val a = expr(1 + static_cast<int>(below(2)), uniform_only);
  Val b = expr(static_cast<int>(below(2)), uniform_only);
  static const char* ops[] = {"<", "<=", ">", ">=", "==", "!="};
  return binary(ops[below(std::size(ops))], a, b).s;
}

} // namespace funmem::frontend::gen_detail
