// Checks of program text that need no grammar (see lexical.h).
#include "ir/lexical.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>
#include <string_view>

namespace funmem {

namespace {

/// The line and column of offset `i` of `text`.
Pos position(const std::string& text, size_t i) {
  Pos p{1, 1};
  for (size_t k = 0; k < i && k < text.size(); ++k) {
    if (text[k] == '\n') {
      ++p.line;
      p.col = 1;
    } else {
      ++p.col;
    }
  }
  return p;
}

} // namespace

std::optional<Diagnostic> screen(std::string& text) {
  int bracket = 0, body = 0, unary_run = 0;
  bool in_comment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (in_comment) {
      if (c == '\n') {
        in_comment = false;
      } else if (c < 32 || c > 126) {
        if (c != '\t') text[i] = ' ';
      }
      continue;
    }
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      in_comment = true;
      continue;
    }
    auto err = [&](std::string msg) {
      return Diagnostic{"parse", position(text, i), std::move(msg)};
    };
    if ((c < 32 && c != '\n' && c != '\t' && c != '\r') || c > 126) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%02x", c);
      return err(std::string("unexpected byte ") + buf + " (programs are ASCII text)");
    }
    if (c == '(' || c == '[' || c == '{') ++bracket;
    if (c == ')' || c == ']' || c == '}') bracket = std::max(0, bracket - 1);
    if (c == '-' || c == '!')
      ++unary_run;
    else if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
      unary_run = 0;
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) ||
                                 text[j] == '_' || text[j] == '\''))
        ++j;
      const std::string_view w(text.data() + i, j - i);
      if (w == "do" || w == "then" || w == "else") ++body;
      if (w == "in") body = std::max(0, body - 1);
      if (body > kMaxNesting)
        return err("bodies nested too deeply (limit " + std::to_string(kMaxNesting) + ")");
      i = j - 1;
      continue;
    }
    if (bracket > kMaxNesting)
      return err("brackets nested too deeply (limit " + std::to_string(kMaxNesting) + ")");
    if (unary_run > kMaxNesting) return err("too many unary operators in a row");
  }
  return std::nullopt;
}

std::optional<Diagnostic> parse_expect(const std::string& rest, Pos pos, Expect& e) {
  std::istringstream is(rest);
  e.pos = pos;
  is >> e.word;
  std::string extra;
  static const std::set<std::string> plain = {"valid", "invalid", "race"};
  static const std::set<std::string> kinds = {
      "parse", "type", "bounds", "overflow", "division", "assume", "elemtype", "size", "resource"};
  if (plain.count(e.word)) {
  } else if (e.word == "error") {
    is >> e.arg;
    if (!kinds.count(e.arg))
      return Diagnostic{"parse", pos,
                        "unknown error kind '" + e.arg +
                            "' (expected parse, type, bounds, overflow, division, "
                            "assume, elemtype, size or resource)"};
  } else if (e.word == "short-circuit") {
    is >> e.arg;
    if (e.arg.empty() || e.arg.find_first_not_of("0123456789") != std::string::npos)
      return Diagnostic{"parse", pos, "expected a count after 'short-circuit'"};
  } else {
    return Diagnostic{"parse", pos,
                      "unknown expectation '" + e.word +
                          "' (expected valid, invalid, race, error KIND or "
                          "short-circuit N)"};
  }
  if (is >> extra)
    return Diagnostic{"parse", pos, "unexpected '" + extra + "' after the expectation"};
  return std::nullopt;
}

} // namespace funmem
