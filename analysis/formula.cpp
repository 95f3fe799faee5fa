// Facts as formulas over polynomials (see formula.h).
#include "analysis/formula.h"

#include "ir/convert.h"
#include "ir/overloaded.h"
#include "ir/parser.h"

#include <set>

namespace funmem {

Formula Formula::cmp(Poly a, Rel r, Poly b) {
  Formula f;
  f.kind = Kind::Cmp;
  f.rel = r;
  f.lhs = std::move(a);
  f.rhs = std::move(b);
  return f;
}

Formula Formula::conj(std::vector<Formula> fs) {
  if (fs.size() == 1) return fs[0];
  Formula f;
  f.kind = fs.empty() ? Kind::True : Kind::And;
  f.kids = std::move(fs);
  return f;
}

Formula Formula::disj(std::vector<Formula> fs) {
  if (fs.size() == 1) return fs[0];
  Formula f;
  f.kind = fs.empty() ? Kind::False : Kind::Or;
  f.kids = std::move(fs);
  return f;
}

Rel mirror(Rel r) {
  switch (r) {
  case Rel::Lt:
    return Rel::Gt;
  case Rel::Le:
    return Rel::Ge;
  case Rel::Gt:
    return Rel::Lt;
  case Rel::Ge:
    return Rel::Le;
  case Rel::Eq:
  case Rel::Ne:
    break;
  }
  return r;
}

Rel complement(Rel r) {
  switch (r) {
  case Rel::Lt:
    return Rel::Ge;
  case Rel::Le:
    return Rel::Gt;
  case Rel::Gt:
    return Rel::Le;
  case Rel::Ge:
    return Rel::Lt;
  case Rel::Eq:
    return Rel::Ne;
  case Rel::Ne:
    return Rel::Eq;
  }
  return r;
}

Formula negation(const Formula& f) {
  switch (f.kind) {
  case Formula::Kind::True: {
    Formula no;
    no.kind = Formula::Kind::False;
    return no;
  }
  case Formula::Kind::False:
    return Formula{};
  case Formula::Kind::Cmp: {
    return Formula::cmp(f.lhs, complement(f.rel), f.rhs);
  }
  case Formula::Kind::And:
  case Formula::Kind::Or: {
    std::vector<Formula> ks;
    for (const Formula& k : f.kids)
      ks.push_back(negation(k));
    return f.kind == Formula::Kind::And ? Formula::disj(ks) : Formula::conj(ks);
  }
  case Formula::Kind::Not:
    return f.kids.front();
  }
  return Formula::negate(f);
}

Formula Formula::negate(Formula g) {
  Formula f;
  f.kind = Kind::Not;
  f.kids.push_back(std::move(g));
  return f;
}

std::optional<bool> Formula::eval(const Env& env, std::string* error) const {
  switch (kind) {
  case Kind::True:
    return true;
  case Kind::False:
    return false;
  case Kind::Cmp: {
    auto a = lhs.eval(env, error), b = rhs.eval(env, error);
    if (!a || !b) return std::nullopt;
    switch (rel) {
    case Rel::Eq:
      return *a == *b;
    case Rel::Ne:
      return *a != *b;
    case Rel::Lt:
      return *a < *b;
    case Rel::Le:
      return *a <= *b;
    case Rel::Gt:
      return *a > *b;
    case Rel::Ge:
      return *a >= *b;
    }
    return std::nullopt;
  }
  case Kind::And:
  case Kind::Or: {
    bool is_and = kind == Kind::And;
    for (const Formula& k : kids) {
      auto v = k.eval(env, error);
      if (!v) return std::nullopt;
      if (*v != is_and) return !is_and;
    }
    return is_and;
  }
  case Kind::Not: {
    auto v = kids[0].eval(env, error);
    if (!v) return std::nullopt;
    return !*v;
  }
  }
  return std::nullopt;
}

std::vector<std::string> Formula::free_vars() const {
  std::set<std::string> s;
  auto add = [&](const Poly& p) {
    for (auto& v : p.free_vars())
      s.insert(v);
  };
  if (kind == Kind::Cmp) {
    add(lhs);
    add(rhs);
  }
  for (const Formula& k : kids)
    for (auto& v : k.free_vars())
      s.insert(v);
  return {s.begin(), s.end()};
}

std::string Formula::to_string() const {
  static const char* rels[] = {"==", "!=", "<", "<=", ">", ">="};
  switch (kind) {
  case Kind::True:
    return "true";
  case Kind::False:
    return "false";
  case Kind::Cmp:
    return lhs.to_string() + " " + rels[static_cast<int>(rel)] + " " + rhs.to_string();
  case Kind::And:
  case Kind::Or: {
    std::string s;
    for (size_t i = 0; i < kids.size(); ++i)
      s += (i ? (kind == Kind::And ? " && " : " || ") : "") + ("(" + kids[i].to_string() + ")");
    return s;
  }
  case Kind::Not:
    return "!(" + kids[0].to_string() + ")";
  }
  return "";
}

Formula Formula::substitute(const std::map<std::string, Poly>& s) const {
  Formula f = *this;
  f.lhs = lhs.substitute(s);
  f.rhs = rhs.substitute(s);
  for (Formula& k : f.kids)
    k = k.substitute(s);
  return f;
}

Formula Formula::replace_atom(const AtomRef& a, const Poly& by) const {
  Formula f = *this;
  f.lhs = lhs.replace_atom(a, by);
  f.rhs = rhs.replace_atom(a, by);
  for (Formula& k : f.kids)
    k = k.replace_atom(a, by);
  return f;
}

std::optional<Formula> formula_of(const SExp& e, std::string* error) {
  auto fail = [&](const std::string& m) -> std::optional<Formula> {
    if (error) *error = m;
    return std::nullopt;
  };
  if (const auto* u = std::get_if<SUnary>(&e.node); u && u->op == UnOp::Not) {
    auto k = formula_of(*u->a, error);
    if (!k) return k;
    return Formula::negate(*k);
  }
  const auto* b = std::get_if<SBinary>(&e.node);
  if (!b) return fail("a fact must be a comparison (==, !=, <, <=, >, >=) or a && / || of them");
  if (b->op == BinOp::And || b->op == BinOp::Or) {
    auto x = formula_of(*b->a, error);
    if (!x) return x;
    auto y = formula_of(*b->b, error);
    if (!y) return y;
    return b->op == BinOp::And ? Formula::conj({*x, *y}) : Formula::disj({*x, *y});
  }
  Rel r;
  switch (b->op) {
  case BinOp::Eq:
    r = Rel::Eq;
    break;
  case BinOp::Ne:
    r = Rel::Ne;
    break;
  case BinOp::Lt:
    r = Rel::Lt;
    break;
  case BinOp::Le:
    r = Rel::Le;
    break;
  case BinOp::Gt:
    r = Rel::Gt;
    break;
  case BinOp::Ge:
    r = Rel::Ge;
    break;
  default:
    return fail("a fact must be a comparison (==, !=, <, <=, >, >=) or a && / || of them");
  }
  try {
    auto x = to_poly(*b->a), y = to_poly(*b->b);
    if (!x || !y)
      return fail("both sides of a fact must be integer expressions (+ - * / % min max abs)");
    return Formula::cmp(*x, r, *y);
  } catch (const SymbolicOverflow&) {
    return fail("a constant in the fact overflows i64");
  }
}

std::optional<Formula> parse_fact(const std::string& text, Diagnostic* error) {
  auto e = parse_sexp(text, error);
  if (!e) return std::nullopt;
  std::string msg;
  auto f = formula_of(**e, &msg);
  if (!f && error) *error = Diagnostic{"type", (*e)->pos, msg};
  return f;
}

std::optional<SymLmad> parse_sym_lmad(const std::string& text, Diagnostic* error) {
  auto l = parse_lmad(text, error);
  if (!l) return std::nullopt;
  bool ok = true;
  Pos bad{};
  auto get = [&](const SExpP& e) -> Poly {
    try {
      if (auto p = to_poly(*e)) return *p;
    } catch (const SymbolicOverflow&) {
    }
    if (ok) bad = e->pos;
    ok = false;
    return Poly(0);
  };
  SymLmad r;
  if (l->form == LmadSyn::Form::Explicit) {
    r.offset = get(l->offset);
    for (const auto& [c, s] : l->dims)
      r.dims.emplace_back(get(c), get(s));
  } else {
    std::vector<Poly> shape;
    for (const SExpP& a : l->args)
      shape.push_back(get(a));
    r = l->form == LmadSyn::Form::Row ? row_major(shape) : col_major(shape);
  }
  if (!ok) {
    if (error)
      *error = Diagnostic{"type", bad,
                          "an LMAD component must be an integer expression (+ - * / % min max "
                          "abs) that fits in i64"};
    return std::nullopt;
  }
  return r;
}

namespace {

/// Splits at top-level separators (outside (), {} and []); each part with its offset.
std::vector<std::pair<std::string, size_t>> split_top(const std::string& s, char sep) {
  std::vector<std::pair<std::string, size_t>> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : sep;
    if (c == '(' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '}' || c == ']') --depth;
    if (c == sep && depth <= 0) {
      out.emplace_back(s.substr(start, i - start), start);
      start = i + 1;
    }
  }
  return out;
}

bool blank(const std::string& s) {
  return s.find_first_not_of(" \t\r") == std::string::npos;
}

} // namespace

std::optional<ProveQuery> parse_prove_line(const std::string& line, Diagnostic* error) {
  auto parts = split_top(line, ';');
  Diagnostic d;
  auto fail = [&](size_t col0) -> std::optional<ProveQuery> {
    d.pos.line = 1;
    d.pos.col = static_cast<int>(col0) + std::max(d.pos.col, 1);
    if (error) *error = d;
    return std::nullopt;
  };
  if (parts.size() < 2 || parts.size() > 3) {
    d = Diagnostic{"parse", {}, "expected 'LMAD1 ; LMAD2 ; FACT, ...'"};
    return fail(0);
  }
  ProveQuery q;
  q.text1 = parts[0].first;
  q.text2 = parts[1].first;
  auto l1 = parse_sym_lmad(parts[0].first, &d);
  if (!l1) return fail(parts[0].second);
  auto l2 = parse_sym_lmad(parts[1].first, &d);
  if (!l2) return fail(parts[1].second);
  q.l1 = *l1;
  q.l2 = *l2;
  if (parts.size() == 3 && !blank(parts[2].first)) {
    for (auto& [text, at] : split_top(parts[2].first, ',')) {
      auto f = parse_fact(text, &d);
      if (!f) return fail(parts[2].second + at);
      q.facts.push_back(*f);
      q.fact_texts.push_back(text);
    }
  }
  return q;
}

bool all_hold(const std::vector<Formula>& fs, const Env& env) {
  for (const Formula& f : fs) {
    auto ok = f.eval(env);
    if (!ok || !*ok) return false;
  }
  return true;
}

size_t for_each_assignment(const std::vector<std::string>& vars, const std::vector<int64_t>& values,
                           const std::function<bool(const Env&)>& visit, size_t limit) {
  if (values.empty() && !vars.empty()) return 0;
  std::vector<size_t> pick(vars.size(), 0); // an odometer, the first digit fastest
  Env env;
  for (const std::string& v : vars)
    env[v] = values[0];
  size_t visited = 0;
  while (visited < limit) {
    ++visited;
    if (!visit(env)) break;
    size_t k = 0;
    while (k < pick.size() && pick[k] + 1 == values.size()) {
      pick[k] = 0;
      env[vars[k]] = values[0];
      ++k;
    }
    if (k == pick.size()) break;
    env[vars[k]] = values[++pick[k]];
  }
  return visited;
}

std::vector<int64_t> value_range(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t v = lo; v <= hi; ++v)
    out.push_back(v);
  return out;
}

Formula LmadExtent::within(const Poly& a, const Poly& b) const {
  std::vector<Formula> either = empty;
  either.push_back(Formula::conj({ge(lo, a), le(hi, b)}));
  return Formula::disj(either);
}

std::optional<LmadExtent> lmad_extent(const SymLmad& l,
                                      const std::function<bool(const Formula&)>& proves) {
  LmadExtent out{l.offset, l.offset, {}};
  for (const auto& [c, st] : l.dims) {
    Formula none = le(c, Poly(0));
    bool seen = false;
    for (const Formula& f : out.empty)
      seen = seen || f.to_string() == none.to_string();
    if (!seen) out.empty.push_back(none);
    if (st == Poly(0) || proves(le(c, Poly(1)))) continue; // no step along this dimension
    Poly span = (c - Poly(1)) * st;
    if (proves(ge(st, Poly(0))))
      out.hi = out.hi + span;
    else if (proves(le(st, Poly(0))))
      out.lo = out.lo + span;
    else
      return std::nullopt;
  }
  return out;
}

} // namespace funmem
