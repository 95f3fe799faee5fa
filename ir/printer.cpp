// Printer for FUN / FUNMEM (see printer.h). Parenthesises scalar expressions
// minimally by precedence; prints every element type explicitly.
#include "ir/printer.h"
#include "ir/overloaded.h"

#include <charconv>
#include <sstream>

namespace funmem {

namespace {

std::string float_text(double v, bool f32) {
  char buf[64];
  auto r = f32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
               : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find('.') == std::string::npos) {
    auto e = s.find('e');
    if (e == std::string::npos)
      s += ".0";
    else
      s.insert(e, ".0");
  }
  return s;
}

int sexp_prec(const SExp& e) {
  if (auto* b = std::get_if<SBinary>(&e.node)) return binop_prec(b->op);
  return 10;
}

std::string pad(int n) {
  return std::string(static_cast<size_t>(n), ' ');
}

std::string names(const std::vector<Name>& ns) {
  std::string s;
  for (size_t i = 0; i < ns.size(); ++i)
    s += (i ? ", " : "") + ns[i].s;
  return s;
}

std::string atom_text(const AtomArg& a) {
  return std::visit(Overloaded{[](const Name& n) { return n.s; },
                               [](const Lit& l) {
                                 std::string s = print_lit(l);
                                 return s[0] == '-' ? "(" + s + ")" : s;
                               }},
                    a.v);
}

std::string binding_text(const Binding& b) {
  if (!b.type) return b.name.s;
  return "(" + b.name.s + " : " + print_type(*b.type) + ")";
}

std::string bindings_text(const std::vector<Binding>& bs) {
  std::string s;
  for (size_t i = 0; i < bs.size(); ++i)
    s += (i ? " " : "") + binding_text(bs[i]);
  return s;
}

std::string stmt_text(const Stmt& s, int indent) {
  return std::visit(Overloaded{[&](const SLet& l) {
                                 return pad(indent) + "let " + bindings_text(l.pats) + " = " +
                                        print_exp(l.exp, indent) + "\n";
                               },
                               [&](const SAssume& a) {
                                 if (a.kind != "assume")
                                   return pad(indent) + "assert " + print_sexp(*a.cond) + " " +
                                          a.kind + "\n";
                                 return pad(indent) + "assume " + print_sexp(*a.cond) + "\n";
                               }},
                    s.node);
}

} // namespace

std::string print_lit(const Lit& l) {
  switch (l.type) {
  case ScalarType::I64:
    return std::to_string(l.i);
  case ScalarType::I32:
    return std::to_string(l.i) + "i32";
  case ScalarType::F32:
    return float_text(l.f, true) + "f32";
  case ScalarType::F64:
    return float_text(l.f, false);
  case ScalarType::Bool:
    return l.i ? "true" : "false";
  }
  return "?";
}

std::string print_sexp(const SExp& e) {
  return std::visit(
      Overloaded{[](const Lit& l) { return print_lit(l); }, [](const SVar& v) { return v.name; },
                 [](const SUnary& u) {
                   const SExp& a = *u.a;
                   bool bare = std::holds_alternative<SVar>(a.node) ||
                               std::holds_alternative<SCall>(a.node) ||
                               (u.op == UnOp::Not && std::holds_alternative<Lit>(a.node));
                   std::string inner = print_sexp(a);
                   return std::string(u.op == UnOp::Neg ? "-" : "!") +
                          (bare ? inner : "(" + inner + ")");
                 },
                 [](const SBinary& b) {
                   int p = binop_prec(b.op);
                   std::string l = print_sexp(*b.a), r = print_sexp(*b.b);
                   if (sexp_prec(*b.a) < p) l = "(" + l + ")";
                   if (sexp_prec(*b.b) <= p) r = "(" + r + ")";
                   return l + " " + binop_text(b.op) + " " + r;
                 },
                 [](const SCall& c) {
                   std::string s = std::string(fn_name(c.fn)) + "(";
                   for (size_t i = 0; i < c.args.size(); ++i)
                     s += (i ? ", " : "") + print_sexp(*c.args[i]);
                   return s + ")";
                 }},
      e.node);
}

std::string print_lmad(const LmadSyn& l) {
  std::string s;
  switch (l.form) {
  case LmadSyn::Form::Row:
  case LmadSyn::Form::Col:
    s = l.form == LmadSyn::Form::Row ? "R(" : "C(";
    for (size_t i = 0; i < l.args.size(); ++i)
      s += (i ? ", " : "") + print_sexp(*l.args[i]);
    return s + ")";
  case LmadSyn::Form::Explicit:
    s = print_sexp(*l.offset) + " + {";
    for (size_t i = 0; i < l.dims.size(); ++i)
      s += (i ? ", (" : "(") + print_sexp(*l.dims[i].first) + " : " +
           print_sexp(*l.dims[i].second) + ")";
    return s + "}";
  }
  return s;
}

std::string print_type(const Type& t) {
  switch (t.kind) {
  case Type::Kind::Scalar:
    return scalar_type_name(t.elem);
  case Type::Kind::Mem:
    return "mem";
  case Type::Kind::Array: {
    std::string s;
    for (const SExpP& d : t.dims)
      s += "[" + print_sexp(*d) + "]";
    s += scalar_type_name(t.elem);
    if (t.ann) s += " @" + t.ann->mem.s + " -> " + print_lmad(t.ann->lmad);
    return s;
  }
  }
  return "?";
}

std::string print_entries(const std::vector<Entry>& es) {
  std::string s = "[";
  for (size_t i = 0; i < es.size(); ++i) {
    if (i) s += ", ";
    s += print_sexp(*es[i].start);
    if (es[i].count) s += " : " + print_sexp(*es[i].count);
    if (es[i].stride) s += " : " + print_sexp(*es[i].stride);
  }
  return s + "]";
}

std::string print_body(const Body& b, int indent) {
  std::string s;
  for (const Stmt& st : b.stmts)
    s += stmt_text(st, indent);
  return s + pad(indent) + "in (" + names(b.results) + ")";
}

std::string print_exp(const Exp& e, int indent) {
  return std::visit(
      Overloaded{[](const EScalar& x) { return print_sexp(*x.e); },
                 [](const EIndex& x) { return x.arr.s + print_entries(x.entries); },
                 [](const ELmadSlice& x) { return x.arr.s + "[" + print_lmad(x.lmad) + "]"; },
                 [](const ETranspose& x) { return "transpose " + x.arr.s; },
                 [&](const EIf& x) {
                   return "if " + print_sexp(*x.cond) + " then\n" +
                          print_body(x.then_body, indent + 2) + "\n" + pad(indent) + "else\n" +
                          print_body(x.else_body, indent + 2);
                 },
                 [&](const EKernel& x) {
                   return "kernel " + x.iter.s + " < " + print_sexp(*x.bound) + " do\n" +
                          print_body(x.body, indent + 2);
                 },
                 [&](const ELoop& x) {
                   return "loop " + bindings_text(x.params) + " = (" + names(x.inits) + ") for " +
                          x.iter.s + " < " + print_sexp(*x.bound) + " do\n" +
                          print_body(x.body, indent + 2);
                 },
                 [](const EUpdate& x) {
                   return x.arr.s + " with " + print_entries(x.entries) + " = " +
                          atom_text(x.value);
                 },
                 [](const EUpdateLmad& x) {
                   return x.arr.s + " with [" + print_lmad(x.lmad) + "] = " + x.value.s;
                 },
                 [](const EConcat& x) { return "concat " + x.a.s + " " + x.b.s; },
                 [](const EIota& x) { return "iota " + print_sexp(*x.n); },
                 [](const EReplicate& x) {
                   std::string n = print_sexp(*x.n);
                   // The count is followed by an atom: parenthesise unless it is a plain term.
                   auto* v = std::get_if<SVar>(&x.n->node);
                   bool fn_like = v && (v->name == "min" || v->name == "max" || v->name == "abs" ||
                                        v->name == "select");
                   if ((!v && !std::holds_alternative<Lit>(x.n->node)) || fn_like)
                     n = "(" + n + ")";
                   return "replicate " + n + " " + atom_text(x.value);
                 },
                 [](const ECopy& x) { return "copy " + x.arr.s; },
                 [](const EScratch&) { return std::string("scratch"); },
                 [](const EAlloc& x) { return "alloc " + print_sexp(*x.size); }},
      e.node);
}

std::string print_input_value(const InputValue& v) {
  switch (v.kind) {
  case InputValue::Kind::Scalar:
    return print_lit(v.scalar);
  case InputValue::Kind::Iota:
    return "iota";
  case InputValue::Kind::Zeros:
    return "zeros";
  case InputValue::Kind::Random:
    return "random";
  case InputValue::Kind::Array: {
    std::string s = "[";
    for (size_t i = 0; i < v.elems.size(); ++i)
      s += (i ? ", " : "") + print_input_value(v.elems[i]);
    return s + "]";
  }
  }
  return "?";
}

std::string print_program(const Program& p) {
  const Def& d = p.def;
  std::string s = "def " + d.name.s;
  for (const Binding& b : d.params)
    s += " " + binding_text(b);
  s += " : (";
  for (size_t i = 0; i < d.rets.size(); ++i)
    s += (i ? ", " : "") + print_type(d.rets[i]);
  s += ") =\n" + print_body(d.body, 2) + "\n";
  for (const InputSet& in : p.inputs) {
    s += "-- input:";
    for (const auto& [n, v] : in.values)
      s += " " + n.s + "=" + print_input_value(v);
    s += "\n";
  }
  for (const Expect& e : p.expects)
    s += "-- expect: " + e.word + (e.arg.empty() ? "" : " " + e.arg) + "\n";
  return s;
}

} // namespace funmem
