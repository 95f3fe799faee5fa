// The CUDA generator's internals (codegen/cuda.cpp, codegen/parametric.cpp): the class
// that walks an IMP program and writes the .cu text. Not part of the library's interface.
#pragma once

#include "codegen/cuda.h"
#include "codegen/free_names.h"
#include "ir/overloaded.h"
#include "ir/printer.h"
#include "ir/scalar_types.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

namespace funmem::codegen {

struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct VarInfo {
  bool is_mem = false;
  ScalarType t = ScalarType::I64;
};

inline std::string where(Pos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

/// IMP names as C identifiers: `v_` + the name with `_` doubled and `'` as `_p`, so
/// that distinct IMP names stay distinct and never meet the generator's own `fm_` names.
inline std::string cname(const std::string& n) {
  std::string s = "v_";
  for (char c : n) {
    if (c == '_')
      s += "__";
    else if (c == '\'')
      s += "_p";
    else
      s += c;
  }
  return s;
}

inline std::string type_word(ScalarType t) {
  return scalar_type_name(t);
}

inline std::string float_literal(double v, bool single) {
  if (std::isnan(v)) return single ? "((float)NAN)" : "((double)NAN)";
  if (std::isinf(v))
    return std::string(v < 0 ? "(-" : "(") + (single ? "(float)INFINITY)" : "(double)INFINITY)");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return single ? std::string("((float)") + buf + ")" : std::string("(") + buf + ")";
}

/// `lines` (each ending in a newline) with `pad` in front of each.
inline std::string indented(const std::string& lines, const std::string& pad) {
  std::string out;
  for (size_t a = 0; a < lines.size();) {
    size_t e = lines.find('\n', a);
    if (e == std::string::npos) e = lines.size() - 1;
    out += pad + lines.substr(a, e - a + 1);
    a = e + 1;
  }
  return out;
}

inline std::string int_literal(int64_t v) {
  if (v == INT64_MIN) return "(-INT64_C(9223372036854775807) - 1)";
  return "INT64_C(" + std::to_string(v) + ")";
}

class Gen {
public:
  explicit Gen(const CudaOptions& o) : opt_(o) {}

  CudaCode program(const imp::Program& p, const std::vector<ScalarType>& result_types);

private:
  struct Site {
    std::string kind;
    Pos pos;
    std::string what;
  };
  const CudaOptions& opt_;
  std::vector<Site> sites_;
  std::vector<CudaKernelInfo> kernels_;
  std::vector<HostFact> facts_; // what holds on the host at this point of its code

  static std::vector<std::string> names_of(const SExpP& e) {
    FreeNames f;
    if (e) f.names(*e);
    return f.order;
  }
  static HostFact fact(HostFact::Kind k, SExpP e, std::string name = "") {
    HostFact f{k, std::move(name), std::move(e), {}};
    f.names = names_of(f.expr);
    if (!f.name.empty()) f.names.push_back(f.name);
    return f;
  }
  /// Facts about names that change no longer hold.
  void forget(const std::set<std::string>& changed) {
    std::erase_if(facts_, [&](const HostFact& f) {
      for (const std::string& n : f.names)
        if (changed.count(n)) return true;
      return false;
    });
  }
  static void assigned_in(const imp::Block& b, std::set<std::string>& out) {
    for (const imp::Stmt& s : b)
      std::visit(Overloaded{[&](const imp::Decl& d) { out.insert(d.name.s); },
                            [&](const imp::Assign& a) { out.insert(a.name.s); },
                            [&](const imp::Read& r) { out.insert(r.dst.s); },
                            [&](const imp::Alloc& a) { out.insert(a.mem.s); },
                            [&](const imp::If& i) {
                              assigned_in(i.then_block, out);
                              assigned_in(i.else_block, out);
                            },
                            [&](const imp::Loop& l) {
                              out.insert(l.iter.s);
                              assigned_in(l.body, out);
                            },
                            [](const auto&) {}},
                 s.node);
  }
  std::string kernels_text_;
  std::vector<std::map<std::string, VarInfo>> frames_;
  bool device_ = false;
  std::vector<int>* stores_ = nullptr; // the fm_st origins of the kernel being generated
  std::vector<std::vector<std::pair<std::string, SExpP>>>* store_loops_ = nullptr;
  std::vector<std::pair<std::string, SExpP>> imp_loops_; // IMP loops around, in a kernel
  bool force_unchecked_ = false;
  int temps_ = 0;
  std::string prog_name_;
  std::vector<CudaThreshold> thresholds_;

  static std::string escape(const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  }

  /// A checked operation's site number (0 when checks are off).
  std::string site(const char* kind, Pos pos, std::string what) {
    if (!opt_.checks || force_unchecked_) return "0";
    sites_.push_back(Site{kind, pos, std::move(what)});
    return std::to_string(sites_.size());
  }

  void declare(const std::string& n, VarInfo v) { frames_.back()[n] = v; }
  VarInfo lookup(const std::string& n, Pos pos) const {
    for (size_t k = frames_.size(); k-- > 0;)
      if (auto it = frames_[k].find(n); it != frames_[k].end()) return it->second;
    throw Unsupported(where(pos) + ": '" + n + "' is not declared");
  }

  static std::string pad(int indent) { return std::string(static_cast<size_t>(indent) * 2, ' '); }

  // ------------------------------------------------------------ expressions

  using Code = std::pair<std::string, ScalarType>;

  /// An index into a block (and an allocation's size): every operation on operands taken
  /// modulo 2^64, the interpreters' exact value wherever the operands of each / % min max
  /// abs fit i64 (exact for every index inside the block, which the load or store checks).
  bool address_ = false;
  Code address(const SExp& e) {
    const bool outer = address_;
    address_ = true;
    Code c = exp(e);
    address_ = outer;
    return c;
  }

  Code exp(const SExp& e) {
    return std::visit(Overloaded{[&](const Lit& l) -> Code {
                                   switch (l.type) {
                                   case ScalarType::I64:
                                     return {int_literal(l.i), l.type};
                                   case ScalarType::I32:
                                     return {"((int32_t)" + std::to_string(l.i) + ")", l.type};
                                   case ScalarType::F64:
                                     return {float_literal(l.f, false), l.type};
                                   case ScalarType::F32:
                                     return {float_literal(l.f, true), l.type};
                                   case ScalarType::Bool:
                                     return {l.i ? "true" : "false", l.type};
                                   }
                                   return {"0", l.type};
                                 },
                                 [&](const SVar& v) -> Code {
                                   VarInfo i = lookup(v.name, e.pos);
                                   if (i.is_mem)
                                     throw Unsupported(where(e.pos) + ": memory '" + v.name +
                                                       "' used as a scalar");
                                   return {cname(v.name), i.t};
                                 },
                                 [&](const SUnary& u) -> Code {
                                   Code a = exp(*u.a);
                                   ScalarType t = typed(unary_type(u.op, a.second), e.pos);
                                   if (u.op == UnOp::Not) return {"(!" + a.first + ")", t};
                                   if (is_float_type(t)) return {"(-" + a.first + ")", t};
                                   const std::string ck =
                                       address_ && t == ScalarType::I64
                                           ? std::string("0")
                                           : site("overflow", e.pos, "overflow in negation");
                                   return narrow("fm_neg(" + a.first + ", " + ck + ")", t, e.pos);
                                 },
                                 [&](const SBinary& b) -> Code { return binary(b, e.pos); },
                                 [&](const SCall& c) -> Code { return call(c, e.pos); }},
                      e.node);
  }

  static bool is_float_type(ScalarType t) { return t == ScalarType::F32 || t == ScalarType::F64; }

  /// The result type by the typing rules (ir/scalar_types.h); IMP from to_imp is typed,
  /// so a refusal means a hand-written IMP program the lowering cannot type.
  ScalarType typed(const OpType& r, Pos pos) const {
    if (!r.type) throw Unsupported(where(pos) + ": " + r.error);
    return *r.type;
  }

  /// An integer result computed in i64: an i32 one must fit.
  Code narrow(std::string code, ScalarType t, Pos pos) {
    if (t == ScalarType::I32)
      return {"fm_i32(" + code + ", " + site("overflow", pos, "i32 overflow") + ")", t};
    return {std::move(code), t};
  }

  Code binary(const SBinary& b, Pos pos) {
    Code x = exp(*b.a), y = exp(*b.b);
    const ScalarType t = typed(binary_type(b.op, x.second, y.second), pos);
    const std::string op = binop_text(b.op);
    switch (b.op) {
    case BinOp::Or:
    case BinOp::And:
    case BinOp::Eq:
    case BinOp::Ne:
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge:
      return {"(" + x.first + " " + op + " " + y.first + ")", t};
    default:
      break;
    }
    if (is_float_type(t)) {
      if (b.op == BinOp::Mod)
        return {std::string(t == ScalarType::F32 ? "fmodf(" : "fmod(") + x.first + ", " + y.first +
                    ")",
                t};
      return {"(" + x.first + " " + op + " " + y.first + ")", t};
    }
    std::string ovf = "overflow in " + op;
    // Address arithmetic wraps (site 0), as in the interpreters (docs/interpreters.md).
    auto checked = [&] {
      return address_ && t == ScalarType::I64 ? std::string("0") : site("overflow", pos, ovf);
    };
    switch (b.op) {
    case BinOp::Add:
      return narrow("fm_add(" + x.first + ", " + y.first + ", " + checked() + ")", t, pos);
    case BinOp::Sub:
      return narrow("fm_sub(" + x.first + ", " + y.first + ", " + checked() + ")", t, pos);
    case BinOp::Mul:
      return narrow("fm_mul(" + x.first + ", " + y.first + ", " + checked() + ")", t, pos);
    default: {
      std::string d = site("division", pos, "division by zero in " + op);
      std::string o = d == "0" ? "0" : site("overflow", pos, ovf);
      return narrow(std::string(b.op == BinOp::Div ? "fm_div(" : "fm_mod(") + x.first + ", " +
                        y.first + ", " + d + ", " + o + ")",
                    t, pos);
    }
    }
  }

  Code call(const SCall& c, Pos pos) {
    // IMP's sizes and addresses: a size is computed modulo 2^64 as an address is, which
    // is its value wherever that fits i64 (elsewhere the interpreter's run ends with a
    // resource error, and there is nothing to compare).
    if (c.fn == Fn::Size || c.fn == Fn::Address) return address(*c.args.at(0));
    std::vector<Code> a;
    std::vector<ScalarType> types;
    for (const SExpP& x : c.args) {
      a.push_back(exp(*x));
      types.push_back(a.back().second);
    }
    const ScalarType t = typed(call_type(c.fn, types), pos);
    const std::string ct = c_type(t);
    switch (c.fn) {
    case Fn::Min:
    case Fn::Max:
      return {std::string(c.fn == Fn::Min ? "fm_min<" : "fm_max<") + ct + ">(" + a[0].first + ", " +
                  a[1].first + ")",
              t};
    case Fn::Abs:
      if (is_float_type(t))
        return {std::string(t == ScalarType::F32 ? "fabsf(" : "fabs(") + a[0].first + ")", t};
      return narrow("fm_abs(" + a[0].first + ", " + site("overflow", pos, "overflow in abs") + ")",
                    t, pos);
    case Fn::Select:
      return {"fm_select<" + ct + ">(" + a[0].first + ", " + a[1].first + ", " + a[2].first + ")",
              t};
    case Fn::ToI64:
    case Fn::ToI32: {
      const ScalarType to = t;
      std::string v = a[0].first;
      if (is_float_type(a[0].second))
        v = "fm_f2i((double)" + v + ", " +
            (to == ScalarType::I32 ? "2147483648.0" : "9223372036854775808.0") + ", " +
            site("overflow", pos, std::string("float does not fit in ") + scalar_type_name(to)) +
            ")";
      else
        v = "((int64_t)" + v + ")";
      return narrow(v, to, pos);
    }
    case Fn::ToF32:
      // Through double, as the interpreter converts (an i64 rounds once to double, then
      // to float).
      return {"((float)(double)" + a[0].first + ")", t};
    case Fn::ToF64:
      return {"((double)" + a[0].first + ")", t};
    case Fn::Size:
    case Fn::Address:
      break;
    }
    return {"0", t};
  }

  // ------------------------------------------------------------ statements

  void block(const imp::Block& b, std::string& out, int indent) {
    frames_.emplace_back();
    for (const imp::Stmt& s : b)
      stmt(s, out, indent);
    frames_.pop_back();
  }

  void stmt(const imp::Stmt& s, std::string& out, int indent) {
    const std::string p = pad(indent);
    std::visit(
        Overloaded{
            [&](const imp::Skip&) {},
            [&](const imp::Decl& d) {
              bool again = frames_.back().count(d.name.s) > 0;
              declare(d.name.s, VarInfo{d.is_mem, d.type});
              if (!device_) forget({d.name.s});
              std::string init =
                  d.is_mem ? "fm_mem{nullptr, 0}" : std::string(c_type(d.type)) + "{}";
              if (again)
                out += p + cname(d.name.s) + " = " + init + ";\n";
              else
                out += p + (d.is_mem ? std::string("fm_mem") : std::string(c_type(d.type))) + " " +
                       cname(d.name.s) + " = " + init + ";\n";
            },
            [&](const imp::Assign& a) {
              VarInfo dst = lookup(a.name.s, s.pos);
              if (dst.is_mem) {
                const auto* sv = std::get_if<SVar>(&a.value->node);
                if (!sv || !lookup(sv->name, a.value->pos).is_mem)
                  throw Unsupported(where(s.pos) + ": memory '" + a.name.s + "' assigned a scalar");
                out += p + cname(a.name.s) + " = " + cname(sv->name) + ";\n";
                return;
              }
              Code v = exp(*a.value);
              out += p + cname(a.name.s) + " = " + v.first + ";\n";
              if (!device_) {
                forget({a.name.s});
                HostFact f = fact(HostFact::Kind::Equal, a.value, a.name.s);
                if (std::count(f.names.begin(), f.names.end(), a.name.s) == 1) facts_.push_back(f);
              }
            },
            [&](const imp::Alloc& a) {
              if (device_)
                throw Unsupported(where(s.pos) + ": an allocation inside a kernel ('" + a.mem.s +
                                  "'); memory expansion did not hoist it");
              lookup(a.mem.s, s.pos);
              // A size is exact in IMP; modulo 2^64 it is the same wherever it fits i64.
              Code n = address(*a.size);
              out += p + cname(a.mem.s) + " = fm_h.alloc(" + n.first + ", " +
                     site("size", s.pos, "allocation of a negative size") + ");\n";
            },
            [&](const imp::Read& r) {
              VarInfo dst = lookup(r.dst.s, s.pos);
              if (!device_) forget({r.dst.s});
              mem(r.mem, s.pos);
              Code i = address(*r.index);
              std::string st = site("bounds", s.pos, "read of '" + r.mem.s + "' out of bounds");
              if (auto t = tile_reads_.find(&r); device_ && t != tile_reads_.end()) {
                const std::string K = std::to_string(t->second.tile);
                const bool two = !t->second.cell.empty();
                out += p + cname(r.dst.s) + " = fm_ld_tile" + (two ? "2<" : "<") + c_type(dst.t) +
                       ">(" + cname(r.mem.s) + ", " + i.first + ", " + st + ", fm_smem + fm_at" +
                       K + ", " + (two ? t->second.cell : "fm_start" + K) + ", fm_use" + K + ");\n";
                return;
              }
              out += p + cname(r.dst.s) + " = " + (device_ ? "fm_ld<" : "fm_host_ld<") +
                     c_type(dst.t) + ">(" + cname(r.mem.s) + ", " + i.first + ", " + st + ");\n";
            },
            [&](const imp::Write& w) {
              mem(w.mem, s.pos);
              if (device_ && stores_) {
                stores_->push_back(w.origin);
                store_loops_->push_back(imp_loops_);
              }
              Code i = address(*w.index);
              Code v = exp(*w.value);
              out += p + (device_ ? "fm_st<" : "fm_host_st<") + c_type(v.second) + ">(" +
                     cname(w.mem.s) + ", " + i.first + ", " + v.first + ", " +
                     site("bounds", s.pos, "write of '" + w.mem.s + "' out of bounds") + ");\n";
            },
            [&](const imp::Assert& a) {
              Code c = exp(*a.cond);
              std::string st = site(a.kind.c_str(), s.pos,
                                    a.kind == "assume" ? "the assumption does not hold"
                                                       : "an index outside its array");
              if (st != "0") out += p + "if (!" + c.first + ") fm_fail(" + st + ");\n";
              // Past the check the condition holds (the run stopped otherwise); with
              // checks off it is what the source promised.
              if (!device_) facts_.push_back(fact(HostFact::Kind::Holds, a.cond));
            },
            [&](const imp::If& i) {
              Code c = exp(*i.cond);
              std::vector<HostFact> saved = facts_;
              out += p + "if (" + c.first + ") {\n";
              if (!device_) facts_.push_back(fact(HostFact::Kind::Holds, i.cond));
              block(i.then_block, out, indent + 1);
              facts_ = saved;
              if (!i.else_block.empty()) {
                out += p + "} else {\n";
                if (!device_) facts_.push_back(fact(HostFact::Kind::Fails, i.cond));
                block(i.else_block, out, indent + 1);
                facts_ = saved;
              }
              out += p + "}\n";
              std::set<std::string> changed;
              assigned_in(i.then_block, changed);
              assigned_in(i.else_block, changed);
              if (!device_) forget(changed);
            },
            [&](const imp::Loop& l) { loop(l, s.pos, out, indent); }},
        s.node);
  }

  /// A sequential loop, or on the host a parallel one (a kernel launch).
  void loop(const imp::Loop& l, Pos pos, std::string& out, int indent) {
    const std::string p = pad(indent);
    if (l.parallel && !device_) {
      launch(l, pos, out, indent);
      return;
    }
    Code n = exp(*l.bound);
    std::string t = "fm_n" + std::to_string(temps_++);
    out += p + "for (int64_t " + cname(l.iter.s) + " = 0, " + t + " = fm_bound(" + n.first + ", " +
           site("resource", l.bound->pos, "a loop of more than 2^31 - 1 iterations") + "); " +
           cname(l.iter.s) + " < " + t + "; ++" + cname(l.iter.s) + ") {\n";
    frames_.emplace_back();
    declare(l.iter.s, VarInfo{false, ScalarType::I64});
    // Names the body changes differ from the second iteration on.
    std::set<std::string> changed = {l.iter.s};
    assigned_in(l.body, changed);
    if (!device_) forget(changed);
    std::vector<HostFact> saved = facts_;
    if (!device_) facts_.push_back(fact(HostFact::Kind::Below, l.bound, l.iter.s));
    if (device_) imp_loops_.emplace_back(l.iter.s, l.bound);
    block(l.body, out, indent + 1);
    if (device_) imp_loops_.pop_back();
    facts_ = saved;
    frames_.pop_back();
    out += p + "}\n";
  }

  void mem(const Name& n, Pos pos) {
    if (!lookup(n.s, pos).is_mem)
      throw Unsupported(where(pos) + ": '" + n.s + "' is not a memory block");
  }

  /// An outermost kernel that can be multi-versioned: pure scalar work (`pre`), then one
  /// inner kernel whose bound the host can evaluate without a check failing differently.
  struct Nest {
    std::vector<const imp::Stmt*> pre;
    const imp::Loop* inner = nullptr;
  };

  static void written_mems(const imp::Block& b, std::set<std::string>& out) {
    for (const imp::Stmt& s : b) {
      if (const auto* w = std::get_if<imp::Write>(&s.node)) out.insert(w->mem.s);
      if (const auto* i = std::get_if<imp::If>(&s.node)) {
        written_mems(i->then_block, out);
        written_mems(i->else_block, out);
      }
      if (const auto* l = std::get_if<imp::Loop>(&s.node)) written_mems(l->body, out);
    }
  }

  /// Lit, names, + - * min max: evaluable unchecked on the host (wrapping at worst).
  bool host_bound(const SExp& e, const std::set<std::string>& bound_inside) const {
    return std::visit(
        Overloaded{[](const Lit& l) { return l.type == ScalarType::I64; },
                   [&](const SVar& v) {
                     if (bound_inside.count(v.name)) return false;
                     for (size_t k = frames_.size(); k-- > 0;)
                       if (auto it = frames_[k].find(v.name); it != frames_[k].end())
                         return !it->second.is_mem && it->second.t == ScalarType::I64;
                     return false;
                   },
                   [](const SUnary&) { return false; },
                   [&](const SBinary& b) {
                     return (b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul) &&
                            host_bound(*b.a, bound_inside) && host_bound(*b.b, bound_inside);
                   },
                   [&](const SCall& c) {
                     if (c.fn != Fn::Min && c.fn != Fn::Max) return false;
                     for (const SExpP& a : c.args)
                       if (!host_bound(*a, bound_inside)) return false;
                     return true;
                   }},
        e.node);
  }

  std::optional<Nest> versionable(const imp::Loop& l) const {
    if (!opt_.versions) return std::nullopt;
    Nest nest;
    std::set<std::string> bound_inside{l.iter.s};
    std::set<std::string> pre_reads;
    for (const imp::Stmt& s : l.body) {
      if (nest.inner) {
        if (!std::holds_alternative<imp::Skip>(s.node)) return std::nullopt;
        continue;
      }
      if (const auto* lp = std::get_if<imp::Loop>(&s.node)) {
        if (!lp->parallel) return std::nullopt;
        nest.inner = lp;
        continue;
      }
      if (const auto* d = std::get_if<imp::Decl>(&s.node)) {
        if (d->is_mem) return std::nullopt;
        bound_inside.insert(d->name.s);
      } else if (const auto* r = std::get_if<imp::Read>(&s.node)) {
        pre_reads.insert(r->mem.s);
      } else if (const auto* a = std::get_if<imp::Assign>(&s.node)) {
        bound_inside.insert(a->name.s);
      } else if (!std::holds_alternative<imp::Assert>(s.node) &&
                 !std::holds_alternative<imp::Skip>(s.node)) {
        return std::nullopt;
      }
      nest.pre.push_back(&s);
    }
    if (!nest.inner || !host_bound(*nest.inner->bound, bound_inside)) return std::nullopt;
    std::set<std::string> written;
    written_mems(nest.inner->body, written);
    for (const std::string& m : pre_reads)
      if (written.count(m)) return std::nullopt;
    return nest;
  }

  /// A __global__ function: `head` opens the per-thread loop and defines the outer
  /// iterator (`fm_o`); `inner_head`, when given, opens the inner iterator's loop after
  /// the nest's pure prefix (the versions of a nest), else the whole body follows.
  std::string kernel_fn(const std::string& name, const std::string& sig, Pos pos,
                        const std::string& head, const std::string& copies,
                        const std::vector<std::pair<std::string, VarInfo>>& captured,
                        const imp::Loop& l, const Nest* nest, const std::string& inner_head,
                        CudaKernelInfo& info, const std::string& version);
  /// A nest's body in a thread: its pure prefix, the inner bound's check, then
  /// `inner_head` (which opens a block defining the inner iterator) and the inner body.
  void nest_body(const Nest& nest, const std::string& inner_head, std::string& body, int indent);

  /// An outermost IMP kernel: a __global__ function over the grid and its launch (and,
  /// for a nest, its other versions and the tuning tree that chooses between them).
  void launch(const imp::Loop& l, Pos pos, std::string& out, int indent);
  /// Enters the body of a __global__ function of `info` (device code, its stores
  /// recorded, the captured names and the iterator declared); returns what to pass to
  /// leave_function.
  bool enter_function(CudaKernelInfo& info, const std::string& name, const std::string& version,
                      const imp::Loop& l,
                      const std::vector<std::pair<std::string, VarInfo>>& captured);
  void leave_function(bool was_device);

  // Comprehensive parametric kernels (codegen/parametric.cpp, codegen/parametric_nest.cpp).
  struct TileInfo {
    CudaTile tile;
    const imp::Read* first = nullptr; // the read at the tile's lowest offset
    std::vector<const imp::Read*> reads;
    std::vector<int64_t> shift; // two-dimensional: per read, its offset above the first's
  };
  /// A read served by tile `tile`: through fm_ld_tile, or fm_ld_tile2 at `cell` (C text).
  struct TileRead {
    size_t tile = 0;
    std::string cell;
  };
  std::map<const imp::Read*, TileRead> tile_reads_;
  static std::vector<TileInfo> find_tiles(const imp::Loop& l);
  std::string par_kernel_fn(const std::string& name, const std::string& sig, Pos pos,
                            const std::string& copies,
                            const std::vector<std::pair<std::string, VarInfo>>& captured,
                            const imp::Loop& l, const std::vector<TileInfo>& tiles,
                            CudaKernelInfo& info, const CudaVariant& v);
  void parametric_variants(const imp::Loop& l, Pos pos, const std::string& sig,
                           const std::string& copies,
                           const std::vector<std::pair<std::string, VarInfo>>& captured,
                           CudaKernelInfo& k);
  std::string parametric_launch(const CudaKernelInfo& k, const std::vector<CudaLeaf>& leaves,
                                const std::string& args, const std::string& p,
                                const std::string& where_text);
  // A nest's variants: blocks of B0 x B1 threads (blockDim.y x blockDim.x) over rows and
  // columns of chunks, s inner iterations per thread, two-dimensional tiles.
  std::vector<TileInfo> find_tiles2(const imp::Loop& l, const Nest& nest) const;
  /// The loads of the tiles into shared memory, each cell from the first read's index at
  /// its iteration (outer iterator `i`, inner `j`), and the barrier after them.
  std::string tile_loads2(const std::vector<TileInfo>& tiles, const std::string& copies,
                          const std::string& i, const std::string& j, const std::string& q);
  /// A nest whose inner body is scalar work, one sequential loop over q with an
  /// invariant bound, then the rest: the loop's reads reused across a block's rows or
  /// columns become tiles over strips of B0 values of q, loaded between barriers, and
  /// the scalars the inner body declares before the loop are kept in shared memory
  /// across them (codegen/parametric_strip.cpp).
  struct Strip {
    size_t at = 0; // the loop's place in the inner body
    const imp::Loop* loop = nullptr;
    std::vector<TileInfo> tiles; // Rows / Columns tiles, then the State one
    std::vector<std::pair<std::string, VarInfo>> state;
  };
  std::optional<Strip> find_strip(const imp::Loop& l, const Nest& nest) const;
  std::string strip_kernel_fn(const std::string& name, const std::string& sig, Pos pos,
                              const std::string& copies,
                              const std::vector<std::pair<std::string, VarInfo>>& captured,
                              const imp::Loop& l, const Nest& nest, const Strip& strip,
                              CudaKernelInfo& info, const CudaVariant& v);
  /// A nest's variant up to its chunk loops' bodies (`what` describes it, `decls` its
  /// tiles' sizes).
  std::string nest_kernel_head(const std::string& name, const std::string& sig, Pos pos,
                               const CudaVariant& v, const std::string& what,
                               const std::string& decls) const;
  /// One phase of a nest's variant: every iteration of the thread's rounds, with the
  /// nest's prefix and the inner iterator, then `inner` (generated in that scope).
  std::string nest_phase(const imp::Loop& l, const Nest& nest, const std::string& copies,
                         const std::function<void(std::string&, int)>& inner);
  std::string par2_kernel_fn(const std::string& name, const std::string& sig, Pos pos,
                             const std::string& copies,
                             const std::vector<std::pair<std::string, VarInfo>>& captured,
                             const imp::Loop& l, const Nest& nest,
                             const std::vector<TileInfo>& tiles, CudaKernelInfo& info,
                             const CudaVariant& v);
  void parametric_variants2(const imp::Loop& l, const Nest& nest, Pos pos, const std::string& sig,
                            const std::string& copies,
                            const std::vector<std::pair<std::string, VarInfo>>& captured,
                            CudaKernelInfo& k);
  /// Every variant of kernel `k` (with and without its tiles when `tiled`, each under
  /// every register cap), named fm_kernel_K_<suffix>[c][_rN], its text from `make`.
  void emit_variants(CudaKernelInfo& k, bool tiled, const std::string& suffix,
                     const std::function<std::string(const CudaVariant&)>& make);
  /// The variants' declarations of the tiles' lengths, places and use (fm_lenK, fm_atK,
  /// fm_useK); `e0` / `e1` give a two-dimensional tile's rows and columns.
  static std::string tile_decls(const std::vector<TileInfo>& tiles, const imp::Loop& l, bool two);
};

} // namespace funmem::codegen
