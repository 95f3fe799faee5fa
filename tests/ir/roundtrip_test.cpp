// Property test: randomly generated ASTs (not necessarily well-typed) print to text
// that parses back to an equal AST, and printing is a fixed point.
#include "ir/parser.h"
#include "ir/printer.h"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

using namespace funmem;

namespace {

Name gen_name() {
  return Name{*rc::gen::element<std::string>("x", "ys", "n", "m", "i", "xs'", "R", "C", "mem0",
                                             "_t1", "min", "b2"),
              {}};
}

Lit gen_lit() {
  switch (*rc::gen::inRange(0, 6)) {
  case 0:
    return Lit{ScalarType::I64, *rc::gen::inRange<int64_t>(-1000, 1000), 0};
  case 1:
    return Lit{ScalarType::I32, *rc::gen::inRange<int64_t>(-50, 50), 0};
  case 2:
    return Lit{ScalarType::F32, 0,
               static_cast<double>(*rc::gen::element(0.5f, -1.25f, 3.0f, 1e-3f, 2.5e10f))};
  case 3:
    return Lit{ScalarType::F64, 0, *rc::gen::element(0.1, -7.0, 1e300, 6.02e23, 0.0)};
  case 4:
    return Lit{ScalarType::Bool, *rc::gen::inRange<int64_t>(0, 2), 0};
  default:
    return Lit{ScalarType::I64, *rc::gen::element<int64_t>(INT64_MIN, INT64_MAX, 0, 1), 0};
  }
}

SExpP gen_sexp(int depth) {
  int k = *rc::gen::inRange(0, depth <= 0 ? 2 : 6);
  switch (k) {
  case 0:
    return mk_lit(gen_lit());
  case 1: {
    Name n = gen_name();
    if (n.s == "min") n.s = "mx"; // a function name followed by '(' would be a call
    return mk_var(n.s);
  }
  case 2:
    return SExp{SUnary{*rc::gen::element(UnOp::Neg, UnOp::Not), gen_sexp(depth - 1)}, {}};
  case 3:
  case 4: {
    BinOp op = *rc::gen::element(BinOp::Or, BinOp::And, BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le,
                                 BinOp::Gt, BinOp::Ge, BinOp::Add, BinOp::Sub, BinOp::Mul,
                                 BinOp::Div, BinOp::Mod);
    return mk_bin(op, gen_sexp(depth - 1), gen_sexp(depth - 1));
  }
  default: {
    Fn f = *rc::gen::element(Fn::Min, Fn::Max, Fn::Abs, Fn::Select, Fn::ToI64, Fn::ToI32, Fn::ToF32,
                             Fn::ToF64);
    size_t n = f == Fn::Min || f == Fn::Max ? 2 : f == Fn::Select ? 3 : 1;
    std::vector<SExpP> args;
    for (size_t i = 0; i < n; ++i)
      args.push_back(gen_sexp(depth - 1));
    return SExp{SCall{f, args}, {}};
  }
  }
}

LmadSyn gen_lmad() {
  LmadSyn l;
  l.form = *rc::gen::element(LmadSyn::Form::Explicit, LmadSyn::Form::Row, LmadSyn::Form::Col);
  int n = *rc::gen::inRange(l.form == LmadSyn::Form::Explicit ? 0 : 1, 3);
  if (l.form == LmadSyn::Form::Explicit) {
    l.offset = gen_sexp(2);
    for (int i = 0; i < n; ++i)
      l.dims.emplace_back(gen_sexp(1), gen_sexp(1));
  } else {
    for (int i = 0; i < n; ++i)
      l.args.push_back(gen_sexp(1));
  }
  return l;
}

Type gen_type() {
  Type t;
  t.kind = *rc::gen::element(Type::Kind::Scalar, Type::Kind::Mem, Type::Kind::Array);
  t.elem = *rc::gen::element(ScalarType::I64, ScalarType::I32, ScalarType::F32, ScalarType::F64,
                             ScalarType::Bool);
  if (t.kind == Type::Kind::Mem) t.elem = ScalarType::I64;
  if (t.kind == Type::Kind::Array) {
    int n = *rc::gen::inRange(1, 3);
    for (int i = 0; i < n; ++i)
      t.dims.push_back(gen_sexp(1));
    if (*rc::gen::arbitrary<bool>()) t.ann = MemAnn{gen_name(), gen_lmad()};
  }
  return t;
}

std::vector<Entry> gen_entries() {
  std::vector<Entry> es;
  int n = *rc::gen::inRange(1, 3);
  for (int i = 0; i < n; ++i) {
    Entry e;
    e.start = gen_sexp(1);
    if (*rc::gen::arbitrary<bool>()) {
      e.count = gen_sexp(1);
      if (*rc::gen::arbitrary<bool>()) e.stride = gen_sexp(1);
    }
    es.push_back(e);
  }
  return es;
}

AtomArg gen_atom() {
  if (*rc::gen::arbitrary<bool>()) return AtomArg{gen_name(), {}};
  return AtomArg{gen_lit(), {}};
}

Binding gen_binding() {
  return Binding{gen_name(), gen_type()};
}

Body gen_body(int depth);

Exp gen_exp(int depth) {
  int k = *rc::gen::inRange(0, depth <= 0 ? 11 : 15);
  switch (k) {
  case 0:
    return Exp{EScalar{gen_sexp(3)}, {}};
  case 1:
    return Exp{EIndex{gen_name(), gen_entries()}, {}};
  case 2:
    return Exp{ELmadSlice{gen_name(), gen_lmad()}, {}};
  case 3:
    return Exp{ETranspose{gen_name()}, {}};
  case 4:
    return Exp{EUpdate{gen_name(), gen_entries(), gen_atom()}, {}};
  case 5:
    return Exp{EUpdateLmad{gen_name(), gen_lmad(), gen_name()}, {}};
  case 6:
    return Exp{EConcat{gen_name(), gen_name()}, {}};
  case 7:
    return Exp{EIota{gen_sexp(2)}, {}};
  case 8:
    return Exp{EReplicate{gen_sexp(2), gen_atom()}, {}};
  case 9:
    return Exp{ECopy{gen_name()}, {}};
  case 10:
    return Exp{*rc::gen::arbitrary<bool>() ? Exp{EScratch{}, {}} : Exp{EAlloc{gen_sexp(2)}, {}}};
  case 11:
    return Exp{EIf{gen_sexp(2), gen_body(depth - 1), gen_body(depth - 1)}, {}};
  case 12:
    return Exp{EKernel{gen_name(), gen_sexp(1), gen_body(depth - 1)}, {}};
  default: {
    ELoop l;
    int n = *rc::gen::inRange(1, 3);
    for (int i = 0; i < n; ++i) {
      l.params.push_back(gen_binding());
      l.inits.push_back(gen_name());
    }
    l.iter = gen_name();
    l.bound = gen_sexp(1);
    l.body = gen_body(depth - 1);
    return Exp{l, {}};
  }
  }
}

Body gen_body(int depth) {
  Body b;
  int n = *rc::gen::inRange(0, 4);
  for (int i = 0; i < n; ++i) {
    if (*rc::gen::inRange(0, 5) == 0) {
      b.stmts.push_back(Stmt{SAssume{gen_sexp(2)}, {}});
      continue;
    }
    SLet l;
    if (*rc::gen::arbitrary<bool>()) {
      l.pats.push_back(Binding{gen_name(), std::nullopt});
    } else {
      int m = *rc::gen::inRange(1, 3);
      for (int j = 0; j < m; ++j)
        l.pats.push_back(gen_binding());
    }
    l.exp = gen_exp(depth);
    b.stmts.push_back(Stmt{l, {}});
  }
  int r = *rc::gen::inRange(0, 3);
  for (int i = 0; i < r; ++i)
    b.results.push_back(gen_name());
  return b;
}

InputValue gen_input(int depth) {
  InputValue v;
  int k = *rc::gen::inRange(0, depth <= 0 ? 4 : 5);
  if (k == 4) {
    v.kind = InputValue::Kind::Array;
    int n = *rc::gen::inRange(0, 3);
    for (int i = 0; i < n; ++i)
      v.elems.push_back(gen_input(depth - 1));
  } else if (k == 0 || k == 3) {
    v.scalar = gen_lit();
  } else {
    v.kind = *rc::gen::element(InputValue::Kind::Iota, InputValue::Kind::Zeros,
                               InputValue::Kind::Random);
  }
  return v;
}

Program gen_program() {
  Program p;
  p.lang = *rc::gen::element(Lang::Fun, Lang::FunMem);
  p.def.name = gen_name();
  int n = *rc::gen::inRange(0, 3);
  for (int i = 0; i < n; ++i)
    p.def.params.push_back(gen_binding());
  int r = *rc::gen::inRange(1, 3);
  for (int i = 0; i < r; ++i)
    p.def.rets.push_back(gen_type());
  p.def.body = gen_body(2);
  int ni = *rc::gen::inRange(0, 2);
  for (int i = 0; i < ni; ++i)
    p.inputs.push_back(InputSet{{{gen_name(), gen_input(2)}}, {}});
  p.expects.push_back(*rc::gen::element(Expect{"valid", "", {}}, Expect{"error", "type", {}},
                                        Expect{"short-circuit", "2", {}}, Expect{"race", "", {}}));
  return p;
}

} // namespace

TEST_CASE("print then parse gives the same AST", "[ir][printer][property]") {
  rc::prop("parse(print(p)) == p", [] {
    Program p = gen_program();
    std::string text = print_program(p);
    RC_LOG() << text;
    ParseResult r = parse_program(text, p.lang);
    if (r.error)
      RC_LOG() << "error: " << r.error->pos.line << ":" << r.error->pos.col << " "
               << r.error->message;
    RC_ASSERT(r.program.has_value());
    RC_ASSERT(*r.program == p);
    RC_ASSERT(print_program(*r.program) == text);
  });
}

TEST_CASE("fragments round-trip", "[ir][printer][property]") {
  rc::prop("scalar expressions", [] {
    SExpP e = gen_sexp(4);
    std::string text = print_sexp(*e);
    RC_LOG() << text;
    auto back = parse_sexp(text);
    RC_ASSERT(back.has_value());
    RC_ASSERT(**back == *e);
  });
  rc::prop("types", [] {
    Type t = gen_type();
    auto back = parse_type(print_type(t));
    RC_ASSERT(back.has_value());
    RC_ASSERT(*back == t);
  });
}
