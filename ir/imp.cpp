// Printer for IMP (see imp.h).
#include "ir/imp.h"
#include "ir/overloaded.h"

#include "ir/printer.h"

namespace funmem::imp {

namespace {

std::string pad(int n) {
  return std::string(static_cast<size_t>(n), ' ');
}

std::string block(const Block& b, int indent);

std::string stmt(const Stmt& s, int indent) {
  std::string p = pad(indent);
  return std::visit(
      Overloaded{
          [&](const Skip&) { return p + "skip ;\n"; },
          [&](const Decl& d) {
            return p + "var " + d.name.s + " : " + (d.is_mem ? "mem" : scalar_type_name(d.type)) +
                   " ;\n";
          },
          [&](const Assign& a) { return p + a.name.s + " <- " + print_sexp(*a.value) + " ;\n"; },
          [&](const Alloc& a) { return p + a.mem.s + " <- alloc " + print_sexp(*a.size) + " ;\n"; },
          [&](const Read& r) {
            return p + r.dst.s + " <- " + r.mem.s + "[" + print_sexp(*r.index) + "] ;\n";
          },
          [&](const Write& w) {
            return p + w.mem.s + "[" + print_sexp(*w.index) + "] <- " + print_sexp(*w.value) +
                   " ;\n";
          },
          [&](const If& i) {
            return p + "if " + print_sexp(*i.cond) + " then\n" + block(i.then_block, indent + 2) +
                   p + "else\n" + block(i.else_block, indent + 2) + p + "fi ;\n";
          },
          [&](const Loop& l) {
            return p + (l.parallel ? "kernel " : "for ") + l.iter.s + " < " + print_sexp(*l.bound) +
                   " do\n" + block(l.body, indent + 2) + p + "done ;\n";
          },
          [&](const Assert& a) {
            return p + "assert " + print_sexp(*a.cond) + " " + a.kind + " ;\n";
          }},
      s.node);
}

std::string block(const Block& b, int indent) {
  std::string s;
  for (const Stmt& st : b)
    s += stmt(st, indent);
  return s;
}

} // namespace

std::string print(const Program& p) {
  std::string s = "def " + p.name.s + " (";
  for (size_t i = 0; i < p.params.size(); ++i)
    s += (i ? ", " : "") + p.params[i].name.s + " : " +
         (p.params[i].is_mem ? "mem" : scalar_type_name(p.params[i].type));
  s += ") =\n" + block(p.body, 2) + "  return (";
  for (size_t i = 0; i < p.results.size(); ++i)
    s += (i ? ", " : "") + p.results[i].s;
  return s + ")\n";
}

} // namespace funmem::imp
