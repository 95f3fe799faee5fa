// The random CUDA kernel generator (see generator.h). Every integer expression carries
// its C type and the interval of its values over every launch of generator_launches();
// an operation whose signed result could leave its type is made unsigned first (C
// defines the wrap), so a generated kernel never depends on undefined behaviour. Memory
// objects have roles that decide which accesses are written: a thread's own element
// (an index made from the thread's global or block-local id through a chain of casts,
// helpers and arithmetic, which may or may not stay injective), read-only, free (any
// element: usually racy) or atomic. Shared arrays alternate between a phase written at
// the thread's own element and a phase read anywhere, a barrier between (sometimes
// left out or replaced by `__syncwarp()`).
#include "frontend/campaign/generator.h"
#include "frontend/campaign/generator_impl.h"

namespace funmem::frontend {

namespace gen_detail {

void Gen::declare(std::ostringstream& o, const std::string& pad, const Val& v, bool assignable) {
  CType t = chance(60) ? v.t : int_type();
  if (t.bits == 1) t = kInt;
  Val d = conv(v, t);
  std::string n = fresh("v");
  o << pad << t.name << " " << n << " = " << v.s << ";\n";
  if (!same(t, v.t)) cs_.insert("implicit conversions");
  d.s = n;
  locals_.push_back({d, loop_depth_, assignable});
}

void Gen::store(std::ostringstream& o, const std::string& pad) {
  std::vector<const Obj*> ok;
  for (const Obj& ob : objs_)
    if (!ob.phased || phase_ % 2 == 0 || ob.role != Role::Own) ok.push_back(&ob);
  if (ok.empty()) return;
  const Obj& ob = *pick(ok);
  std::string idx = ob.role == Role::Own ? ob.own : index_any(ob).s;
  std::string at = ob.name + "[" + idx + "]";
  if (ob.role == Role::ReadOnly) {
    o << pad << "{ " << ob.el.name << " r = " << at << "; (void)r; }\n";
    return;
  }
  if (ob.kind == "struct") {
    cs_.insert("structures");
    if (chance(40)) {
      o << pad << "{ S_" << name_ << " t = " << at << "; t.y = " << value_for(kUChar) << "; " << at
        << " = t; }\n";
      cs_.insert("structure copies");
    } else {
      o << pad << at << (chance(50) ? ".x = " : ".z = ") << value_for(kInt) << ";\n";
    }
    return;
  }
  if (ob.kind == "union") {
    cs_.insert("unions");
    if (chance(50))
      o << pad << at << ".b[" << below(4) << "] = " << value_for(kUChar) << ";\n";
    else
      o << pad << at << ".u = " << value_for(kUInt) << ";\n";
    return;
  }
  if (ob.role == Role::Atomic) {
    cs_.insert("atomics");
    if (!ob.shared && chance(10) && ob.el.bits == 64) {
      o << pad << "atomicAdd((unsigned*)&" << at << ", 1u);\n";
      cs_.insert("atomics of mixed widths");
    } else if (!ob.shared && chance(10) && ob.el.bits == 32 && !ob.el.sign) {
      o << pad << "atomicAdd((unsigned long long*)&" << ob.name << "[(" << idx
        << ") & ~1u], 1ull);\n";
      cs_.insert("atomics of mixed widths");
    } else if (chance(5)) {
      o << pad << at << " ^= 1;\n";
      cs_.insert("atomics beside plain accesses");
    } else {
      static const char* fs[] = {"atomicAdd", "atomicMax", "atomicOr", "atomicExch", "atomicMin"};
      const char* f = fs[below(std::size(fs))];
      o << pad << f << "(&" << at << ", (" << ob.el.name << ")(" << value_for(ob.el) << "));\n";
    }
    return;
  }
  written(o, pad, ob, idx, at);
}

/// A store of element 0 (every thread's: a race if it ran) in an operand C does not
/// evaluate.
void Gen::unevaluated_store(std::ostringstream& o, const std::string& pad, const Obj& ob) {
  // (A constant value: drawing one would change the kernel's other choices.)
  const std::string st = ob.name + "[0] = 1";
  switch (more_() % 4) {
  case 0:
    o << pad << "(void)sizeof(" << st << ");\n";
    break;
  case 1:
    o << pad << "(void)sizeof(decltype(" << st << "));\n";
    break;
  case 2:
    o << pad << "(void)__builtin_constant_p(" << st << ");\n";
    break;
  default:
    o << pad << "(void)__builtin_classify_type(" << st << ");\n";
    break;
  }
  cs_.insert("stores in unevaluated operands");
}

/// `at = value;`, or (4 %) a store whose place is selected at compile time from one
/// that every thread's store would race on (element 0), or with such a store in
/// _Generic's operand, which never runs, or by a predefined macro whose device value
/// differs from the host compiler's (in a conditional directive, or in a condition
/// through a macro of the file).
void Gen::plain_store(std::ostringstream& o, const std::string& pad, const Obj& ob,
                      const std::string& at) {
  if (more_() % 100 >= 4) {
    o << pad << at << " = " << value_for(ob.el) << ";\n";
    cs_.insert("stores");
    return;
  }
  const std::string zero = ob.name + "[0]";
  // A predefined macro's device value (clang's for sm_70; g++ on the host differs):
  // through a macro of the file, or directly.
  static const char* const device[][2] = {{"DEV_ALIGN", "__BIGGEST_ALIGNMENT__ == 8"},
                                          {"DEV_LDBL", "__SIZEOF_LONG_DOUBLE__ == 8"},
                                          {"DEV_MANT", "__LDBL_MANT_DIG__ == 53"},
                                          {"DEV_ARCH", "defined(__CUDA_ARCH__)"}};
  const uint64_t kind = more_() % 6;
  if (kind >= 3) {
    const auto& d = device[more_() % std::size(device)];
    const bool own = more_() % 2 == 0; // the device's branch stores at `at`
    const std::string v = value_for(ob.el);
    if (kind == 3) {
      o << "#if " << (own ? "" : "!(") << d[1] << (own ? "" : ")") << "\n"
        << pad << at << " = " << v << ";\n#else\n"
        << pad << zero << " = " << v << ";\n#endif\n";
      cs_.insert("conditional directives on predefined macros");
    } else {
      // (`defined` works in a directive only.)
      const std::string c = d[1][0] == 'd' ? std::string("__CUDA_ARCH__ >= 700") : d[1];
      o << "#define " << d[0] << " (" << c << ")\n"
        << pad << "if (" << (own ? "" : "!") << d[0] << ") " << at << " = " << v << ";\n"
        << pad << "else " << zero << " = " << v << ";\n";
      cs_.insert("predefined macros in conditions");
    }
    return;
  }
  switch (kind) {
  case 0:
    o << pad << "__builtin_choose_expr(1, " << at << ", " << zero << ")";
    break;
  case 1:
    o << pad << "__builtin_choose_expr(0, " << zero << ", " << at << ")";
    break;
  default:
    o << pad << "_Generic(" << zero << " = 1, default: " << at << ")";
    break;
  }
  o << " = " << value_for(ob.el) << ";\n";
  cs_.insert("places selected at compile time");
}

/// A plain write of `at` (ob's element `idx`): stored directly, through a device
/// function, a function pointer, a virtual method, a lambda or a reference member, or
/// by a compound assignment.
void Gen::written(std::ostringstream& o, const std::string& pad, const Obj& ob,
                  const std::string& idx, const std::string& at) {
  if (more_() % 100 < 5) unevaluated_store(o, pad, ob);
  switch (below(9)) {
  case 0: {
    // A device function storing through a pointer, or through a reference.
    std::string f = fresh("w");
    if (chance(50)) {
      helpers_ << "__device__ void " << f << "(" << ob.el.name << "* q, int i, " << ob.el.name
               << " v) { q[i] = v; }\n";
      o << pad << f << "(" << ob.name << ", " << idx << ", " << value_for(ob.el) << ");\n";
      cs_.insert("device functions storing through pointers");
    } else {
      helpers_ << "__device__ void " << f << "(" << ob.el.name << "& r, " << ob.el.name
               << " v) { r = v; }\n";
      o << pad << f << "(" << at << ", " << value_for(ob.el) << ");\n";
      cs_.insert("reference parameters");
    }
    return;
  }
  case 1: {
    // A call through a function pointer (two candidates of a type of this kernel's own).
    std::string tag = "T_" + name_, a = fresh("fa"), b = fresh("fb");
    if (!tag_) helpers_ << "struct " << tag << " {};\n";
    tag_ = true;
    if (hint_() % 100 < 25) {
      // The store in a captureless lambda (generic or not) converted to a function
      // pointer in a file-scope table beside a function that stores nothing: only the
      // lambda's body writes. (Constant: a run on zero-filled memory keeps it.)
      std::string t = fresh("tbl");
      const bool generic = hint_() % 2 == 0;
      helpers_ << "__device__ void " << a << "(" << ob.el.name << "*, int, " << tag
               << ") {}\n__device__ void (*const " << t << "[2])(" << ob.el.name << "*, int, "
               << tag << ") = {" << a << ", [](" << (generic ? "auto" : ob.el.name) << "* q, "
               << (generic ? "auto" : "int") << " i, " << tag << ") { q[i] = 1; }};\n";
      o << pad << t << "[1](" << ob.name << ", " << idx << ", " << tag << "{});\n";
      cs_.insert("lambdas converted to function pointers");
      return;
    }
    if (more_() % 100 < 20) {
      // The same two stores in captureless lambdas (generic or not) converted to function
      // pointers inside a template's instantiation, which returns one of them.
      std::string t = fresh("pk");
      const bool generic = more_() % 2 == 0;
      const std::string q = generic ? "auto" : "T", i = generic ? "auto" : "int";
      helpers_ << "template <typename T> __device__ auto " << t << "(bool c) -> void (*)(T*, int, "
               << tag << ") {\n  if (c) return [](" << q << "* q, " << i << " i, " << tag
               << ") { q[i] = 1; };\n  return [](" << q << "* q, " << i << " i, " << tag
               << ") { q[i] ^= 2; };\n}\n";
      o << pad << t << "<" << ob.el.name << ">(" << cond(false) << ")(" << ob.name << ", " << idx
        << ", " << tag << "{});\n";
      cs_.insert("lambdas converted in template instantiations");
      return;
    }
    helpers_ << "__device__ void " << a << "(" << ob.el.name << "* q, int i, " << tag
             << ") { q[i] = 1; }\n__device__ void " << b << "(" << ob.el.name << "* q, int i, "
             << tag << ") { q[i] ^= 2; }\n";
    o << pad << "{ void (*fp)(" << ob.el.name << "*, int, " << tag << ") = " << cond(false)
      << " ? &" << a << " : " << b << "; fp(" << ob.name << ", " << idx << ", " << tag
      << "{}); }\n";
    cs_.insert("function pointers");
    return;
  }
  case 2: {
    if (plain_ || chance(80)) break;
    // A virtual method: called on the complete object or through a base pointer.
    std::string base = fresh("VB"), der = fresh("VD");
    helpers_ << "struct " << base << " { __device__ virtual void f(" << ob.el.name
             << "* q, int i) { q[i] = 1; } };\nstruct " << der << " : " << base
             << " { __device__ void f(" << ob.el.name << "* q, int i) override { q[i] = 3; } };\n";
    if (chance(50))
      o << pad << "{ " << der << " d; d.f(" << ob.name << ", " << idx << "); }\n";
    else
      o << pad << "{ " << der << " d; " << base << "* b = &d; b->f(" << ob.name << ", " << idx
        << "); }\n";
    cs_.insert("virtual methods");
    return;
  }
  case 3: {
    if (plain_ || chance(90)) break;
    if (more_() % 100 < 50) {
      // A lambda that captures nothing, kept in a local and called through it.
      o << pad << "{ auto st = [](" << ob.el.name << "* q, int i, " << ob.el.name
        << " v) { q[i] = v; }; st(" << ob.name << ", " << idx << ", " << value_for(ob.el)
        << "); }\n";
      cs_.insert("captureless lambdas kept in locals");
      return;
    }
    // A lambda capturing the object by reference.
    o << pad << "{ auto st = [&](int i, " << ob.el.name << " v) { " << ob.name << "[i] = v; }; st("
      << idx << ", " << value_for(ob.el) << "); }\n";
    cs_.insert("lambdas");
    return;
  }
  case 4: {
    if (plain_ || chance(90)) break;
    // A reference member of a structure.
    std::string s = fresh("R");
    helpers_ << "struct " << s << " { " << ob.el.name << "& r; };\n";
    o << pad << "{ " << s << " h{" << at << "}; h.r = " << value_for(ob.el) << "; }\n";
    cs_.insert("reference members");
    return;
  }
  case 5:
    if (ob.el.sign)
      o << pad << at << (chance(50) ? " |= " : " ^= ") << value_for(ob.el) << ";\n";
    else if (ob.el.bits >= 32)
      o << pad << at << (chance(50) ? " += (" : " -= (") << ob.el.name << ")(" << value_for(ob.el)
        << ");\n";
    else
      o << pad << at << " |= " << value_for(ob.el) << ";\n";
    cs_.insert("compound assignments");
    return;
  default:
    break;
  }
  plain_store(o, pad, ob, at);
}

void Gen::stmts(std::ostringstream& o, int n, int ind) {
  size_t scope = locals_.size();
  for (int i = 0; i < n; ++i)
    stmt(o, ind);
  locals_.resize(scope);
}

void Gen::stmt(std::ostringstream& o, int ind) {
  std::string pad(static_cast<size_t>(ind) * 2, ' ');
  bool nested = ind > 2;
  switch (below(14)) {
  case 0:
  case 1:
    declare(o, pad, expr(1 + static_cast<int>(below(3))));
    return;
  case 2: {
    std::vector<Local*> ok;
    for (Local& l : locals_)
      if (l.assignable && l.loop_depth == loop_depth_) ok.push_back(&l);
    if (ok.empty()) return store(o, pad);
    Local& l = *pick(ok);
    Val v = expr(2);
    Val d = conv(v, l.v.t);
    o << pad << l.v.s << " = " << v.s << ";\n";
    l.v.lo = std::min(l.v.lo, d.lo);
    l.v.hi = std::max(l.v.hi, d.hi);
    // Assigned under a condition or in a loop: no longer known to be uniform.
    l.v.uniform = l.v.uniform && v.uniform && ind <= 1;
    cs_.insert("assignments to locals");
    return;
  }
  case 3:
  case 4:
    if (nested && chance(50)) return store(o, pad);
    {
      o << pad << "if (" << cond(false) << ") {\n";
      stmts(o, 1 + static_cast<int>(below(2)), ind + 1);
      if (chance(40)) {
        o << pad << "} else {\n";
        stmts(o, 1 + static_cast<int>(below(2)), ind + 1);
        cs_.insert("if-else");
      }
      o << pad << "}\n";
      cs_.insert("if statements");
    }
    return;
  case 5:
    if (nested || loop_depth_ > 1) return store(o, pad);
    loop(o, ind);
    return;
  case 6:
    if (in_loop_ && !in_switch_) {
      o << pad << "if (" << cond(false) << ") " << (chance(50) ? "break" : "continue") << ";\n";
      cs_.insert("break and continue");
      return;
    }
    return store(o, pad);
  case 7:
    if (nested || plain_ || chance(90)) return store(o, pad);
    {
      o << pad << "switch ((unsigned)(" << expr(1).s << ") % 3u) {\n" << pad << "case 0: {\n";
      bool was = in_switch_;
      in_switch_ = true;
      stmts(o, 1, ind + 1);
      o << pad << "  break;\n" << pad << "}\n" << pad << "case 1: {\n";
      stmts(o, 1, ind + 1);
      o << pad << "}\n" << pad << "default: {\n";
      stmts(o, 1, ind + 1);
      o << pad << "}\n" << pad << "}\n";
      in_switch_ = was;
      cs_.insert("switch");
    }
    return;
  case 8:
    if (plain_ || chance(90)) return store(o, pad);
    {
      // A local structure with bit-fields.
      std::string s = fresh("BF");
      helpers_ << "struct " << s << " { unsigned a : 3; unsigned b : 5; };\n";
      std::string n = fresh("bf");
      o << pad << s << " " << n << "; " << n << ".a = " << expr(1).s << "; " << n << ".b = 1;\n";
      Val v;
      v.s = n + ".a";
      v.t = kUInt;
      v.lo = 0;
      v.hi = 7;
      v.uniform = false;
      locals_.push_back({v, loop_depth_, false});
      cs_.insert("bit-fields");
    }
    return;
  default:
    store(o, pad);
    return;
  }
}

void Gen::phase_body(std::ostringstream& o, int n, int ind) {
  stmts(o, n, ind);
}

/// The parameters: one to three pointers (integers, a structure or a union), zero to
/// three scalars s0.. of any integer type.
void Gen::parameters(std::ostringstream& sig) {
  // Parameters: one to three pointers (integers, a structure or a union), zero to three
  // scalars s0.. of any integer type.
  int np = 1 + static_cast<int>(below(3));
  std::vector<std::string> decls; // `T* p0`
  for (int i = 0; i < np; ++i) {
    Obj ob;
    ob.name = "p" + std::to_string(i);
    ob.count = kGeneratedElements;
    ob.el = int_type();
    int r = static_cast<int>(below(10));
    ob.role = r < 5              ? Role::Own
              : r < 7            ? Role::ReadOnly
              : r < 8 && !plain_ ? Role::Free
              : r < 8            ? Role::Own
                                 : Role::Atomic;
    if (ob.role == Role::Atomic) ob.el = chance(40) ? kUInt : chance(50) ? kInt : kULL;
    std::string el = ob.el.name;
    if (ob.role == Role::Own && !struct_ && chance(10)) {
      struct_ = true;
      ob.kind = "struct";
      helpers_ << "struct S_" << name_ << " { int x; unsigned char y; short z; };\n";
      el = "S_" + name_;
    } else if (ob.role == Role::Own && !union_ && chance(10)) {
      union_ = true;
      ob.kind = "union";
      helpers_ << "union U_" << name_ << " { unsigned u; unsigned char b[4]; };\n";
      el = "U_" + name_;
    }
    decls.push_back(el + "* " + ob.name);
    objs_.push_back(ob);
  }
  // Sometimes the pointers come in a structure passed by value (`q.p0`): each is an
  // object of its own all the same.
  if (hint_() % 100 < 15) {
    helpers_ << "struct P_" << name_ << " {";
    for (const std::string& d : decls)
      helpers_ << " " << d << ";";
    helpers_ << " };\n";
    sig << "P_" << name_ << " q";
    for (Obj& ob : objs_)
      ob.name = "q." + ob.name;
    cs_.insert("pointers in a structure parameter");
  } else {
    for (size_t i = 0; i < decls.size(); ++i)
      sig << (i ? ", " : "") << decls[i];
  }
  int ns = static_cast<int>(below(4));
  for (int i = 0; i < ns; ++i) {
    CType t = any_type();
    std::string n = "s" + std::to_string(i);
    sig << ", " << t.name << " " << n;
    params_.push_back(n);
    Val v;
    v.s = n;
    v.t = t;
    v.lo = tmin(t);
    v.hi = tmax(t);
    v.uniform = true;
    locals_.push_back({v, 0, false});
    cs_.insert("scalar parameters");
    if (t.bits < 32) cs_.insert("narrow integer types");
    if (t.bits == 64) cs_.insert("64-bit integers");
  }
}

/// Shared memory (static, extern: two of them alias, file scope), a __device__ array,
/// and the own element of every object written at one.
void Gen::memory(std::ostringstream& prologue) {
  // Shared memory: static, extern (dynamic; two of them alias), file scope; a
  // __device__ array.
  auto add_shared = [&](const std::string& n, CType el, int64_t count, bool shared) {
    Obj ob;
    ob.name = n;
    ob.el = el;
    ob.count = count;
    ob.shared = shared;
    ob.phased = shared;
    int r = static_cast<int>(below(10));
    ob.role = r < 7 ? Role::Own : r < 9 ? Role::Free : Role::Atomic;
    if (ob.role == Role::Atomic) ob.el = chance(50) ? kUInt : kInt;
    objs_.push_back(ob);
    return objs_.size() - 1;
  };
  if (chance(50)) {
    size_t i = add_shared(fresh("sh"), int_type(), kShared, true);
    prologue << "  __shared__ " << objs_[i].el.name << " " << objs_[i].name << "[" << kShared
             << "];\n";
    cs_.insert("static shared memory");
  }
  if (chance(30)) {
    int m = chance(50) ? 2 : 1;
    for (int j = 0; j < m; ++j) {
      CType el = int_type();
      // Two aliasing arrays: of different element sizes, both written at the thread's
      // own element (their elements overlap other threads' there).
      while (j == 1 && el.bits == objs_.back().el.bits)
        el = int_type();
      size_t i = add_shared(fresh("dsh"), el, kDynShared, true);
      if (m == 2) {
        objs_[i].role = Role::Own;
        objs_[i].el = el;
        aliased_.push_back(i);
      }
      prologue << "  extern __shared__ " << objs_[i].el.name << " " << objs_[i].name << "[];\n";
    }
    cs_.insert(m == 2 ? "two extern shared arrays" : "extern shared memory");
  }
  if (chance(15)) {
    size_t i = add_shared(fresh("fsh"), int_type(), kShared, true);
    file_scope_ << "__shared__ " << objs_[i].el.name << " " << objs_[i].name << "[" << kShared
                << "];\n";
    cs_.insert("file-scope shared memory");
  }
  if (chance(15)) {
    size_t i = add_shared(fresh("dev"), int_type(), kGeneratedElements, false);
    objs_[i].phased = false;
    file_scope_ << "__device__ " << objs_[i].el.name << " " << objs_[i].name << "["
                << kGeneratedElements << "];\n";
    cs_.insert("__device__ arrays");
  }
  // Own elements: the global id (block-local for shared arrays) through a chain.
  for (Obj& ob : objs_) {
    if (ob.role != Role::Own) continue;
    // Aliased extern arrays: the plain block-local id (the aliasing is the point).
    const bool alias = std::find(aliased_.begin(), aliased_.end(),
                                 static_cast<size_t>(&ob - objs_.data())) != aliased_.end();
    Val g = chain(gid(ob.shared), alias ? 0 : static_cast<int>(below(4)));
    if (chance(40)) {
      std::ostringstream d;
      declare(d, "  ", g, false);
      prologue << d.str();
      g = locals_.back().v;
    }
    ob.own = fit(g, ob.count).s;
  }
}

/// The body: segments separated by barriers (or, sometimes, not), an early return.
void Gen::segments(std::ostringstream& body) {
  // Segments separated by barriers (or, sometimes, not).
  int count = 1 + static_cast<int>(below(simple_ ? 2 : 3));
  for (int s = 0; s < count; ++s) {
    phase_ = s;
    if (s > 0 && s == count - 1 && chance(25)) {
      // A loop of phases, uniform bound: write, barrier, read, barrier.
      std::string r = fresh("r");
      body << "  for (int " << r << " = 0; " << r << " < " << 1 + below(3) << "; ++" << r
           << ") {\n";
      phase_ = 0;
      ++loop_depth_;
      phase_body(body, 1 + static_cast<int>(below(2)), 2);
      body << "    __syncthreads();\n";
      phase_ = 1;
      phase_body(body, 1 + static_cast<int>(below(2)), 2);
      body << "    __syncthreads();\n  }\n";
      --loop_depth_;
      cs_.insert("barriers in uniform loops");
      break;
    }
    if (s > 0 && chance(15)) {
      body << "  if (" << cond(true) << ") {\n";
      phase_body(body, 1 + static_cast<int>(below(2)), 2);
      body << "  }\n";
      cs_.insert("uniform conditions");
    }
    phase_body(body, 1 + static_cast<int>(below(simple_ ? 2 : 4)), 1);
    if (s == 0 && aliased_.size() == 2 && chance(70))
      for (size_t i : aliased_) {
        const Obj ob = objs_[i];
        written(body, "  ", ob, ob.own, ob.name + "[" + ob.own + "]");
      }
    if (s == 0 && chance(15)) {
      Val w = expr(1);
      CType t = chance(50) ? kInt : kUInt;
      std::string n = fresh("wv");
      body << "  " << t.name << " " << n << " = __shfl_"
           << (chance(50) ? "sync(0xffffffffu, " : "xor_sync(0xffffffffu, ") << "(" << t.name
           << ")(" << w.s << "), " << below(2) << ");\n";
      Val v;
      v.s = n;
      v.t = t;
      v.lo = tmin(t);
      v.hi = tmax(t);
      v.uniform = false;
      locals_.push_back({v, 0, true});
      cs_.insert("warp shuffles");
    }
    if (s + 1 == count) tail_loop(body);
    if (s + 1 < count) {
      int b = static_cast<int>(below(20));
      body << (b == 0 ? "  __syncwarp();\n" : b == 1 ? "" : "  __syncthreads();\n");
      cs_.insert(b == 0 ? "__syncwarp" : b == 1 ? "barriers left out" : "barriers");
    }
  }
  if (chance(15)) {
    body << "  if (" << cond(false) << ") return;\n";
    phase_body(body, 1, 1);
    cs_.insert("early returns");
  }
  if (chance(15)) {
    body << "  if (" << cond(false) << ") return;\n";
    phase_body(body, 1, 1);
    cs_.insert("early returns");
  }
}

GeneratedKernel Gen::run() {
  GeneratedKernel k;
  k.name = name_;
  dims_ = chance(60) ? 1 : chance(60) ? 2 : 3;
  plain_ = simple_ || chance(50);
  if (simple_) dims_ = chance(75) ? 1 : 2;
  std::ostringstream sig, prologue, body;
  parameters(sig);
  memory(prologue);
  segments(body);
  cs_.insert(dims_ == 1 ? "1-D kernels" : dims_ == 2 ? "2-D kernels" : "3-D kernels");
  std::ostringstream src;
  src << "// generated: seed and index in the kernel's name\n"
      << file_scope_.str() << helpers_.str() << "__global__ void " << name_ << "(" << sig.str()
      << ") {\n"
      << prologue.str() << body.str() << "}\n";
  k.source = src.str();
  k.constructs = cs_;
  return k;
}

} // namespace gen_detail

using gen_detail::Gen;

GeneratedKernel generate_kernel(uint64_t seed, uint64_t index, bool simple) {
  return Gen(seed, index, simple).run();
}

const std::vector<std::string>& generator_constructs() {
  static const std::vector<std::string> all = {"1-D kernels",
                                               "2-D kernels",
                                               "3-D kernels",
                                               "thread indices",
                                               "2-D thread indices",
                                               "3-D thread indices",
                                               "block and grid indices and sizes",
                                               "scalar parameters",
                                               "narrow integer types",
                                               "64-bit integers",
                                               "bool values",
                                               "explicit casts",
                                               "implicit conversions",
                                               "narrowing conversions that wrap",
                                               "unsigned wrap-around",
                                               "mixed signed and unsigned operands",
                                               "arithmetic + - *",
                                               "division and remainder",
                                               "shifts",
                                               "bitwise operators",
                                               "comparisons",
                                               "conditional expressions",
                                               "assignments to locals",
                                               "reads of memory",
                                               "stores",
                                               "compound assignments",
                                               "structures",
                                               "pointers in a structure parameter",
                                               "structure copies",
                                               "unions",
                                               "bit-fields",
                                               "reference members",
                                               "if statements",
                                               "if-else",
                                               "uniform conditions",
                                               "early returns",
                                               "for loops",
                                               "#pragma unroll",
                                               "while loops",
                                               "do loops",
                                               "break and continue",
                                               "switch",
                                               "loop bounds read from memory",
                                               "loop steps read from memory",
                                               "static shared memory",
                                               "extern shared memory",
                                               "two extern shared arrays",
                                               "file-scope shared memory",
                                               "__device__ arrays",
                                               "barriers",
                                               "barriers in uniform loops",
                                               "barriers left out",
                                               "__syncwarp",
                                               "atomics",
                                               "atomics of mixed widths",
                                               "atomics beside plain accesses",
                                               "device functions returning values",
                                               "device functions storing through pointers",
                                               "reference parameters",
                                               "function pointers",
                                               "virtual methods",
                                               "templates",
                                               "loads in templates",
                                               "lambdas",
                                               "lambdas converted to function pointers",
                                               "lambdas converted in template instantiations",
                                               "captureless lambdas kept in locals",
                                               "stores in unevaluated operands",
                                               "places selected at compile time",
                                               "conditional directives on predefined macros",
                                               "predefined macros in conditions",
                                               "functions without a body",
                                               "warp shuffles",
                                               "the device's float conversions",
                                               "24-bit multiplications",
                                               "enumerators",
                                               "character literals",
                                               "min and max of mixed signedness",
                                               "unsigned loop counters against signed bounds",
                                               "negative steps of unsigned counters",
                                               "unsigned counters counting down past zero",
                                               "halving loops",
                                               "halving loops from negative starts",
                                               "loop conditions that wrap",
                                               "signed counters stepped by unsigned values",
                                               "writes at counter values reached after a wrap"};
  return all;
}

std::vector<Launch> generator_launches() {
  struct L {
    int64_t b[3], g[3];
    int64_t s[3];
    bool zero;
  };
  static const L ls[] = {
      {{4, 1, 1}, {2, 1, 1}, {3, 1, 7}, false},
      {{8, 1, 1}, {3, 1, 1}, {0, 255, -1}, false},
      {{4, 1, 1}, {2, 1, 1}, {1, -1, 2147483647}, true},
      {{1, 1, 1}, {4, 1, 1}, {255, 3, 256}, false},
      {{32, 1, 1}, {1, 1, 1}, {2147483647, -1, 0}, false},
      {{4, 2, 1}, {2, 1, 1}, {256, 2147483647, 1}, false},
      {{2, 4, 1}, {1, 2, 1}, {-1, 0, 255}, true},
      {{2, 2, 2}, {2, 2, 1}, {-1, 0, 255}, false},
      {{8, 4, 2}, {2, 1, 2}, {7, 256, 0}, false},
      {{256, 1, 1}, {2, 1, 1}, {255, -1, 256}, false},
  };
  std::vector<Launch> out;
  for (const L& l : ls) {
    Launch x;
    for (int d = 0; d < 3; ++d) {
      x.block[d] = l.b[d];
      x.grid[d] = l.g[d];
    }
    for (int i = 0; i < 3; ++i)
      x.args["s" + std::to_string(i)] = l.s[i];
    if (l.zero) x.args["@@fill"] = 0;
    x.elements = kGeneratedElements;
    out.push_back(x);
  }
  return out;
}

} // namespace funmem::frontend
