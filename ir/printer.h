// Prints FUN / FUNMEM programs in the concrete syntax of docs/syntax.md.
// The output is canonical: parsing it gives an equal AST, and printing that again
// gives the same text (a fixed point).
#pragma once

#include "ir/ast.h"

#include <string>

namespace funmem {

std::string print_lit(const Lit& l);
std::string print_sexp(const SExp& e);
std::string print_lmad(const LmadSyn& l);
std::string print_type(const Type& t);
std::string print_entries(const std::vector<Entry>& es);
std::string print_exp(const Exp& e, int indent = 0);
std::string print_body(const Body& b, int indent);
std::string print_input_value(const InputValue& v);
std::string print_program(const Program& p);

} // namespace funmem
