// Canonical polynomial normal form of symbolic integer expressions (see symbolic.h).
#include "ir/symbolic.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <unordered_map>

namespace funmem {

namespace {

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw SymbolicOverflow("coefficient overflow in +");
  return r;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw SymbolicOverflow("coefficient overflow in *");
  return r;
}

Monomial mul_monomials(const Monomial& a, const Monomial& b) {
  Monomial out;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      out.push_back(b[j++]);
    } else {
      out.emplace_back(a[i].first, a[i].second + b[j].second);
      ++i;
      ++j;
    }
  }
  return out;
}

const char* atom_fn(AtomKind k) {
  switch (k) {
  case AtomKind::Var:
    return "";
  case AtomKind::Div:
    return "/";
  case AtomKind::Mod:
    return "%";
  case AtomKind::Min:
    return "min";
  case AtomKind::Max:
    return "max";
  case AtomKind::Abs:
    return "abs";
  }
  return "";
}

std::string atom_to_string(const Atom& a) {
  switch (a.kind) {
  case AtomKind::Var:
    return a.name;
  case AtomKind::Div:
  case AtomKind::Mod:
    return "(" + a.args[0].to_string() + ") " + atom_fn(a.kind) + " (" + a.args[1].to_string() +
           ")";
  case AtomKind::Min:
  case AtomKind::Max:
  case AtomKind::Abs: {
    std::string s = std::string(atom_fn(a.kind)) + "(";
    for (size_t i = 0; i < a.args.size(); ++i)
      s += (i ? ", " : "") + a.args[i].to_string();
    return s + ")";
  }
  }
  return "";
}

bool set_error(std::string* error, std::string msg) {
  if (error) *error = std::move(msg);
  return false;
}

bool eval_atom(const Atom& a, const std::map<std::string, int64_t>& env, int64_t& out,
               std::string* error) {
  if (a.kind == AtomKind::Var) {
    auto it = env.find(a.name);
    if (it == env.end()) return set_error(error, "unbound name '" + a.name + "'");
    out = it->second;
    return true;
  }
  std::vector<int64_t> v;
  for (const Poly& p : a.args) {
    auto r = p.eval(env, error);
    if (!r) return false;
    v.push_back(*r);
  }
  switch (a.kind) {
  case AtomKind::Var:
    return false;
  case AtomKind::Div:
  case AtomKind::Mod:
    if (v[1] == 0) return set_error(error, "division by zero");
    if (v[0] == INT64_MIN && v[1] == -1) return set_error(error, "integer overflow in division");
    out = a.kind == AtomKind::Div ? v[0] / v[1] : v[0] % v[1];
    return true;
  case AtomKind::Min:
    out = std::min(v[0], v[1]);
    return true;
  case AtomKind::Max:
    out = std::max(v[0], v[1]);
    return true;
  case AtomKind::Abs:
    if (v[0] == INT64_MIN) return set_error(error, "integer overflow in abs");
    out = v[0] < 0 ? -v[0] : v[0];
    return true;
  }
  return false;
}

void collect_vars(const Poly& p, std::set<std::string>& out) {
  for (const auto& [m, c] : p.terms())
    for (const auto& [a, e] : m) {
      if (a->kind == AtomKind::Var) out.insert(a->name);
      for (const Poly& q : a->args)
        collect_vars(q, out);
    }
}

} // namespace

bool operator==(const AtomRef& a, const AtomRef& b) {
  return a.p_ == b.p_ || (a->kind == b->kind && a->name == b->name && a->args == b->args);
}

bool operator<(const AtomRef& a, const AtomRef& b) {
  if (a.p_ == b.p_) return false;
  if (a->kind != b->kind) return a->kind < b->kind;
  if (a->name != b->name) return a->name < b->name;
  return a->args < b->args;
}

Poly::Poly(int64_t k) {
  if (k != 0) terms_.emplace_back(Monomial{}, k);
}

Poly Poly::atom(AtomKind k, std::string name, std::vector<Poly> args) {
  Poly p;
  auto a = std::make_shared<const Atom>(Atom{k, std::move(name), std::move(args)});
  p.terms_.emplace_back(Monomial{{AtomRef(std::move(a)), 1}}, 1);
  return p;
}

Poly Poly::var(const std::string& name) {
  // Variables are shared per thread: equal ones compare by address, and a Poly of a
  // name costs no allocation of its atom. The table is emptied when it grows large
  // (programs with fresh names without end), which only costs sharing.
  thread_local std::unordered_map<std::string, std::shared_ptr<const Atom>> vars;
  auto it = vars.find(name);
  if (it == vars.end()) {
    if (vars.size() >= 1 << 16) vars.clear();
    it = vars.emplace(name, std::make_shared<const Atom>(Atom{AtomKind::Var, name, {}})).first;
  }
  Poly p;
  p.terms_.emplace_back(Monomial{{AtomRef(it->second), 1}}, 1);
  return p;
}

Poly Poly::div(const Poly& a, const Poly& b) {
  auto ka = a.constant(), kb = b.constant();
  if (ka && kb && *kb != 0 && !(*ka == INT64_MIN && *kb == -1)) return Poly(*ka / *kb);
  if (kb && *kb == 1) return a;
  return atom(AtomKind::Div, "", {a, b});
}

Poly Poly::mod(const Poly& a, const Poly& b) {
  auto ka = a.constant(), kb = b.constant();
  if (ka && kb && *kb != 0 && !(*ka == INT64_MIN && *kb == -1)) return Poly(*ka % *kb);
  if (kb && (*kb == 1 || *kb == -1)) return Poly(0);
  return atom(AtomKind::Mod, "", {a, b});
}

Poly Poly::min(const Poly& a, const Poly& b) {
  auto ka = a.constant(), kb = b.constant();
  if (ka && kb) return Poly(std::min(*ka, *kb));
  if (a == b) return a;
  // min is commutative: order the arguments so that min(a,b) == min(b,a).
  return b < a ? atom(AtomKind::Min, "", {b, a}) : atom(AtomKind::Min, "", {a, b});
}

Poly Poly::max(const Poly& a, const Poly& b) {
  auto ka = a.constant(), kb = b.constant();
  if (ka && kb) return Poly(std::max(*ka, *kb));
  if (a == b) return a;
  return b < a ? atom(AtomKind::Max, "", {b, a}) : atom(AtomKind::Max, "", {a, b});
}

Poly Poly::abs(const Poly& a) {
  auto ka = a.constant();
  if (ka && *ka != INT64_MIN) return Poly(*ka < 0 ? -*ka : *ka);
  return atom(AtomKind::Abs, "", {a});
}

namespace {

bool key_less(const std::pair<Monomial, int64_t>& t, const Monomial& m) {
  return t.first < m;
}

/// a + sign * b, merging the sorted term lists.
Terms merge_terms(const Terms& a, const Terms& b, int64_t sign) {
  Terms r;
  r.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      r.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      r.emplace_back(b[j].first, checked_mul(b[j].second, sign));
      ++j;
    } else {
      int64_t c = checked_add(a[i].second, checked_mul(b[j].second, sign));
      if (c != 0) r.emplace_back(a[i].first, c);
      ++i;
      ++j;
    }
  }
  return r;
}

} // namespace

Terms::const_iterator Poly::find(const Monomial& m) const {
  auto it = std::lower_bound(terms_.begin(), terms_.end(), m, key_less);
  return it != terms_.end() && it->first == m ? it : terms_.end();
}

void Poly::add_term(const Monomial& m, int64_t c) {
  if (c == 0) return;
  auto it = std::lower_bound(terms_.begin(), terms_.end(), m, key_less);
  if (it == terms_.end() || !(it->first == m)) {
    terms_.emplace(it, m, c);
    return;
  }
  it->second = checked_add(it->second, c);
  if (it->second == 0) terms_.erase(it);
}

Poly operator+(const Poly& a, const Poly& b) {
  if (b.terms_.empty()) return a;
  if (a.terms_.empty()) return b;
  Poly r;
  r.terms_ = merge_terms(a.terms_, b.terms_, 1);
  return r;
}

Poly Poly::operator-() const {
  Poly r = *this;
  for (auto& [m, c] : r.terms_)
    c = checked_mul(c, -1);
  return r;
}

Poly operator-(const Poly& a, const Poly& b) {
  if (b.terms_.empty()) return a;
  Poly r;
  r.terms_ = merge_terms(a.terms_, b.terms_, -1);
  return r;
}

Poly operator*(const Poly& a, const Poly& b) {
  // A constant factor scales the other's coefficients (its monomials stay sorted).
  auto scaled = [](const Poly& p, int64_t k) {
    if (k == 0) return Poly();
    Poly r = p;
    if (k != 1)
      for (auto& [m, c] : r.terms_)
        c = checked_mul(c, k);
    return r;
  };
  if (auto k = b.constant()) return scaled(a, *k);
  if (auto k = a.constant()) return scaled(b, *k);
  Poly r;
  for (const auto& [ma, ca] : a.terms_)
    for (const auto& [mb, cb] : b.terms_)
      r.add_term(mul_monomials(ma, mb), checked_mul(ca, cb));
  return r;
}

int Poly::degree() const {
  int d = 0;
  for (const auto& [m, c] : terms_) {
    int k = 0;
    for (const auto& [a, e] : m)
      k += e;
    d = std::max(d, k);
  }
  return d;
}

Poly Poly::monomial(const Monomial& m, int64_t c) {
  Poly p;
  p.add_term(m, c);
  return p;
}

namespace {

int monomial_degree(const Monomial& m) {
  int k = 0;
  for (const auto& [a, e] : m)
    k += e;
  return k;
}

/// Graded lexicographic order (a monomial order: compatible with multiplication).
bool graded_less(const Monomial& a, const Monomial& b) {
  int da = monomial_degree(a), db = monomial_degree(b);
  if (da != db) return da < db;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) return false; // a has more
    if (i == a.size() || b[j].first < a[i].first) return true;
    if (a[i].second != b[j].second) return a[i].second < b[j].second;
    ++i;
    ++j;
  }
  return false;
}

/// m / d when the monomial d divides m.
std::optional<Monomial> divide_monomial(const Monomial& m, const Monomial& d) {
  Monomial out;
  size_t j = 0;
  for (const auto& [a, e] : m) {
    if (j < d.size() && d[j].first == a) {
      if (d[j].second > e) return std::nullopt;
      if (e > d[j].second) out.emplace_back(a, e - d[j].second);
      ++j;
    } else {
      out.emplace_back(a, e);
    }
  }
  if (j != d.size()) return std::nullopt;
  return out;
}

} // namespace

std::pair<Poly, Poly> Poly::divide(const Poly& a, const Poly& b) {
  if (b.terms_.empty()) return {Poly(0), a};
  auto lead = b.terms_.begin();
  for (auto it = b.terms_.begin(); it != b.terms_.end(); ++it)
    if (graded_less(lead->first, it->first)) lead = it;
  const Monomial lm = lead->first;
  const int64_t lc = lead->second;
  Poly q, r, p = a;
  // Each step removes the graded-largest term of p, so the loop terminates; the cap
  // only guards against pathological coefficient growth.
  for (int steps = 0; !p.terms_.empty() && steps < 100000; ++steps) {
    auto top = p.terms_.begin();
    for (auto it = p.terms_.begin(); it != p.terms_.end(); ++it)
      if (graded_less(top->first, it->first)) top = it;
    auto qm = divide_monomial(top->first, lm);
    if (qm && top->second % lc == 0) {
      Poly t = monomial(*qm, top->second / lc);
      q = q + t;
      p = p - t * b;
    } else {
      r.add_term(top->first, top->second);
      p.terms_.erase(top);
    }
  }
  return {q, r + p};
}

std::optional<Poly> Poly::exact_div(const Poly& b) const {
  if (b.terms_.empty()) return std::nullopt;
  auto [q, r] = divide(*this, b);
  if (!r.terms_.empty()) return std::nullopt;
  return q;
}

bool Poly::is_constant() const {
  return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty());
}

std::optional<int64_t> Poly::constant() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_.begin()->first.empty()) return terms_.begin()->second;
  return std::nullopt;
}

std::vector<std::string> Poly::free_vars() const {
  std::set<std::string> s;
  collect_vars(*this, s);
  return {s.begin(), s.end()};
}

Poly Poly::rebuild(const std::function<std::optional<Poly>(const AtomRef&)>& f) const {
  Poly r;
  for (const auto& [m, c] : terms_) {
    Poly term(c);
    for (const auto& [a, e] : m) {
      Poly base;
      if (std::optional<Poly> by = f(a)) {
        base = std::move(*by);
      } else {
        switch (a->kind) {
        case AtomKind::Var:
          base = Poly::var(a->name);
          break;
        case AtomKind::Div:
          base = div(a->args[0].rebuild(f), a->args[1].rebuild(f));
          break;
        case AtomKind::Mod:
          base = mod(a->args[0].rebuild(f), a->args[1].rebuild(f));
          break;
        case AtomKind::Min:
          base = min(a->args[0].rebuild(f), a->args[1].rebuild(f));
          break;
        case AtomKind::Max:
          base = max(a->args[0].rebuild(f), a->args[1].rebuild(f));
          break;
        case AtomKind::Abs:
          base = abs(a->args[0].rebuild(f));
          break;
        }
      }
      for (int i = 0; i < e; ++i)
        term = term * base;
    }
    r = r + term;
  }
  return r;
}

Poly Poly::substitute(const std::map<std::string, Poly>& s) const {
  return rebuild([&](const AtomRef& a) -> std::optional<Poly> {
    if (a->kind != AtomKind::Var) return std::nullopt;
    auto it = s.find(a->name);
    return it == s.end() ? std::nullopt : std::optional<Poly>(it->second);
  });
}

Poly Poly::replace_atom(const AtomRef& atom, const Poly& by) const {
  return rebuild([&](const AtomRef& a) -> std::optional<Poly> {
    return a == atom ? std::optional<Poly>(by) : std::nullopt;
  });
}

Poly Poly::fold_divmod() const {
  Poly p = *this;
  for (bool changed = true; changed;) {
    changed = false;
    Poly next;
    for (const auto& [m, c] : p.terms_) {
      for (size_t k = 0; k < m.size() && !changed; ++k) {
        const Atom& a = *m[k].first;
        if (a.kind != AtomKind::Mod || m[k].second != 1) continue;
        Monomial rest = m;
        rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
        Poly r = monomial(rest, c);
        Poly quotient = r * div(a.args[0], a.args[1]) * a.args[1];
        bool present = !quotient.terms_.empty();
        for (const auto& [qm, qc] : quotient.terms_) {
          auto it = p.find(qm);
          present = present && it != p.terms_.end() && it->second == qc;
        }
        if (!present) continue;
        next = p - quotient - r * mod(a.args[0], a.args[1]) + r * a.args[0];
        changed = true;
      }
      if (changed) break;
    }
    if (changed) p = next;
  }
  return p;
}

std::optional<int64_t> Poly::eval(const std::map<std::string, int64_t>& env,
                                  std::string* error) const {
  int64_t sum = 0;
  for (const auto& [m, c] : terms_) {
    int64_t t = c;
    for (const auto& [a, e] : m) {
      int64_t v;
      if (!eval_atom(*a, env, v, error)) return std::nullopt;
      for (int i = 0; i < e; ++i)
        if (__builtin_mul_overflow(t, v, &t)) {
          set_error(error, "integer overflow");
          return std::nullopt;
        }
    }
    if (__builtin_add_overflow(sum, t, &sum)) {
      set_error(error, "integer overflow");
      return std::nullopt;
    }
  }
  return sum;
}

std::vector<std::pair<const Monomial*, int64_t>> Poly::print_order() const {
  std::vector<std::pair<const Monomial*, int64_t>> order;
  for (const auto& [m, c] : terms_)
    order.emplace_back(&m, c);
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
    auto deg = [](const Monomial& m) {
      int d = 0;
      for (const auto& [a, e] : m)
        d += e;
      return d;
    };
    return deg(*x.first) > deg(*y.first);
  });
  return order;
}

std::string Poly::to_string() const {
  if (terms_.empty()) return "0";
  const auto order = print_order();
  std::ostringstream os;
  bool first = true;
  for (const auto& [m, c] : order) {
    int64_t mag = c;
    bool neg = c < 0;
    if (!first) {
      os << (neg ? " - " : " + ");
    } else if (neg) {
      os << "-";
    }
    first = false;
    // |c| may not be representable for INT64_MIN: print the sign separately then.
    std::string coef =
        neg ? (c == INT64_MIN ? "9223372036854775808" : std::to_string(-mag)) : std::to_string(mag);
    bool need_coef = m->empty() || coef != "1";
    if (need_coef) os << coef;
    bool star = need_coef;
    for (const auto& [a, e] : *m)
      for (int i = 0; i < e; ++i) {
        if (star) os << "*";
        std::string s = atom_to_string(*a);
        if (a->kind == AtomKind::Div || a->kind == AtomKind::Mod) s = "(" + s + ")";
        os << s;
        star = true;
      }
  }
  return os.str();
}

} // namespace funmem
