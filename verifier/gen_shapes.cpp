// The generator's shapes aimed at short-circuiting's rules and at aliases (gen_detail.h).
#include "verifier/gen_detail.h"

#include <algorithm>

namespace funmem::gen_detail {

std::string Gen::scalar_if(int indent, const std::string& a, const std::string& b) {
  const std::string s1 = fresh("s"), s2 = fresh("s"), in = pad(indent + 2);
  return "if " + sexp("bool", 1) + " then\n" + in + "let " + s1 + " = " + a + "\n" + in + "in (" +
         s1 + ")\n" + pad(indent + 1) + "else\n" + in + "let " + s2 + " = " + b + "\n" + in +
         "in (" + s2 + ")";
}

void Gen::drop(std::initializer_list<std::string> names) {
  std::erase_if(vars_,
                [&](const Var& v) { return std::count(names.begin(), names.end(), v.name); });
}

void Gen::update_point(std::vector<std::string>& out, int indent, const Var& D,
                       const std::string& k, const Var& x) {
  drop({D.name, x.name});
  bind(out, indent, D.ty, D.name + " with [" + k + "] = " + x.name);
  // A type with a size of the body's own cannot be a result of the function.
  auto global = [](const std::string& e) { return e == "n" || e == "m" || e == "(za - zb) * n"; };
  if (!std::all_of(D.ty.dims.begin(), D.ty.dims.end(), global)) vars_.pop_back();
}

void Gen::sc_shape(std::vector<std::string>& out, int indent) {
  const std::string d = random_size(), d2 = random_size();
  const Ty row{"i64", {d}};
  auto source = [&] {
    return chance(50) ? bind(out, indent, row, "iota " + d)
                      : bind(out, indent, row, "replicate " + d + " " + literal("i64"));
  };
  auto destination = [&](const std::string& rows) {
    Var r = bind(out, indent, row, "iota " + d);
    return bind(out, indent, Ty{"i64", {rows, d}}, "replicate " + rows + " " + r.name);
  };
  const Ty i64{"i64", {}};
  switch (rnd(10)) {
  case 9: { // bounds: a strided slice update checked at run time; with boundary data the
    // stride is near 2^63 and the slice's last element lies beyond i64 (class 8)
    Var r0 = bind(out, indent, i64, "xs[0]");
    Var e = bind(out, indent, i64, "max(" + r0.name + ", 1)");
    Var f = bind(out, indent, Ty{"i64", {"8"}}, "iota 8");
    Var x = bind(out, indent, Ty{"i64", {"2"}}, "iota 2");
    drop({f.name, x.name});
    bind(out, indent, f.ty, f.name + " with [1 : 2 : " + e.name + "] = " + x.name);
    break;
  }
  case 8: { // an update of a view whose stride is 0 or 1: with 0, its cells overlap
    Var r0 = bind(out, indent, i64, "xs[0]");
    Var e = bind(out, indent, i64, "min(max(" + r0.name + ", 0), 1)");
    Var f = bind(out, indent, Ty{"i64", {"8"}}, "iota 8");
    Var v = bind(out, indent, Ty{"i64", {"4"}}, f.name + "[0 : 4 : " + e.name + "]");
    Var x = bind(out, indent, Ty{"i64", {"2"}}, "iota 2");
    drop({f.name, v.name, x.name});
    bind(out, indent, v.ty,
         v.name + " with [" + (chance(50) ? "1 : 2" : "1 + {(2 : 1)}") + "] = " + x.name);
    break;
  }
  case 0: { // 6.4.2: the index is computed by an if after the creation (not liftable)
    Var D = destination(d2), x = source();
    Var k = bind(out, indent, i64, scalar_if(indent, index_for(d2), d2 + " - 1"));
    out.back().replace(out.back().find("let " + k.name), 4 + k.name.size(),
                       "let (" + k.name + " : i64)");
    update_point(out, indent, D, k.name, x);
    break;
  }
  case 1: { // 6.4.2: the index is read from the source
    Var D = destination(d2), x = source();
    Var r0 = bind(out, indent, i64, x.name + "[0]");
    Var k = bind(out, indent, i64, "min(max(" + r0.name + ", 0), " + d2 + " - 1)");
    update_point(out, indent, D, k.name, x);
    break;
  }
  case 2: { // bounds: a run-time check whose entry may overflow when evaluated
    Var e = bind(out, indent, i64, "xs[0]");
    Var D = destination(d2), x = source();
    update_point(out, indent, D,
                 "(" + e.name + " * " + e.name + ") / (" + e.name + " * " + e.name + " + 1)", x);
    break;
  }
  case 3: { // bounds: a run-time check blocked by a division by a size (0 for the facts)
    Var e = bind(out, indent, i64, "xs[0]");
    Var D = destination(d2), x = source();
    bind(out, indent, i64, "(" + e.name + " / " + random_size() + ")");
    update_point(out, indent, D, "min(max(" + e.name + ", 0), " + d2 + " - 1)", x);
    break;
  }
  case 4: { // bounds: an LMAD-slice update whose stride has an unknown sign (-1, 0 or 1)
    // and may be 0 (to-imp copies it in sequence unless the run shows distinct cells)
    Var r0 = bind(out, indent, i64, "xs[0]");
    Var e = bind(out, indent, i64, "min(max(" + r0.name + ", -1), 1)");
    Var f = bind(out, indent, Ty{"i64", {"8"}}, "iota 8");
    // Two elements, distinct with iota: with the stride 0 the last one written wins.
    Var x = bind(out, indent, Ty{"i64", {"2"}},
                 chance(50) ? "iota 2" : "replicate 2 " + literal("i64"));
    drop({f.name, x.name});
    bind(out, indent, f.ty, f.name + " with [3 + {(2 : " + e.name + ")}] = " + x.name);
    break;
  }
  case 5:   // 6.2 (1): the destination's rows computed by an if after the creation
  case 6: { // or read from the source
    Var x = source();
    Var k = x;
    if (rnd(2)) {
      Var r0 = bind(out, indent, i64, x.name + "[0]");
      k = bind(out, indent, i64, "max(" + r0.name + ", 1)");
    } else {
      k = bind(out, indent, i64, scalar_if(indent, "n", "m"));
    }
    if (out.back().find(" = if ") != std::string::npos)
      out.back().replace(out.back().find("let " + k.name), 4 + k.name.size(),
                         "let (" + k.name + " : i64)");
    Var D = destination(k.name);
    update_point(out, indent, D, "0", x);
    break;
  }
  default: { // the place's injectivity: strides the nested test cannot order (3 x 2
    // elements at strides 2 and 3: distinct cells), equal strides, a 0 stride, nested
    static const int dims[][4] = {{3, 2, 2, 3}, {2, 3, 3, 2}, {2, 1, 2, 1}, {2, 0, 2, 1},
                                  {2, 3, 2, 1}, {2, 1, 2, 3}, {3, 1, 2, 1}};
    const auto& d4 = dims[rnd(7)];
    const std::string c0 = std::to_string(d4[0]), c1 = std::to_string(d4[2]);
    Var f = bind(out, indent, Ty{"i64", {"8"}}, "iota 8");
    Var r = bind(out, indent, Ty{"i64", {c1}}, "iota " + c1);
    Var x = bind(out, indent, Ty{"i64", {c0, c1}}, "replicate " + c0 + " " + r.name);
    drop({f.name, x.name});
    bind(out, indent, f.ty,
         f.name + " with [0 + {(" + c0 + " : " + std::to_string(d4[1]) + "), (" + c1 + " : " +
             std::to_string(d4[3]) + ")}] = " + x.name);
  }
  }
}

void Gen::alias_shape(std::vector<std::string>& out, int indent) {
  const std::string d = random_size(), in = pad(indent + 1), j = fresh("j");
  const Ty row{"i64", {d}};
  auto fresh_row = [&] {
    auto vs = vars_of(row);
    return bind(out, indent, row,
                !vs.empty() && chance(50) ? "copy " + pick(vs)->name : "iota " + d);
  };
  auto update = [&](const Var& a) {
    const Var v = bind(out, indent, Ty{"i64", {}}, sexp("i64", 1));
    drop({a.name});
    return bind(out, indent, row, a.name + " with [" + index_for(d) + "] = " + v.name);
  };
  auto pair = [&](const std::string& exp) { // `let (a : row) (b : row) = exp`
    const Var a{fresh("a"), row}, b{fresh("a"), row};
    out.push_back(pad(indent) + "let (" + a.name + " : " + row.text() + ") (" + b.name + " : " +
                  row.text() + ") = " + exp);
    vars_.push_back(a);
    vars_.push_back(b);
  };
  const std::string loop2 = "loop (p : " + row.text() + ") (q : " + row.text() + ") = (";
  // `if cond then [pre] in (a) else in (b)` in the layout the shrinker reads, for a
  // `let` at indentation `ind`.
  auto if_text = [&](int ind, const std::string& cond, const std::string& pre, const std::string& a,
                     const std::string& b) {
    const std::string bi = "\n" + pad(ind + 2);
    return "if " + cond + " then" + (pre.empty() ? "" : bi + pre) + bi + "in (" + a + ")\n" +
           pad(ind + 1) + "else" + bi + "in (" + b + ")";
  };
  const Var x1 = fresh_row(), x2 = fresh_row();
  switch (rnd(6)) {
  case 0: { // an if's result that is x1 or x2 (or a view of x1), updated
    const bool view = chance(50);
    Var r = bind(
        out, indent, row,
        if_text(indent, sexp("bool", 1),
                view ? "let (t : " + row.text() + ") = " + x1.name + "[0 : " + d + " : 1]" : "",
                view ? "t" : x1.name, x2.name));
    drop({x1.name, x2.name});
    update(r);
    break;
  }
  case 1: { // a loop whose body returns x2 (and reads it), its result maybe updated
    Var r = bind(out, indent, row,
                 "loop (p : " + row.text() + ") = (" + x1.name + ") for " + j + " < " + d +
                     " do\n" + in + "let e = p[" + j + "]\n" + in + "let e2 = " + x2.name + "[" +
                     j + "]\n" + in + "in (" + x2.name + ")");
    if (chance(50)) break; // read only: x2 stays usable (a later copy of x2 is no point)
    drop({x1.name, x2.name});
    update(r);
    break;
  }
  case 2: // two parameters from one array: q is copied, p updated while q is read
    pair(loop2 + x1.name + ", " + x1.name + ") for " + j + " < " + d + " do\n" + in +
         "let e0 = q[" + j + "]\n" + in + "let e = e0 + 1\n" + in + "let (p2 : " + row.text() +
         ") = p with [" + j + "] = e\n" + in + "in (p2, q)");
    drop({x1.name});
    break;
  case 3: { // the body reads w, an if's result (or a view) that is the initial value
    Var w = bind(out, indent, row,
                 chance(50) ? x1.name + "[0 : " + d + " : 1]"
                            : if_text(indent, sexp("bool", 1), "", x1.name, x1.name));
    bind(out, indent, row,
         "loop (p : " + row.text() + ") = (" + x1.name + ") for " + j + " < " + d + " do\n" + in +
             "let e0 = " + w.name + "[" + j + "]\n" + in + "let e = e0 + " + j + "\n" + in +
             "let (p2 : " + row.text() + ") = p with [" + j + "] = e\n" + in + "in (p2)");
    drop({x1.name, w.name});
    break;
  }
  case 4: // a body result that is p2 in the first iteration and q after
    pair(loop2 + x1.name + ", " + x2.name + ") for " + j + " < " + d + " do\n" + in +
         "let (p2 : " + row.text() + ") = p with [" + j + "] = " + j + "\n" + in +
         "let (r : " + row.text() + ") = " + if_text(indent + 1, j + " == 0", "", "p2", "q") +
         "\n" + in + "let e = r[" + j + "]\n" + in + "in (p2, r)");
    drop({x1.name, x2.name});
    break;
  default: // a swap updating q: both initial values are consumed
    pair(loop2 + x1.name + ", " + x2.name + ") for " + j + " < " + d + " do\n" + in +
         "let e0 = p[" + j + "]\n" + in + "let e = e0 + 1\n" + in + "let (q2 : " + row.text() +
         ") = q with [" + j + "] = e\n" + in + "in (q2, p)");
    drop({x1.name, x2.name});
  }
}

void Gen::concat(std::vector<std::string>& out, int indent, int depth) {
  Ty ta = random_array_type(), tb = ta;
  tb.dims[0] = random_size();
  Var a = find_or_produce(out, indent, depth, ta);
  Var b = find_or_produce(out, indent, depth, tb);
  Ty t = ta;
  t.dims[0] = ta.dims[0] + " + " + tb.dims[0];
  bind(out, indent, t, "concat " + a.name + " " + b.name);
}

void Gen::rare_shape(std::vector<std::string>& out, int indent) {
  const std::string d = random_size(), d2 = random_size(), in = pad(indent + 2);
  const Ty row{"i64", {d}};
  switch (rnd(4)) {
  case 3: { // a one-element slice update at the stride -2^63: the place's coefficients
    // leave 64 bits, and no access can be summarised (summary)
    Var f = bind(out, indent, Ty{"i64", {"8"}}, "iota 8");
    Var x = bind(out, indent, Ty{"i64", {"1"}}, "iota 1");
    drop({f.name, x.name});
    bind(out, indent, f.ty, f.name + " with [3 : 1 : -9223372036854775808] = " + x.name);
    break;
  }
  case 0: { // an if's outside result passed on as an update's value in a branch
    Var b = bind(out, indent, row, chance(50) ? "iota " + d : "replicate " + d + " 1");
    Var r = bind(out, indent, row, "iota " + d);
    Var D = bind(out, indent, Ty{"i64", {d2, d}}, "replicate " + d2 + " " + r.name);
    const Var y{fresh("a"), row}, z{fresh("s"), {"i64", {}}};
    const std::string t = fresh("a"), t2 = fresh("a"), r1 = fresh("a"), e = fresh("s");
    // The branch passing b on: into a row of a fresh matrix, or into a flat array
    // through an LMAD update.
    const bool lmad = chance(40);
    std::string pass_on = lmad ? in + "let (" + t + " : [2 * " + d + "]i64) = iota 2 * " + d +
                                     "\n" + in + "let (" + t2 + " : [2 * " + d + "]i64) = " + t +
                                     " with [" + d + " + {(" + d + " : 1)}] = " + b.name + "\n"
                               : in + "let (" + r1 + " : " + row.text() + ") = iota " + d + "\n" +
                                     in + "let (" + t + " : [2]" + row.text() + ") = replicate 2 " +
                                     r1 + "\n" + in + "let (" + t2 + " : [2]" + row.text() +
                                     ") = " + t + " with [1] = " + b.name + "\n";
    const std::string outside = pass_on + in + "let " + e + " = " + literal("i64") + "\n" + in +
                                "in (" + b.name + ", " + e + ")";
    const std::string y0 = fresh("a"), e0 = fresh("s");
    const std::string other = in + "let (" + y0 + " : " + row.text() + ") = iota " + d + "\n" + in +
                              "let " + e0 + " = " + literal("i64") + "\n" + in + "in (" + y0 +
                              ", " + e0 + ")";
    outside_result_point(out, indent, y, z, outside, other, b.name, D, d2);
    break;
  }
  case 1: { // a read of the destination's row between the source's creation and the
    // destination's: safe under the assume (hoisting passes it), else it may fail
    if (chance(70)) out.push_back(pad(indent) + "assume " + d + " > 0");
    Var x = bind(out, indent, row, chance(50) ? "iota " + d : "replicate " + d + " 2");
    Var r = bind(out, indent, row, "iota " + d);
    bind(out, indent, Ty{"i64", {}}, r.name + "[0]");
    Var D = bind(out, indent, Ty{"i64", {d2, d}}, "replicate " + d2 + " " + r.name);
    update_point(out, indent, D, index_for(d2), x);
    break;
  }
  default: { // a scratch of s * s elements (zeros) built in a row of the destination,
    // s read from the data: nothing bounds s * s
    Var e = bind(out, indent, Ty{"i64", {}}, "xs[0]");
    Var s = bind(out, indent, Ty{"i64", {}}, "max(" + e.name + ", 1)");
    const std::string nm = s.name + " * " + s.name;
    const Ty flat{"i64", {nm}};
    Var r = bind(out, indent, flat, "iota " + nm);
    Var D = bind(out, indent, Ty{"i64", {d2, nm}}, "replicate " + d2 + " " + r.name);
    drop({r.name}); // its size is local: not a result of the function
    Var x = bind(out, indent, flat, "scratch");
    update_point(out, indent, D, "0", x);
  }
  }
}

void Gen::if_other_result_index(std::vector<std::string>& out, int indent) {
  const std::string d = random_size(), in = pad(indent + 2);
  const Ty row{"i64", {d}}, two{"i64", {"2"}};
  Var r = bind(out, indent, row, "iota " + d);
  Var D = bind(out, indent, Ty{"i64", {"2", d}}, "replicate 2 " + r.name);
  const Var y{fresh("a"), row}, b{fresh("a"), two};
  // Each branch's second array holds a row of D at index 1 (0 or 1).
  auto branch = [&](bool first) {
    const std::string y0 = fresh("a"), b0 = fresh("a");
    const std::string ys = first ? "iota " + d : "replicate " + d + " " + literal("i64");
    const std::string bs = first ? "iota 2" : "replicate 2 " + std::to_string(rnd(2));
    return in + "let (" + y0 + " : " + row.text() + ") = " + ys + "\n" + in + "let (" + b0 + " : " +
           two.text() + ") = " + bs + "\n" + in + "in (" + y0 + ", " + b0 + ")";
  };
  out.push_back(pad(indent) + "let (" + y.name + " : " + row.text() + ") (" + b.name + " : " +
                two.text() + ") = if " + sexp("bool", 1) + " then\n" + branch(true) + "\n" +
                pad(indent + 1) + "else\n" + branch(false));
  vars_.push_back(y);
  vars_.push_back(b);
  Var k0 = bind(out, indent, Ty{"i64", {}}, b.name + "[1]");
  Var k = bind(out, indent, Ty{"i64", {}}, "min(max(" + k0.name + ", 0), 1)");
  update_point(out, indent, D, k.name, y);
}

void Gen::if_outside_read(std::vector<std::string>& out, int indent) {
  const std::string d = random_size(), d2 = random_size(), in = pad(indent + 2);
  const Ty row{"i64", {d}};
  Var b = bind(out, indent, row, "iota " + d);
  Var r = bind(out, indent, row, "iota " + d);
  Var D = bind(out, indent, Ty{"i64", {d2, d}}, "replicate " + d2 + " " + r.name);
  const Var y{fresh("a"), row}, z{fresh("s"), {"i64", {}}};
  const std::string y0 = fresh("a"), t = fresh("s"), e = fresh("s");
  std::string other =
      in + "let (" + y0 + " : " + row.text() + ") = replicate " + d + " " + literal("i64") + "\n";
  if (chance(50)) { // the sum of b's elements, read in a loop
    const std::string z0 = fresh("s"), acc = fresh("s"), j = fresh("j"), v = fresh("s"),
                      acc2 = fresh("s"), in2 = pad(indent + 3);
    other += in + "let " + z0 + " = 0\n" + in + "let (" + t + " : i64) = loop (" + acc +
             " : i64) = (" + z0 + ") for " + j + " < " + d + " do\n" + in2 + "let " + v + " = " +
             b.name + "[" + j + "]\n" + in2 + "let " + acc2 + " = " + acc + " + " + v + "\n" + in2 +
             "in (" + acc2 + ")\n";
  } else {
    other += in + "let " + t + " = " + b.name + "[0]\n";
  }
  other += in + "in (" + y0 + ", " + t + ")";
  const std::string outside =
      in + "let " + e + " = " + literal("i64") + "\n" + in + "in (" + b.name + ", " + e + ")";
  outside_result_point(out, indent, y, z, outside, other, b.name, D, d2);
}

void Gen::outside_result_point(std::vector<std::string>& out, int indent, const Var& y,
                               const Var& z, const std::string& outside, const std::string& other,
                               const std::string& b, const Var& D, const std::string& d2) {
  const bool then_outside = chance(50);
  out.push_back(pad(indent) + "let (" + y.name + " : " + y.ty.text() + ") (" + z.name +
                " : i64) = if " + sexp("bool", 1) + " then\n" + (then_outside ? outside : other) +
                "\n" + pad(indent + 1) + "else\n" + (then_outside ? other : outside));
  drop({b});
  vars_.push_back(y);
  vars_.push_back(z);
  update_point(out, indent, D, index_for(d2), y);
}

} // namespace funmem::gen_detail
