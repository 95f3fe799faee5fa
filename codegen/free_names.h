// The free names of an IMP block (the names it uses but does not declare), for the
// CUDA generator's kernel parameters (codegen/cuda.cpp).
#pragma once

#include "ir/imp.h"
#include "ir/overloaded.h"

#include <set>
#include <string>
#include <vector>

namespace funmem::codegen {

/// The names a block uses but does not declare (its free names), in order of first use.
class FreeNames {
public:
  std::vector<std::string> order;

  void block(const imp::Block& b) {
    frames_.emplace_back();
    for (const imp::Stmt& s : b)
      stmt(s);
    frames_.pop_back();
  }
  /// The free names of a loop's body (its iterator is bound).
  void loop_body(const imp::Loop& l) {
    frames_.emplace_back();
    frames_.back().insert(l.iter.s);
    block(l.body);
    frames_.pop_back();
  }

private:
  std::vector<std::set<std::string>> frames_;
  std::set<std::string> seen_;

public:
  /// The names of an expression (none bound here).
  void names(const SExp& e) { exp(e); }

private:
  void use(const std::string& n) {
    for (const auto& f : frames_)
      if (f.count(n)) return;
    if (seen_.insert(n).second) order.push_back(n);
  }
  void exp(const SExp& e) {
    std::visit(Overloaded{[](const Lit&) {}, [&](const SVar& v) { use(v.name); },
                          [&](const SUnary& u) { exp(*u.a); },
                          [&](const SBinary& b) {
                            exp(*b.a);
                            exp(*b.b);
                          },
                          [&](const SCall& c) {
                            for (const SExpP& a : c.args)
                              exp(*a);
                          }},
               e.node);
  }
  void stmt(const imp::Stmt& s) {
    std::visit(Overloaded{[](const imp::Skip&) {},
                          [&](const imp::Decl& d) { frames_.back().insert(d.name.s); },
                          [&](const imp::Assign& a) {
                            exp(*a.value);
                            use(a.name.s);
                          },
                          [&](const imp::Alloc& a) {
                            exp(*a.size);
                            use(a.mem.s);
                          },
                          [&](const imp::Read& r) {
                            exp(*r.index);
                            use(r.mem.s);
                            use(r.dst.s);
                          },
                          [&](const imp::Write& w) {
                            exp(*w.index);
                            exp(*w.value);
                            use(w.mem.s);
                          },
                          [&](const imp::If& i) {
                            exp(*i.cond);
                            block(i.then_block);
                            block(i.else_block);
                          },
                          [&](const imp::Loop& l) {
                            exp(*l.bound);
                            loop_body(l);
                          },
                          [&](const imp::Assert& a) { exp(*a.cond); }},
               s.node);
  }
};

} // namespace funmem::codegen
