// The `overloaded` idiom for exhaustive std::visit over AST node variants: every
// alternative needs its own lambda, so a new node kind does not compile until each
// visitor handles it. Example: std::visit(Overloaded{[](const Lit&) {...}, ...}, e.node).
#pragma once

namespace funmem {

template <class... Ts> struct Overloaded : Ts... { using Ts::operator()...; };
template <class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;

} // namespace funmem
