// Data, inputs and the comparison of results (see interp.h).
#include "interp/machine.h"

#include <algorithm>

namespace funmem {

// ---------------------------------------------------------------- data

std::string Data::to_string(size_t max_elems) const {
  if (is_mem) return "<memory block>";
  if (!is_array) return scalar.to_string();
  std::string s = "[";
  for (size_t k = 0; k < elems.size() && k < max_elems; ++k)
    s += (k ? ", " : "") + elems[k].to_string();
  if (elems.size() > max_elems) s += ", ...";
  s += "] (shape";
  for (int64_t d : shape)
    s += " " + std::to_string(d);
  return s + ")";
}

std::string Race::to_string() const {
  return "data race in the kernel at " + std::to_string(kernel.line) + ":" +
         std::to_string(kernel.col) + ": iteration " + std::to_string(writer) + " writes " + block +
         "[" + std::to_string(offset) + "], which iteration " + std::to_string(other) +
         (other_writes ? " also writes" : " reads");
}

namespace machine {

std::string index_text(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t k = 0; k < idx.size(); ++k)
    s += (k ? ", " : "") + std::to_string(idx[k]);
  return s + "]";
}

/// Row-major multi-index of flat position t in `shape`.
std::vector<int64_t> unflatten(const std::vector<int64_t>& shape, int64_t t) {
  std::vector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] ? t % shape[k] : 0;
    t = shape[k] ? t / shape[k] : 0;
  }
  return idx;
}

int64_t product(const std::vector<int64_t>& shape, Pos pos) {
  for (int64_t d : shape)
    if (d < 0) throw RunError("size", pos, "negative size " + std::to_string(d));
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0; // whatever the rest
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) throw RunError("resource", pos, "array size overflows");
  return n;
}

} // namespace machine

using namespace machine;

std::optional<std::string> compare_results(const std::vector<Data>& value0,
                                           const std::vector<Data>& heap0) {
  // A FUN program's results have no memory blocks; its FUNMEM translation returns a
  // block before each array. Drop the blocks when the counts differ.
  std::vector<Data> heap = heap0;
  const std::vector<Data>& value = value0;
  if (value.size() != heap.size())
    heap.erase(std::remove_if(heap.begin(), heap.end(), [](const Data& d) { return d.is_mem; }),
               heap.end());
  if (value.size() != heap.size())
    return "the semantics return " + std::to_string(value.size()) + " and " +
           std::to_string(heap.size()) + " results";
  for (size_t r = 0; r < value.size(); ++r) {
    const Data &a = value[r], &b = heap[r];
    if (a.is_mem || b.is_mem) continue;
    std::string which = "result " + std::to_string(r + 1);
    if (a.is_array != b.is_array) return which + ": an array and a scalar";
    if (!a.is_array) {
      if (!(a.scalar == b.scalar))
        return which + ": value semantics " + a.scalar.to_string() + ", heap semantics " +
               b.scalar.to_string();
      continue;
    }
    if (a.shape != b.shape)
      return which + ": shapes " + index_text(a.shape) + " and " + index_text(b.shape);
    for (size_t k = 0; k < a.elems.size(); ++k)
      if (!(a.elems[k] == b.elems[k]))
        return which + index_text(unflatten(a.shape, static_cast<int64_t>(k))) +
               ": value semantics " + a.elems[k].to_string() + ", heap semantics " +
               b.elems[k].to_string();
  }
  return std::nullopt;
}

std::optional<std::string> compare_imp_results(const std::vector<Data>& value,
                                               const std::vector<Data>& imp) {
  if (value.size() != imp.size())
    return "the programs return " + std::to_string(value.size()) + " and " +
           std::to_string(imp.size()) + " results";
  for (size_t r = 0; r < value.size(); ++r) {
    const Data &a = value[r], &b = imp[r];
    std::string which = "result " + std::to_string(r + 1);
    if (!a.is_array) {
      if (b.is_array || !(a.scalar == b.scalar))
        return which + ": value semantics " + a.to_string() + ", IMP " + b.to_string();
      continue;
    }
    if (!b.is_array || b.elems.size() < a.elems.size())
      return which + ": the IMP block holds " + std::to_string(b.elems.size()) +
             " elements for an array of " + std::to_string(a.elems.size());
    for (size_t k = 0; k < a.elems.size(); ++k) {
      Scalar x = a.elems[k], y = b.elems[k];
      // A never-written cell reads as i64 zero; compare it as zero of the array's type.
      if (y.t != x.t && y == Scalar::zero(y.t)) y = Scalar::zero(x.t);
      if (!(x == y))
        return which + index_text(unflatten(a.shape, static_cast<int64_t>(k))) +
               ": value semantics " + x.to_string() + ", IMP " + y.to_string();
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- inputs

namespace {

void flatten_input(const InputValue& v, ScalarType t, size_t depth, std::vector<int64_t>& shape,
                   std::vector<Scalar>& out, Pos pos) {
  if (v.kind == InputValue::Kind::Scalar) {
    if (depth != shape.size())
      throw RunError("size", pos, "an array input has elements of different ranks");
    out.push_back(convert_input(v.scalar, t, pos));
    return;
  }
  if (depth == shape.size())
    shape.push_back(static_cast<int64_t>(v.elems.size()));
  else if (shape[depth] != static_cast<int64_t>(v.elems.size()))
    throw RunError("size", pos, "an array input is not rectangular");
  for (const InputValue& e : v.elems)
    flatten_input(e, t, depth + 1, shape, out, pos);
}

Scalar random_scalar(ScalarType t, std::mt19937_64& g) {
  int64_t k = std::uniform_int_distribution<int64_t>(-8, 8)(g);
  if (t == ScalarType::Bool) return Scalar::of_int(t, k > 0);
  if (is_float(t)) return Scalar::of_float(t, static_cast<double>(k) / 2);
  return Scalar::of_int(t, k);
}

} // namespace

Inputs make_inputs(const Def& def, const InputSet* set, uint64_t seed) {
  std::mt19937_64 g(seed);
  Inputs in;
  std::map<std::string, const InputValue*> given;
  Pos at = set ? set->pos : def.pos;
  if (set)
    for (const auto& [n, v] : set->values)
      given[n.s] = &v;
  for (const auto& [name, v] : given) {
    bool known = false;
    for (const Binding& b : def.params)
      known = known || b.name.s == name;
    if (!known) throw RunError("size", at, "the input '" + name + "' is not a parameter");
  }
  // Literal arrays first: their shapes may define size parameters.
  std::map<std::string, Data> arrays;
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Array) continue;
    auto it = given.find(b.name.s);
    if (it == given.end() || it->second->kind != InputValue::Kind::Array) continue;
    Data d;
    d.is_array = true;
    d.elem = b.type->elem;
    flatten_input(*it->second, d.elem, 0, d.shape, d.elems, at);
    if (d.shape.size() != b.type->dims.size()) {
      // An empty array literal has rank 1 as written; pad with zero extents.
      if (d.elems.empty() && d.shape.size() < b.type->dims.size())
        d.shape.resize(b.type->dims.size(), 0);
      else
        throw RunError("size", at,
                       "the input '" + b.name.s + "' has rank " + std::to_string(d.shape.size()) +
                           ", its type has rank " + std::to_string(b.type->dims.size()));
    }
    for (size_t k = 0; k < d.shape.size(); ++k)
      if (const auto* v = std::get_if<SVar>(&b.type->dims[k]->node))
        if (!given.count(v->name) && !in.count(v->name)) {
          Data sz;
          sz.scalar = Scalar::of_int(ScalarType::I64, d.shape[k]);
          in[v->name] = sz;
        }
    arrays[b.name.s] = std::move(d);
  }
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Scalar) continue;
    auto it = given.find(b.name.s);
    if (it == given.end()) {
      if (!in.count(b.name.s))
        throw RunError("size", at, "no input value for the scalar parameter '" + b.name.s + "'");
      continue;
    }
    if (it->second->kind != InputValue::Kind::Scalar)
      throw RunError("size", at, "the scalar parameter '" + b.name.s + "' is given an array");
    Data d;
    d.scalar = convert_input(it->second->scalar, b.type->elem, at);
    if (in.count(b.name.s) && !(in[b.name.s].scalar == d.scalar))
      throw RunError("size", at,
                     "'" + b.name.s + "' = " + d.scalar.to_string() +
                         " contradicts the shape of an array input");
    in[b.name.s] = d;
  }
  auto lookup = [&](const std::string& n, Pos p) -> Scalar {
    auto it = in.find(n);
    if (it == in.end() || it->second.is_array)
      throw RunError("size", p, "the size '" + n + "' is not a scalar parameter");
    return it->second.scalar;
  };
  for (const Binding& b : def.params) {
    if (!b.type || b.type->kind != Type::Kind::Array) continue;
    std::vector<int64_t> shape;
    const IntLeaf leaf = [&](const SExp& x) {
      return as_int(eval_sexp(x, lookup), x.pos, "a size");
    };
    for (const SExpP& d : b.type->dims) // as the semantics evaluates a type's sizes
      shape.push_back(exact_int(*d, leaf, "a size"));
    int64_t n = product(shape, b.type->pos);
    if (n > (int64_t(1) << 28))
      throw RunError("resource", at,
                     "the input '" + b.name.s + "' has " + std::to_string(n) + " elements");
    auto it = arrays.find(b.name.s);
    Data d;
    if (it != arrays.end()) {
      d = it->second;
      if (d.shape != shape)
        throw RunError("size", at,
                       "the input '" + b.name.s + "' has shape " + index_text(d.shape) +
                           ", its type says " + index_text(shape));
    } else {
      d.is_array = true;
      d.elem = b.type->elem;
      d.shape = shape;
      auto git = given.find(b.name.s);
      auto kind = git == given.end() ? InputValue::Kind::Random : git->second->kind;
      if (kind == InputValue::Kind::Scalar)
        throw RunError("size", at, "the array parameter '" + b.name.s + "' is given a scalar");
      for (int64_t k = 0; k < n; ++k) {
        if (kind == InputValue::Kind::Iota)
          d.elems.push_back(is_float(d.elem) ? Scalar::of_float(d.elem, static_cast<double>(k))
                                             : Scalar::of_int(d.elem, k));
        else if (kind == InputValue::Kind::Zeros)
          d.elems.push_back(Scalar::zero(d.elem));
        else
          d.elems.push_back(random_scalar(d.elem, g));
      }
    }
    in[b.name.s] = std::move(d);
  }
  return in;
}

} // namespace funmem
