// Boost.Spirit X3 grammar for FUN / FUNMEM (docs/syntax.md). Rules build the AST of
// ir/ast.h through semantic actions; the expectation operator `>` marks the places
// where a mismatch is a real error, and each rule has a name a user understands, so
// a failure reads `expected a type here`. Before parsing, the text is screened for
// bytes outside ASCII and for nesting deeper than the parser's recursion can take.
#include "ir/parser.h"

#include "ir/lexical.h"
#include "ir/scalar_types.h"

#include <boost/fusion/include/at_c.hpp>
#include <boost/spirit/home/x3.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

namespace funmem {

namespace x3 = boost::spirit::x3;
using boost::fusion::at_c;
using It = std::string::const_iterator;

namespace {

/// Raised by semantic actions for errors the grammar cannot express (a literal out
/// of range, a wrong number of arguments).
struct ActionError {
  It where;
  std::string message;
};

/// Source information reachable from semantic actions through x3::with.
struct Source {
  Source(It b, It e) : begin(b), end(e) {
    for (It i = b; i != e; ++i)
      if (*i == '\n') line_starts.push_back(static_cast<size_t>(i - b) + 1);
  }
  It begin, end;
  std::vector<size_t> line_starts{0}; // offsets at which lines begin
  Pos at(It it) const {
    // Skip the whitespace and comments that X3 skips before the matched text.
    while (it != end) {
      if (*it == ' ' || *it == '\t' || *it == '\n' || *it == '\r') {
        ++it;
      } else if (*it == '-' && it + 1 != end && *(it + 1) == '-') {
        while (it != end && *it != '\n')
          ++it;
      } else {
        break;
      }
    }
    size_t off = static_cast<size_t>(it - begin);
    size_t line = static_cast<size_t>(
        std::upper_bound(line_starts.begin(), line_starts.end(), off) - line_starts.begin());
    return Pos{static_cast<int>(line), static_cast<int>(off - line_starts[line - 1]) + 1};
  }
};
struct source_tag;

/// Text of a numeric literal with where it starts (for range errors).
struct NumText {
  std::string text;
  It where;
};
/// A built-in function name with where it starts (for arity errors).
struct FnAt {
  Fn fn = Fn::Min;
  It where;
};

/// Nodes with a `pos` member get it set; boxed scalar expressions are rebuilt.
template <class T> void set_pos(T& node, Pos p) {
  node.pos = p;
}
void set_pos(SExpP& e, Pos p) {
  if (e) e = SExp{e->node, p};
}
void set_pos(Pos& q, Pos p) {
  q = p;
}

/// Rule ids deriving from Annotate get the position of the first matched character
/// (after skipping) written into their attribute; X3 calls on_success after a match.
struct Annotate {
  template <class Iter, class Attr, class Ctx>
  void on_success(const Iter& first, const Iter&, Attr& attr, const Ctx& ctx) const {
    const Source& s = x3::get<source_tag>(ctx).get();
    if constexpr (!std::is_same_v<std::decay_t<Attr>, x3::unused_type>) set_pos(attr, s.at(first));
  }
};
struct AnnotateIter {
  template <class Iter, class Attr, class Ctx>
  void on_success(const Iter& first, const Iter&, Attr& attr, const Ctx&) const {
    if constexpr (!std::is_same_v<std::decay_t<Attr>, x3::unused_type>) attr.where = first;
  }
};
// Rule tags are named as Spirit X3 names its own (`rule_tag`, `rule_def`).
// NOLINTBEGIN(readability-identifier-naming)
struct number_tag : AnnotateIter {};
struct fn_tag : AnnotateIter {};
struct name_tag : Annotate {};
struct sexp_un_tag : Annotate {};
struct sexp_atom_tag : Annotate {};
struct lmad_tag : Annotate {};
struct type_tag : Annotate {};
struct atom_tag : Annotate {};
struct exp_tag : Annotate {};
struct stmt_tag : Annotate {};
struct def_tag : Annotate {};
struct in_pos_tag : Annotate {};
// NOLINTEND(readability-identifier-naming)

const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {
      "def",    "let",     "in",        "assume", "assert", "if",     "then",  "else",
      "kernel", "loop",    "for",       "do",     "with",   "concat", "iota",  "replicate",
      "copy",   "scratch", "transpose", "alloc",  "mem",    "true",   "false", "i64",
      "int",    "i32",     "f32",       "f64",    "bool"};
  return k;
}

// -------------------------------------------------------------------- lexical

const auto idchar = x3::alnum | x3::char_('_') | x3::char_('\'');
const auto skipper = x3::space | (x3::lit("--") >> *(x3::char_ - x3::eol));

#define FM_KW(var, text)                                                                           \
  const x3::rule<struct var##_tag> var = "'" text "'";                                             \
  const auto var##_def = x3::lexeme[x3::lit(text) >> !idchar];                                     \
  BOOST_SPIRIT_DEFINE(var)

FM_KW(kw_def, "def");
FM_KW(kw_let, "let");
FM_KW(kw_in, "in");
FM_KW(kw_assume, "assume");
FM_KW(kw_assert, "assert");
FM_KW(kw_if, "if");
FM_KW(kw_then, "then");
FM_KW(kw_else, "else");
FM_KW(kw_kernel, "kernel");
FM_KW(kw_loop, "loop");
FM_KW(kw_for, "for");
FM_KW(kw_do, "do");
FM_KW(kw_with, "with");
FM_KW(kw_concat, "concat");
FM_KW(kw_iota, "iota");
FM_KW(kw_replicate, "replicate");
FM_KW(kw_copy, "copy");
FM_KW(kw_scratch, "scratch");
FM_KW(kw_transpose, "transpose");
FM_KW(kw_alloc, "alloc");
FM_KW(kw_mem, "mem");

struct ScalarTypes : x3::symbols<ScalarType> {
  ScalarTypes() {
    add("i64", ScalarType::I64)("int", ScalarType::I64)("i32", ScalarType::I32)(
        "f32", ScalarType::F32)("f64", ScalarType::F64)("bool", ScalarType::Bool);
  }
} const scalar_types;

struct Fns : x3::symbols<Fn> {
  Fns() {
    add("min", Fn::Min)("max", Fn::Max)("abs", Fn::Abs)("select", Fn::Select)("i64", Fn::ToI64)(
        "i32", Fn::ToI32)("f32", Fn::ToF32)("f64", Fn::ToF64);
  }
} const fns;

struct CmpOps : x3::symbols<BinOp> {
  CmpOps() {
    add("==", BinOp::Eq)("!=", BinOp::Ne)("<", BinOp::Lt)("<=", BinOp::Le)(">", BinOp::Gt)(
        ">=", BinOp::Ge);
  }
} const cmp_ops;

struct AddOps : x3::symbols<BinOp> {
  AddOps() { add("+", BinOp::Add)("-", BinOp::Sub); }
} const add_ops;

struct MulOps : x3::symbols<BinOp> {
  MulOps() { add("*", BinOp::Mul)("/", BinOp::Div)("%", BinOp::Mod); }
} const mul_ops;

/// The error kinds an `assert` may end a run with.
struct CheckKinds : x3::symbols<std::string> {
  CheckKinds() {
    for (const char* k : {"bounds", "size", "overflow", "division", "assume"})
      add(k, k);
  }
} const check_kinds;
const x3::rule<struct check_kind_tag, std::string> check_kind =
    "an error kind (bounds, size, overflow, division or assume)";
const auto check_kind_def = x3::lexeme[check_kinds >> !idchar];
BOOST_SPIRIT_DEFINE(check_kind)

/// Converts the text of a numeric literal (with an optional leading '-') to a Lit.
Lit make_number(const std::string& text, bool negative, It where) {
  std::string digits = text;
  ScalarType t = ScalarType::I64;
  auto ends_with = [&](const char* suf) {
    return digits.size() > 3 && digits.compare(digits.size() - 3, 3, suf) == 0;
  };
  bool suffixed = false;
  for (auto [suf, st] : {std::pair{"i64", ScalarType::I64}, std::pair{"i32", ScalarType::I32},
                         std::pair{"f32", ScalarType::F32}, std::pair{"f64", ScalarType::F64}}) {
    if (ends_with(suf)) {
      digits.resize(digits.size() - 3);
      t = st;
      suffixed = true;
      break;
    }
  }
  const bool is_float_text = digits.find_first_of(".eE") != std::string::npos;
  if (!suffixed && is_float_text) t = ScalarType::F64;
  if (is_float_text && is_integer(t))
    throw ActionError{where, "a float literal cannot have an integer suffix"};
  Lit l;
  l.type = t;
  if (is_integer(t)) {
    errno = 0;
    char* endp = nullptr;
    unsigned long long u = std::strtoull(digits.c_str(), &endp, 10);
    bool range_err = errno == ERANGE;
    unsigned long long limit = t == ScalarType::I64 ? 9223372036854775807ULL : 2147483647ULL;
    if (range_err || u > limit + (negative ? 1 : 0))
      throw ActionError{where,
                        std::string("integer literal out of range for ") + scalar_type_name(t)};
    l.i = negative ? static_cast<int64_t>(0ULL - u) : static_cast<int64_t>(u);
  } else {
    std::string s = (negative ? "-" : "") + digits;
    errno = 0;
    double v = t == ScalarType::F32 ? static_cast<double>(std::strtof(s.c_str(), nullptr))
                                    : std::strtod(s.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(v))
      throw ActionError{where,
                        std::string("float literal out of range for ") + scalar_type_name(t)};
    l.f = v;
  }
  return l;
}

// -------------------------------------------------------------------- rules

const x3::rule<struct ident_tag, std::string> ident = "a name";
const x3::rule<name_tag, Name> name = "a name";
const x3::rule<struct name_impl_tag, Name> name_impl = "a name";

const x3::rule<number_tag, NumText> number_text = "a number";
const x3::rule<struct number_text_impl_tag, NumText> number_text_impl = "a number";

const x3::rule<struct literal_tag, Lit> literal = "a literal";
const x3::rule<struct signed_literal_tag, Lit> signed_literal = "a literal";
const x3::rule<struct sexp_tag, SExpP> sexp = "a scalar expression";
const x3::rule<struct sexp_and_tag, SExpP> sexp_and = "a scalar expression";
const x3::rule<struct sexp_cmp_tag, SExpP> sexp_cmp = "a scalar expression";
const x3::rule<struct sexp_add_tag, SExpP> sexp_add = "a scalar expression";
const x3::rule<struct sexp_mul_tag, SExpP> sexp_mul = "a scalar expression";
const x3::rule<sexp_un_tag, SExpP> sexp_un = "a scalar expression";
const x3::rule<struct sexp_un_impl_tag, SExpP> sexp_un_impl = "a scalar expression";

const x3::rule<sexp_atom_tag, SExpP> sexp_atom = "a scalar expression";
const x3::rule<struct sexp_atom_impl_tag, SExpP> sexp_atom_impl = "a scalar expression";

const x3::rule<struct lmad_dim_tag, std::pair<SExpP, SExpP>> lmad_dim =
    "an LMAD dimension '(count : stride)'";
const x3::rule<lmad_tag, LmadSyn> lmad = "an LMAD";
const x3::rule<struct lmad_impl_tag, LmadSyn> lmad_impl = "an LMAD";

const x3::rule<type_tag, Type> type = "a type";
const x3::rule<struct type_impl_tag, Type> type_impl = "a type";

const x3::rule<struct binding_tag, Binding> binding = "a binding '(name : type)'";
const x3::rule<struct entry_tag, Entry> entry = "an index or a slice";
const x3::rule<atom_tag, AtomArg> atom = "a name or a literal";
const x3::rule<struct atom_impl_tag, AtomArg> atom_impl = "a name or a literal";

const x3::rule<exp_tag, Exp> exp = "an expression";
const x3::rule<struct exp_impl_tag, Exp> exp_impl = "an expression";

const x3::rule<stmt_tag, Stmt> stmt = "a statement";
const x3::rule<struct stmt_impl_tag, Stmt> stmt_impl = "a statement";

const x3::rule<struct body_tag, Body> body = "a body";
const x3::rule<struct body_tail_tag, Body> body_tail = "'in'";
const x3::rule<def_tag, Def> def = "a definition";
const x3::rule<struct def_impl_tag, Def> def_impl = "a definition";

const x3::rule<struct input_value_tag, InputValue> input_value = "an input value";
const x3::rule<fn_tag, FnAt> fn_name_p = "a function name";
const x3::rule<struct fn_name_p_impl_tag, FnAt> fn_name_p_impl = "a function name";

const x3::rule<in_pos_tag, Pos> in_pos = "'in'";
const x3::rule<struct in_pos_impl_tag, Pos> in_pos_impl = "'in'";

const auto ident_def = x3::raw[x3::lexeme[(x3::alpha | x3::char_('_')) >> *idchar]][([](auto& ctx) {
  std::string s(x3::_attr(ctx).begin(), x3::_attr(ctx).end());
  if (keywords().count(s))
    x3::_pass(ctx) = false;
  else
    x3::_val(ctx) = std::move(s);
})];

const auto name_impl_def = ident[([](auto& ctx) { x3::_val(ctx) = Name{x3::_attr(ctx), Pos{}}; })];

const auto fn_name_p_impl_def =
    x3::lexeme[fns >> !idchar][([](auto& ctx) { x3::_val(ctx).fn = x3::_attr(ctx); })];
const auto in_pos_impl_def = kw_in[([](auto& ctx) { x3::_val(ctx) = Pos{}; })];

const auto number_text_impl_def =
    x3::raw[x3::lexeme[+x3::digit >> -('.' >> +x3::digit) >>
                       -(x3::char_("eE") >> -x3::char_("+-") >> +x3::digit) >>
                       -(x3::lit("i64") | "i32" | "f32" | "f64") >> !idchar]][([](auto& ctx) {
      x3::_val(ctx).text = std::string(x3::_attr(ctx).begin(), x3::_attr(ctx).end());
    })];

const auto literal_def = number_text[([](auto& ctx) {
                           x3::_val(ctx) =
                               make_number(x3::_attr(ctx).text, false, x3::_attr(ctx).where);
                         })] |
                         x3::lexeme[x3::lit("true") >> !idchar][([](auto& ctx) {
                           x3::_val(ctx) = Lit{ScalarType::Bool, 1, 0};
                         })] |
                         x3::lexeme[x3::lit("false") >> !idchar][([](auto& ctx) {
                           x3::_val(ctx) = Lit{ScalarType::Bool, 0, 0};
                         })];

const auto signed_literal_def = (x3::lit('-') >> number_text)[([](auto& ctx) {
                                  x3::_val(ctx) =
                                      make_number(x3::_attr(ctx).text, true, x3::_attr(ctx).where);
                                })] |
                                literal[([](auto& ctx) { x3::_val(ctx) = x3::_attr(ctx); })];

auto fold_op(BinOp op) {
  return [op](auto& ctx) {
    SExpP l = x3::_val(ctx);
    x3::_val(ctx) = mk_bin(op, l, x3::_attr(ctx), l->pos);
  };
}
const auto fold_sym = [](auto& ctx) {
  SExpP l = x3::_val(ctx);
  x3::_val(ctx) = mk_bin(at_c<0>(x3::_attr(ctx)), l, at_c<1>(x3::_attr(ctx)), l->pos);
};
const auto set_val = [](auto& ctx) { x3::_val(ctx) = x3::_attr(ctx); };

const auto sexp_def = sexp_and[set_val] >> *((x3::lit("||") > sexp_and)[fold_op(BinOp::Or)]);
const auto sexp_and_def = sexp_cmp[set_val] >> *((x3::lit("&&") > sexp_cmp)[fold_op(BinOp::And)]);
const auto sexp_cmp_def = sexp_add[set_val] >> *((cmp_ops > sexp_add)[fold_sym]);
const auto sexp_add_def = sexp_mul[set_val] >>
                          *((add_ops >> !x3::lit('>') >> !x3::lit('{') > sexp_mul)[fold_sym]);
const auto sexp_mul_def = sexp_un[set_val] >> *((mul_ops > sexp_un)[fold_sym]);
const auto sexp_un_impl_def =
    (x3::lit('-') >> number_text)[([](auto& ctx) {
      x3::_val(ctx) = mk_lit(make_number(x3::_attr(ctx).text, true, x3::_attr(ctx).where), Pos{});
    })] |
    (x3::lit('-') >> sexp_un)[([](auto& ctx) {
      x3::_val(ctx) = SExp{SUnary{UnOp::Neg, x3::_attr(ctx)}, Pos{}};
    })] |
    (x3::lit('!') >> !x3::lit('=') >> sexp_un)[([](auto& ctx) {
      x3::_val(ctx) = SExp{SUnary{UnOp::Not, x3::_attr(ctx)}, Pos{}};
    })] |
    sexp_atom[set_val];

const auto sexp_atom_impl_def =
    literal[([](auto& ctx) { x3::_val(ctx) = mk_lit(x3::_attr(ctx), Pos{}); })] |
    (fn_name_p >> '(' > (sexp % ',') > ')')[([](auto& ctx) {
      Fn f = at_c<0>(x3::_attr(ctx)).fn;
      auto& args = at_c<1>(x3::_attr(ctx));
      size_t want = fn_arity(f);
      if (args.size() != want)
        throw ActionError{at_c<0>(x3::_attr(ctx)).where, std::string(fn_name(f)) + " takes " +
                                                             std::to_string(want) + " argument" +
                                                             (want == 1 ? "" : "s")};
      x3::_val(ctx) = SExp{SCall{f, std::vector<SExpP>(args.begin(), args.end())}, Pos{}};
    })] |
    name[([](auto& ctx) { x3::_val(ctx) = mk_var(x3::_attr(ctx).s, x3::_attr(ctx).pos); })] |
    (x3::lit('(') > sexp > ')')[set_val];

const auto lmad_dim_def = (x3::lit('(') > sexp > ':' > sexp > ')')[([](auto& ctx) {
  x3::_val(ctx) = {at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx))};
})];

auto shape_form(LmadSyn::Form f) {
  return [f](auto& ctx) {
    LmadSyn l;
    l.form = f;
    l.args = std::vector<SExpP>(x3::_attr(ctx).begin(), x3::_attr(ctx).end());
    l.pos = Pos{};
    x3::_val(ctx) = std::move(l);
  };
}

const auto lmad_impl_def = (x3::lexeme[x3::lit('R') >> !idchar] >> '(' > (sexp % ',') >
                            ')')[shape_form(LmadSyn::Form::Row)] |
                           (x3::lexeme[x3::lit('C') >> !idchar] >> '(' > (sexp % ',') >
                            ')')[shape_form(LmadSyn::Form::Col)] |
                           (sexp >> '+' >> '{' > -(lmad_dim % ',') > '}')[([](auto& ctx) {
                             LmadSyn l;
                             l.form = LmadSyn::Form::Explicit;
                             l.offset = at_c<0>(x3::_attr(ctx));
                             if (auto& ds = at_c<1>(x3::_attr(ctx)))
                               l.dims.assign(ds->begin(), ds->end());
                             l.pos = Pos{};
                             x3::_val(ctx) = std::move(l);
                           })];

const auto type_impl_def =
    kw_mem[([](auto& ctx) {
      Type t;
      t.kind = Type::Kind::Mem;
      t.pos = Pos{};
      x3::_val(ctx) = t;
    })] |
    x3::lexeme[scalar_types >> !idchar][([](auto& ctx) {
      Type t;
      t.kind = Type::Kind::Scalar;
      t.elem = x3::_attr(ctx);
      t.pos = Pos{};
      x3::_val(ctx) = t;
    })] |
    (+(x3::lit('[') > sexp > ']'))[([](auto& ctx) {
      Type t;
      t.kind = Type::Kind::Array;
      t.dims.assign(x3::_attr(ctx).begin(), x3::_attr(ctx).end());
      t.pos = Pos{};
      x3::_val(ctx) = t;
    })] >>
        -(x3::lexeme[scalar_types >> !idchar]
                    [([](auto& ctx) { x3::_val(ctx).elem = x3::_attr(ctx); })]) >>
        -((x3::lit('@') > name > "->" > lmad)[([](auto& ctx) {
          x3::_val(ctx).ann = MemAnn{at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx))};
        })]);

const auto binding_def = (x3::lit('(') > name > ':' > type > ')')[([](auto& ctx) {
  x3::_val(ctx) = Binding{at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx))};
})];

const auto entry_def = sexp[([](auto& ctx) { x3::_val(ctx).start = x3::_attr(ctx); })] >>
                       -(x3::lit(':') >
                         sexp[([](auto& ctx) { x3::_val(ctx).count = x3::_attr(ctx); })] >>
                         -(x3::lit(':') >
                           sexp[([](auto& ctx) { x3::_val(ctx).stride = x3::_attr(ctx); })]));

const auto atom_impl_def = name[([](auto& ctx) {
                             x3::_val(ctx) = AtomArg{x3::_attr(ctx), x3::_attr(ctx).pos};
                           })] |
                           signed_literal[([](auto& ctx) {
                             x3::_val(ctx) = AtomArg{x3::_attr(ctx), Pos{}};
                           })] |
                           (x3::lit('(') >> signed_literal > ')')[([](auto& ctx) {
                             x3::_val(ctx) = AtomArg{x3::_attr(ctx), Pos{}};
                           })];

template <class Node> auto make_exp() {
  return [](auto& ctx) { x3::_val(ctx) = Exp{Node{x3::_attr(ctx)}, Pos{}}; };
}

const auto exp_impl_def =
    (kw_if > sexp > kw_then > body > kw_else > body)[([](auto& ctx) {
      auto& a = x3::_attr(ctx);
      x3::_val(ctx) = Exp{EIf{at_c<0>(a), at_c<1>(a), at_c<2>(a)}, Pos{}};
    })] |
    (kw_kernel > name > '<' > sexp > kw_do > body)[([](auto& ctx) {
      auto& a = x3::_attr(ctx);
      x3::_val(ctx) = Exp{EKernel{at_c<0>(a), at_c<1>(a), at_c<2>(a)}, Pos{}};
    })] |
    (kw_loop > +binding > '=' > '(' > (name % ',') > ')' > kw_for > name > '<' > sexp > kw_do >
     body)[([](auto& ctx) {
      auto& a = x3::_attr(ctx);
      ELoop l;
      l.params.assign(at_c<0>(a).begin(), at_c<0>(a).end());
      l.inits.assign(at_c<1>(a).begin(), at_c<1>(a).end());
      l.iter = at_c<2>(a);
      l.bound = at_c<3>(a);
      l.body = at_c<4>(a);
      x3::_val(ctx) = Exp{std::move(l), Pos{}};
    })] |
    (kw_concat > name > name)[([](auto& ctx) {
      x3::_val(ctx) = Exp{EConcat{at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx))}, Pos{}};
    })] |
    (kw_iota > sexp)[make_exp<EIota>()] | (kw_replicate > sexp > atom)[([](auto& ctx) {
      x3::_val(ctx) = Exp{EReplicate{at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx))}, Pos{}};
    })] |
    (kw_copy > name)[make_exp<ECopy>()] | kw_scratch[([](auto& ctx) {
      x3::_val(ctx) = Exp{EScratch{}, Pos{}};
    })] |
    (kw_alloc > sexp)[make_exp<EAlloc>()] | (kw_transpose > name)[make_exp<ETranspose>()] |
    (name >> kw_with >> '[' >> lmad >> ']' >> '=' > name)[([](auto& ctx) {
      auto& a = x3::_attr(ctx);
      x3::_val(ctx) = Exp{EUpdateLmad{at_c<0>(a), at_c<1>(a), at_c<2>(a)}, Pos{}};
    })] |
    (name >> kw_with > '[' > (entry % ',') > ']' > '=' > atom)[([](auto& ctx) {
      auto& a = x3::_attr(ctx);
      x3::_val(ctx) =
          Exp{EUpdate{at_c<0>(a), {at_c<1>(a).begin(), at_c<1>(a).end()}, at_c<2>(a)}, Pos{}};
    })] |
    (name >> '[' >> lmad >> ']')[([](auto& ctx) {
      auto& a = x3::_attr(ctx);
      x3::_val(ctx) = Exp{ELmadSlice{at_c<0>(a), at_c<1>(a)}, Pos{}};
    })] |
    (name >> '[' > (entry % ',') > ']')[([](auto& ctx) {
      auto& a = x3::_attr(ctx);
      x3::_val(ctx) = Exp{EIndex{at_c<0>(a), {at_c<1>(a).begin(), at_c<1>(a).end()}}, Pos{}};
    })] |
    sexp[make_exp<EScalar>()];

const auto stmt_impl_def = (kw_let > (+binding | name) > '=' > exp)[([](auto& ctx) {
                             auto& a = x3::_attr(ctx);
                             SLet l;
                             struct V {
                               SLet& l;
                               void operator()(const std::vector<Binding>& bs) const {
                                 l.pats = bs;
                               }
                               void operator()(const Name& n) const {
                                 l.pats = {Binding{n, std::nullopt}};
                               }
                             };
                             boost::apply_visitor(V{l}, at_c<0>(a));
                             l.exp = at_c<1>(a);
                             x3::_val(ctx) = Stmt{std::move(l), Pos{}};
                           })] |
                           (kw_assume > sexp)[([](auto& ctx) {
                             x3::_val(ctx) = Stmt{SAssume{x3::_attr(ctx)}, Pos{}};
                           })] |
                           (kw_assert > sexp > check_kind)[([](auto& ctx) {
                             auto& a = x3::_attr(ctx);
                             x3::_val(ctx) = Stmt{SAssume{at_c<0>(a), at_c<1>(a)}, Pos{}};
                           })];

const auto body_tail_def = in_pos[([](auto& ctx) { x3::_val(ctx).pos = x3::_attr(ctx); })] > '(' >
                           -((name % ',')[([](auto& ctx) {
                             x3::_val(ctx).results.assign(x3::_attr(ctx).begin(),
                                                          x3::_attr(ctx).end());
                           })]) > ')';

const auto body_def = (*stmt > body_tail)[([](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Body b = at_c<1>(a);
  b.stmts.assign(at_c<0>(a).begin(), at_c<0>(a).end());
  x3::_val(ctx) = std::move(b);
})];

const auto def_impl_def =
    (kw_def > name > *binding > ':' > '(' > (type % ',') > ')' > '=' > body)[([](auto& ctx) {
      auto& a = x3::_attr(ctx);
      Def d;
      d.name = at_c<0>(a);
      d.params.assign(at_c<1>(a).begin(), at_c<1>(a).end());
      d.rets.assign(at_c<2>(a).begin(), at_c<2>(a).end());
      d.body = at_c<3>(a);
      d.pos = Pos{};
      x3::_val(ctx) = std::move(d);
    })];

const auto input_value_def = signed_literal[([](auto& ctx) {
                               InputValue v;
                               v.scalar = x3::_attr(ctx);
                               x3::_val(ctx) = v;
                             })] |
                             (x3::lit('[') > -(input_value % ',') > ']')[([](auto& ctx) {
                               InputValue v;
                               v.kind = InputValue::Kind::Array;
                               if (auto& e = x3::_attr(ctx)) v.elems.assign(e->begin(), e->end());
                               x3::_val(ctx) = v;
                             })] |
                             x3::lexeme[x3::lit("iota") >> !idchar][([](auto& ctx) {
                               x3::_val(ctx) = InputValue{InputValue::Kind::Iota, {}, {}};
                             })] |
                             x3::lexeme[x3::lit("zeros") >> !idchar][([](auto& ctx) {
                               x3::_val(ctx) = InputValue{InputValue::Kind::Zeros, {}, {}};
                             })] |
                             x3::lexeme[x3::lit("random") >> !idchar][([](auto& ctx) {
                               x3::_val(ctx) = InputValue{InputValue::Kind::Random, {}, {}};
                             })];

// X3 hands on_success an unused attribute when a rule's definition has semantic
// actions, so each annotated rule is a thin rule over an `_impl` rule that holds the
// actions: the outer rule propagates the attribute and Annotate can set its position.
const auto name_def = name_impl;
const auto sexp_un_def = sexp_un_impl;
const auto sexp_atom_def = sexp_atom_impl;
const auto lmad_def = lmad_impl;
const auto type_def = type_impl;
const auto atom_def = atom_impl;
const auto exp_def = exp_impl;
const auto stmt_def = stmt_impl;
const auto def_def = def_impl;
const auto number_text_def = number_text_impl;
const auto fn_name_p_def = fn_name_p_impl;
const auto in_pos_def = in_pos_impl;

BOOST_SPIRIT_DEFINE(name_impl, sexp_un_impl, sexp_atom_impl, lmad_impl, type_impl, atom_impl,
                    exp_impl, stmt_impl, def_impl, number_text_impl, fn_name_p_impl, in_pos_impl)
BOOST_SPIRIT_DEFINE(body_tail)
BOOST_SPIRIT_DEFINE(ident, name, fn_name_p, in_pos, number_text, literal, signed_literal, sexp,
                    sexp_and, sexp_cmp, sexp_add, sexp_mul, sexp_un, sexp_atom, lmad_dim, lmad,
                    type, binding, entry, atom, exp, stmt, body, def, input_value)

// -------------------------------------------------------------------- driving

std::string expected_text(std::string which) {
  for (char& c : which)
    if (c == '"') c = '\'';
  if (which == "eoi") return "the end of the input";
  if (which.find("boost") != std::string::npos) return "more input";
  if (which == "'->'") return "'->' and an LMAD";
  return which;
}

template <class P, class Attr>
std::optional<Diagnostic> run(const std::string& text, const P& parser, Attr& attr, bool to_end) {
  Source src{text.cbegin(), text.cend()};
  It first = text.cbegin();
  const It last = text.cend();
  try {
    auto p = x3::with<source_tag>(std::cref(src))[parser];
    bool ok = x3::phrase_parse(first, last, p, skipper, attr);
    if (ok && to_end) {
      It rest = first;
      ok = x3::phrase_parse(rest, last, x3::eoi, skipper);
      if (!ok) return Diagnostic{"parse", src.at(first), "unexpected text after the end"};
    }
    if (!ok)
      return Diagnostic{"parse", src.at(first), "expected " + std::string(parser.name) + " here"};
  } catch (const x3::expectation_failure<It>& e) {
    return Diagnostic{"parse", src.at(e.where()), "expected " + expected_text(e.which()) + " here"};
  } catch (const ActionError& e) {
    return Diagnostic{"parse", src.at(e.where), e.message};
  }
  return std::nullopt;
}

/// Offsets a diagnostic found in a directive line to its place in the file.
Diagnostic shift(Diagnostic d, int line, int col0) {
  if (d.pos.line == 1) d.pos.col += col0;
  d.pos.line = line;
  return d;
}

std::optional<Diagnostic> parse_directives(const std::string& text, Program& prog) {
  size_t start = 0;
  int line = 1;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string l = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    size_t k = l.find_first_not_of(" \t");
    for (const char* tag : {"-- input:", "-- expect:"}) {
      std::string t = tag;
      if (k == std::string::npos || l.compare(k, t.size(), t) != 0) continue;
      int col0 = static_cast<int>(k + t.size());
      std::string rest = l.substr(k + t.size());
      Pos pos{line, static_cast<int>(k) + 1};
      if (t == "-- input:") {
        InputSet in;
        in.pos = pos;
        std::vector<std::pair<Name, InputValue>> vals;
        const x3::rule<struct input_line_tag, std::vector<std::pair<Name, InputValue>>> input_line =
            "an input 'name=value'";
        auto one = (name > '=' > input_value)[([](auto& ctx) {
          x3::_val(ctx).emplace_back(at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx)));
        })];
        auto line_p = input_line = *one;
        if (auto d = run(rest, line_p, vals, true)) return shift(*d, line, col0);
        for (auto& [n, v] : vals)
          n.pos = shift(Diagnostic{"", n.pos, ""}, line, col0).pos;
        in.values = std::move(vals);
        prog.inputs.push_back(std::move(in));
      } else {
        Expect e;
        if (auto d = parse_expect(rest, pos, e)) return d;
        prog.expects.push_back(std::move(e));
      }
    }
    if (end == std::string::npos) break;
    start = end + 1;
    ++line;
  }
  return std::nullopt;
}

template <class P, class Attr>
std::optional<Attr> parse_fragment(const std::string& text0, const P& parser, Diagnostic* error) {
  std::string text = text0;
  if (auto d = screen(text)) {
    if (error) *error = *d;
    return std::nullopt;
  }
  Attr a{};
  if (auto d = run(text, parser, a, true)) {
    if (error) *error = *d;
    return std::nullopt;
  }
  return a;
}

} // namespace

Lang lang_of_path(const std::string& path) {
  auto ends = [&](const std::string& s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".fun") ? Lang::Fun : Lang::FunMem;
}

ParseResult parse_program(const std::string& text0, Lang lang) {
  ParseResult r;
  std::string text = text0;
  if (auto d = screen(text)) {
    r.error = d;
    return r;
  }
  Program p;
  p.lang = lang;
  // Directives first: a file that expects a parse error still says so.
  if (auto d = parse_directives(text, p)) {
    r.error = d;
    return r;
  }
  r.expects = p.expects;
  if (auto d = run(text, def, p.def, true)) {
    r.error = d;
    return r;
  }
  r.program = std::move(p);
  return r;
}

bool is_name(const std::string& s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (s.empty() || !(alpha(s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!(alpha(c) || digit(c) || c == '_' || c == '\'')) return false;
  return !keywords().count(s);
}

std::optional<SExpP> parse_sexp(const std::string& text, Diagnostic* error) {
  return parse_fragment<decltype(sexp), SExpP>(text, sexp, error);
}

std::optional<Type> parse_type(const std::string& text, Diagnostic* error) {
  return parse_fragment<decltype(type), Type>(text, type, error);
}

std::optional<InputSet> parse_input_set(const std::string& text, Diagnostic* error) {
  std::string t = text;
  std::optional<Diagnostic> d = screen(t);
  if (!d && text.find('\n') != std::string::npos)
    d = Diagnostic{"parse", Pos{1, static_cast<int>(text.find('\n')) + 1},
                   "an input data set is one line"};
  Program p;
  const std::string tag = "-- input:";
  if (!d) {
    d = parse_directives(tag + text, p);
    if (d) d->pos.col = std::max(1, d->pos.col - static_cast<int>(tag.size()));
  }
  if (d) {
    if (error) *error = *d;
    return std::nullopt;
  }
  return p.inputs.at(0);
}

std::optional<LmadSyn> parse_lmad(const std::string& text, Diagnostic* error) {
  return parse_fragment<decltype(lmad), LmadSyn>(text, lmad, error);
}

} // namespace funmem
