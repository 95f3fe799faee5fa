#include "verifier/fuzz.h"

#include "analysis/pipeline.h"
#include "ir/overloaded.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/typecheck.h"
#include "verifier/check.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <vector>

namespace funmem {

uint64_t program_seed(uint64_t campaign_seed, uint64_t index) {
  // splitmix64 of the pair: neighbouring indices give unrelated programs.
  uint64_t z = campaign_seed * 0x9E3779B97F4A7C15ULL + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

FuzzOutcome fuzz_program(const std::string& text, const PassOptions& passes, Lang lang) {
  FuzzOutcome o;
  auto fail = [&](const char* check, std::string detail) {
    o.ok = false;
    o.check = check;
    o.detail = std::move(detail);
    return o;
  };
  ParseResult r = parse_program(text, lang);
  if (!r.program)
    return fail("parse", r.error ? format_diagnostic(*r.error, "fuzz.fun", text) : "no program");
  ++o.checks;
  const std::string printed = print_program(*r.program);
  ParseResult again = parse_program(printed, lang);
  if (!again.program || !(again.program->def == r.program->def))
    return fail("round trip", "print then parse differs:\n" + printed);
  ++o.checks;
  std::vector<Diagnostic> ds = typecheck(*r.program);
  if (!ds.empty()) return fail("typecheck", format_diagnostic(ds.front(), "fuzz.fun", text));
  ++o.checks;
  CheckOptions copt;
  copt.passes = passes;
  copt.limits.audit = true; // the cell audit (docs/fuzzing.md)
  CheckReport rep = check_program("fuzz.fun", *r.program, copt);
  if (rep.sc) count_sc_rules(*rep.sc, o.rules);
  if (!rep.pipeline_error.empty()) return fail("pipeline", rep.pipeline_error);
  // Every stage ends as the source's value semantics does.
  if (!rep.stage_mismatches.empty()) {
    o.kind = "stages differ";
    return fail("stages differ", rep.stage_mismatches.front());
  }
  // A FUNMEM mutant may itself end with an error or race: its stages must only end as it
  // does (verifier/mutate.h).
  if (lang == Lang::FunMem) return o;
  std::string expect_error;
  for (const Expect& e : r.program->expects)
    if (e.word == "error") expect_error = e.arg;
  if (!expect_error.empty()) {
    // The value semantics must stop with the expected error; every stage then stops with
    // the same error at the same position (the stage check above).
    for (const DataSetRun& run : rep.runs) {
      if (!run.value_error || run.value_error->kind != expect_error)
        return fail(expect_error == "bounds" ? "no bounds error" : "no expected error",
                    run.name + ": the value semantics " +
                        (run.value_error ? "fails with " + run.value_error->kind
                                         : std::string("runs without error")));
      ++o.checks;
    }
    return o;
  }
  for (const DataSetRun& run : rep.runs) {
    if (run.valid()) {
      ++o.checks;
      continue;
    }
    std::string why = run.input_error   ? std::string(run.input_error->what())
                      : run.value_error ? "value semantics: " + std::string(run.value_error->what())
                      : run.heap_error
                          ? std::string(run.memory_semantics()) + ": " + run.heap_error->what()
                      : !run.races.empty() ? "a data race: " + run.races.front().to_string()
                                           : "results differ: " + run.mismatch.value_or("");
    o.kind = run.input_error   ? "input"
             : run.value_error ? "value semantics: " + run.value_error->kind
             : run.heap_error  ? std::string(run.memory_semantics()) + ": " + run.heap_error->kind
             : !run.races.empty() ? "race"
                                  : "results differ";
    return fail("validity", run.name + ": " + why);
  }
  for (const ExpectResult& e : rep.expectations)
    if (e.status == ExpectStatus::Fails) return fail("expectation", e.detail);
  return o;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> ls;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    ls.push_back(l);
  return ls;
}

namespace {

std::string join(const std::vector<std::string>& ls) {
  std::string s;
  for (const std::string& l : ls)
    s += l + "\n";
  return s;
}

size_t indent_of(const std::string& l) {
  size_t k = 0;
  while (k < l.size() && l[k] == ' ')
    ++k;
  return k;
}

/// The lines [i, end) of the statement starting at line i: it and the lines nested deeper.
size_t extent(const std::vector<std::string>& ls, size_t i) {
  size_t end = i + 1;
  while (end < ls.size() && !ls[end].empty() && ls[end].rfind("--", 0) != 0 &&
         indent_of(ls[end]) > indent_of(ls[i]))
    ++end;
  return end;
}

int count_inputs(const std::vector<std::string>& ls) {
  int n = 0;
  for (const std::string& l : ls)
    n += l.rfind("-- input:", 0) == 0 ? 1 : 0;
  return n;
}

} // namespace

std::vector<std::string> expression_operands(const std::string& text) {
  auto e = parse_sexp(text);
  if (!e) return {};
  std::vector<std::string> out;
  std::visit(Overloaded{[&](const SUnary& u) { out.push_back(print_sexp(*u.a)); },
                        [&](const SBinary& b) {
                          out.push_back(print_sexp(*b.a));
                          out.push_back(print_sexp(*b.b));
                        },
                        [&](const SCall& c) {
                          for (const SExpP& a : c.args)
                            out.push_back(print_sexp(*a));
                        },
                        [](const auto&) {}},
             (*e)->node);
  return out;
}

namespace {

/// The position of the bracket closing the one at `open` (any of ( [ {), or npos.
size_t closing(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t k = open; k < s.size(); ++k) {
    if (s[k] == '(' || s[k] == '[' || s[k] == '{') ++depth;
    if (s[k] == ')' || s[k] == ']' || s[k] == '}')
      if (--depth == 0) return k;
  }
  return std::string::npos;
}

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// `text` is a literal or a name: nothing simpler to put in its place but `0`.
bool atomic(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](char c) { return ident_char(c) || c == '.' || c == '-'; });
}

bool integer_literal(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '-';
  });
}

} // namespace

std::vector<std::string> simpler_expressions(const std::string& line) {
  // The part of the line that holds expressions: a let's right-hand side, an assume's
  // condition. The pattern of a let (its type) is left alone.
  const size_t ind = indent_of(line);
  size_t from = std::string::npos;
  if (line.compare(ind, 4, "let ") == 0) {
    from = line.find(" = ", ind);
    if (from != std::string::npos) from += 3;
  } else if (line.compare(ind, 7, "assume ") == 0) {
    from = ind + 7;
  }
  if (from == std::string::npos) return {};
  std::vector<std::string> out;
  // Put `by` in place of [b, e), unless that changes nothing.
  auto replace = [&](size_t b, size_t e, const std::string& by) {
    std::string cand = line.substr(0, b) + by + line.substr(e);
    if (cand != line && std::find(out.begin(), out.end(), cand) == out.end())
      out.push_back(std::move(cand));
  };
  // A sub-expression at [b, e) becomes one of its operands, in parentheses unless it is
  // a name or a literal; every replacement is a proper part of what it replaces, so
  // repeating the step ends.
  auto operands_of = [&](size_t b, size_t e) {
    for (const std::string& o : expression_operands(line.substr(b, e - b)))
      replace(b, e, atomic(o) ? o : "(" + o + ")");
  };
  for (size_t k = from; k < line.size(); ++k) {
    const char c = line[k];
    if (c != '(' && c != '[') continue;
    const size_t q = closing(line, k);
    if (q == std::string::npos) break;
    if (c == '(') {
      size_t b = k;
      while (b > from && ident_char(line[b - 1]))
        --b;
      operands_of(b, q + 1); // a call `max(a, b)` or a parenthesised expression
      continue;
    }
    // An index, a slice, an update's indices or an LMAD's offset: every component
    // separated by a `,` or a `:` at the top level becomes an operand of it, or `0`.
    for (size_t b = k + 1, j = k + 1; j <= q; ++j) {
      if (j < q && (line[j] == '(' || line[j] == '[' || line[j] == '{')) {
        j = closing(line, j);
        if (j == std::string::npos || j >= q) break;
        continue;
      }
      if (j < q && line[j] != ',' && line[j] != ':') continue;
      std::string part = trim(line.substr(b, j - b));
      const size_t pb = b + line.substr(b, j - b).find(part);
      // An LMAD `o + {(n : s), ...}`: its offset.
      if (const size_t brace = part.find(" + {"); brace != std::string::npos && part.back() == '}')
        part.resize(brace);
      if (!part.empty() && parse_sexp(part)) {
        if (!atomic(part)) operands_of(pb, pb + part.size());
        if (!integer_literal(part)) replace(pb, pb + part.size(), "0");
      }
      b = j + 1;
    }
  }
  // The condition of an `if` as a whole.
  if (line.compare(from, 3, "if ") == 0 && line.size() > from + 8 &&
      line.compare(line.size() - 5, 5, " then") == 0)
    operands_of(from + 3, line.size() - 5);
  return out;
}

std::vector<std::vector<std::string>> drop_one_result(const std::vector<std::string>& ls) {
  // The function's header ends with its result types, `: (t1, t2) =`; its body with
  // `in (r1, r2)`, the last line at the body's indentation.
  size_t def = ls.size(), in = ls.size();
  for (size_t k = 0; k < ls.size(); ++k) {
    if (ls[k].rfind("def ", 0) == 0) def = k;
    if (def < ls.size() && k > def && ls[k].rfind("  in (", 0) == 0) in = k;
  }
  if (def == ls.size() || in == ls.size()) return {};
  const std::string& h = ls[def];
  if (h.size() < 4 || h.compare(h.size() - 3, 3, ") =") != 0) return {};
  // The result types: the `(` after the last ` : `, closed by the `)` before ` =`.
  const size_t colon = h.rfind(" : (");
  if (colon == std::string::npos || closing(h, colon + 3) != h.size() - 3) return {};
  const size_t open = colon + 3;
  auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    int depth = 0;
    std::string cur;
    for (char c : s) {
      depth += (c == '(' || c == '[' || c == '{') ? 1 : (c == ')' || c == ']' || c == '}') ? -1 : 0;
      if (c == ',' && depth == 0) {
        parts.push_back(trim(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    parts.push_back(trim(cur));
    return parts;
  };
  const std::string& r = ls[in];
  if (r.back() != ')') return {};
  const std::vector<std::string> types = split(h.substr(open + 1, h.size() - 3 - open - 1));
  const std::vector<std::string> results = split(r.substr(6, r.size() - 7));
  if (types.size() != results.size() || types.size() < 2) return {};
  std::vector<std::vector<std::string>> out;
  for (size_t drop = types.size(); drop-- > 0;) { // the last first
    std::string ts, rs;
    for (size_t k = 0; k < types.size(); ++k)
      if (k != drop) {
        ts += (ts.empty() ? "" : ", ") + types[k];
        rs += (rs.empty() ? "" : ", ") + results[k];
      }
    std::vector<std::string> cand = ls;
    cand[def] = h.substr(0, open) + "(" + ts + ") =";
    cand[in] = "  in (" + rs + ")";
    out.push_back(std::move(cand));
  }
  return out;
}

std::vector<std::vector<std::string>> keep_one_branch(const std::vector<std::string>& ls,
                                                      size_t i) {
  static const std::regex if_re(R"(^(\s*)let ((?:\(\w+ : [^)]*\) ?)+|\w+) = if .* then$)");
  static const std::regex pat_re(R"(\(\w+ : [^)]*\)|\w+)");
  std::smatch mt;
  if (i >= ls.size() || !std::regex_match(ls[i], mt, if_re)) return {};
  const std::string ind = mt[1], pats_text = mt[2];
  std::vector<std::string> pats;
  for (auto it = std::sregex_iterator(pats_text.begin(), pats_text.end(), pat_re);
       it != std::sregex_iterator(); ++it)
    pats.push_back(it->str());
  const size_t end = extent(ls, i);
  // The `else` of this `if` is the least indented line of its extent.
  size_t else_at = 0, least = std::string::npos;
  for (size_t k = i + 1; k < end; ++k)
    if (indent_of(ls[k]) < least) {
      least = indent_of(ls[k]);
      else_at = ls[k].substr(least) == "else" ? k : 0;
    }
  if (else_at == 0) return {};
  std::vector<std::vector<std::string>> out;
  for (auto [first, last] : {std::pair{i + 1, else_at}, std::pair{else_at + 1, end}}) {
    // [first, last): the branch's statements, then its `in (r1, r2, ...)` line.
    if (last <= first) return {};
    const std::string& in = ls[last - 1];
    const size_t bi = indent_of(in);
    const std::string res = in.substr(bi);
    if (res.rfind("in (", 0) != 0 || res.back() != ')') return {};
    std::vector<std::string> rs;
    std::string rest = res.substr(4, res.size() - 5);
    for (size_t comma; (comma = rest.find(", ")) != std::string::npos;
         rest = rest.substr(comma + 2))
      rs.push_back(rest.substr(0, comma));
    rs.push_back(rest);
    if (rs.size() != pats.size()) return {};
    std::vector<std::string> cand(ls.begin(), ls.begin() + static_cast<std::ptrdiff_t>(i));
    for (size_t k = first; k + 1 < last; ++k) {
      if (indent_of(ls[k]) < bi) return {};
      cand.push_back(ind + ls[k].substr(bi));
    }
    for (size_t j = 0; j < pats.size(); ++j) {
      const bool array = pats[j].front() == '(' && pats[j].find('[') != std::string::npos;
      cand.push_back(ind + "let " + pats[j] + " = " + (array ? "copy " : "") + rs[j]);
    }
    cand.insert(cand.end(), ls.begin() + static_cast<std::ptrdiff_t>(end), ls.end());
    out.push_back(std::move(cand));
  }
  return out;
}

namespace {

/// The statements that may replace line `i` (with its nested body) of a generated
/// program: an array by `replicate` of a literal (through a row for a matrix), a scalar
/// expression by a literal or one of its operands, an assumption by an operand.
std::vector<std::vector<std::string>> constant_replacements(const std::vector<std::string>& ls,
                                                            size_t i) {
  static const std::regex arr_re(
      R"(^(\s*)let \((\w+) : \[([^\]]+)\](?:\[([^\]]+)\])?(\w+)\) = (.*)$)");
  static const std::regex sca_re(R"(^(\s*)let (\w+) = (.*)$)");
  static const std::regex assume_re(R"(^(\s*)assume (.*)$)");
  auto literal = [](const std::string& elem) -> std::string {
    if (elem == "i32") return "0i32";
    if (elem == "f64") return "0.5";
    if (elem == "f32") return "0.5f32";
    if (elem == "bool") return "false";
    return "0";
  };
  std::smatch mt;
  std::vector<std::vector<std::string>> replacements;
  if (std::regex_match(ls[i], mt, arr_re)) {
    const std::string ind = mt[1], name = mt[2], d0 = mt[3], d1 = mt[4], elem = mt[5], rhs = mt[6];
    if (rhs.rfind("replicate", 0) == 0 && extent(ls, i) == i + 1) return replacements;
    if (d1.empty()) {
      replacements.push_back({ind + "let (" + name + " : [" + d0 + "]" + elem + ") = replicate " +
                              (d0.find(' ') != std::string::npos ? "(" + d0 + ")" : d0) + " " +
                              literal(elem)});
    } else {
      const std::string row = name + "_r";
      replacements.push_back(
          {ind + "let (" + row + " : [" + d1 + "]" + elem + ") = replicate " +
               (d1.find(' ') != std::string::npos ? "(" + d1 + ")" : d1) + " " + literal(elem),
           ind + "let (" + name + " : [" + d0 + "][" + d1 + "]" + elem + ") = replicate " +
               (d0.find(' ') != std::string::npos ? "(" + d0 + ")" : d0) + " " + row});
    }
  } else if (std::regex_match(ls[i], mt, sca_re)) {
    const std::string ind = mt[1], name = mt[2], rhs = mt[3];
    // Only an expression becomes a literal: a literal replaced by another literal
    // could go back and forth for ever (`let s = 0` used only as `s == s`).
    bool is_literal = false;
    for (const char* e : {"i64", "f64", "i32", "f32", "bool"})
      is_literal = is_literal || rhs == literal(e);
    if (!is_literal)
      for (const char* e : {"i64", "f64", "i32", "f32", "bool"})
        replacements.push_back({ind + "let " + name + " = " + literal(e)});
    // Then an operand of the expression in its place (a smaller expression, so this
    // ends too); one of another type fails to type-check and is not kept.
    for (const std::string& o : expression_operands(rhs))
      replacements.push_back({ind + "let " + name + " = " + o});
  } else if (std::regex_match(ls[i], mt, assume_re)) {
    const std::string ind = mt[1], cond = mt[2];
    for (const std::string& o : expression_operands(cond))
      replacements.push_back({ind + "assume " + o});
  }
  return replacements;
}

/// One round over the `-- input:` lines of a failing program: drop data sets (keeping
/// one), make booleans false, put 0 in place of large given values, lower sizes; each
/// change kept where `still_fails`. Whether anything changed.
template <class StillFails>
bool shrink_inputs(std::vector<std::string>& ls, StillFails& still_fails) {
  bool progress = false;
  // Drop data sets (keeping one), then lower the sizes of the rest and make their
  // booleans false.
  static const std::regex size_re("([nm])=([0-9]+)");
  for (size_t i = ls.size(); i-- > 0;) {
    if (ls[i].rfind("-- input:", 0) != 0) continue;
    if (count_inputs(ls) > 1) {
      std::vector<std::string> cand = ls;
      cand.erase(cand.begin() + static_cast<std::ptrdiff_t>(i));
      if (still_fails(cand)) {
        ls = std::move(cand);
        progress = true;
        continue;
      }
    }
    for (size_t at = 0; (at = ls[i].find("=true", at)) != std::string::npos; at += 5) {
      std::vector<std::string> cand = ls;
      cand[i].replace(at, 5, "=false");
      if (still_fails(cand)) {
        ls = std::move(cand);
        progress = true;
      }
    }
    // Boundary values in given arrays: each large number (or one with an exponent)
    // becomes 0 where the failure stays.
    static const std::regex big_re("-?[0-9]{3,}(\\.[0-9]*)?(e[0-9]+)?|-?[0-9.]+e[0-9]+");
    for (size_t at = 0;;) {
      std::smatch mt;
      const std::string tail = ls[i].substr(at);
      if (!std::regex_search(tail, mt, big_re)) break;
      const size_t pos = at + static_cast<size_t>(mt.position(0));
      std::vector<std::string> cand = ls;
      cand[i].replace(pos, static_cast<size_t>(mt.length(0)), "0");
      if (still_fails(cand)) {
        ls = std::move(cand);
        progress = true;
        at = pos + 1;
      } else {
        at = pos + static_cast<size_t>(mt.length(0));
      }
    }
    for (bool lowered = true; lowered;) {
      lowered = false;
      std::smatch mt;
      std::string rest = ls[i];
      size_t base = 0;
      while (std::regex_search(rest, mt, size_re)) {
        int v = std::stoi(mt[2]);
        size_t at = base + static_cast<size_t>(mt.position(2));
        if (v > 1) {
          std::vector<std::string> cand = ls;
          cand[i].replace(at, static_cast<size_t>(mt.length(2)), std::to_string(v - 1));
          if (still_fails(cand)) {
            ls = std::move(cand);
            progress = true;
            lowered = true;
            break;
          }
        }
        base += static_cast<size_t>(mt.position(0) + mt.length(0));
        rest = mt.suffix();
      }
    }
  }
  return progress;
}

} // namespace

constexpr int kMaxShrinkRounds = 50;

std::string shrink(const std::string& text, const FuzzOutcome& failure, int* steps,
                   const PassOptions& passes, Lang lang) {
  // A mutant's stages are compared with its own heap semantics: its failure is kept to
  // the stage that first differed (`after sc:`), so that the edits, which a FUNMEM
  // program tolerates less than a FUN one, do not trade it for another stage's.
  auto stage = [](const std::string& detail) {
    const size_t a = detail.find(" after "), b = detail.find(':', a == std::string::npos ? 0 : a);
    return a == std::string::npos || b == std::string::npos ? std::string()
                                                            : detail.substr(a, b - a);
  };
  auto still_fails = [&](const std::vector<std::string>& ls) {
    if (steps) ++*steps;
    FuzzOutcome o = fuzz_program(join(ls), passes, lang);
    return !o.ok && o.check == failure.check && o.kind == failure.kind &&
           (lang != Lang::FunMem || stage(o.detail) == stage(failure.detail));
  };
  std::vector<std::string> ls = split_lines(text);
  // Every round makes the program smaller or its literals and sizes simpler, so it ends;
  // the cap on rounds is a guard against a step that does not.
  for (int round = 0, progress = 1; progress && round < kMaxShrinkRounds; ++round) {
    progress = 0;
    // Drop results (the statements that computed them go next).
    for (bool dropped = true; dropped;) {
      dropped = false;
      for (std::vector<std::string>& cand : drop_one_result(ls))
        if (still_fails(cand)) {
          ls = std::move(cand);
          progress = 1;
          dropped = true;
          break;
        }
    }
    // Drop statements (a nested statement with its body), last first.
    for (size_t i = ls.size(); i-- > 0;) {
      if (i >= ls.size() || ls[i].substr(indent_of(ls[i])).rfind("let ", 0) != 0) continue;
      std::vector<std::string> cand = ls;
      cand.erase(cand.begin() + static_cast<std::ptrdiff_t>(i),
                 cand.begin() + static_cast<std::ptrdiff_t>(extent(ls, i)));
      if (still_fails(cand)) {
        ls = std::move(cand);
        progress = 1;
      }
    }
    // Replace an `if` by one of its branches.
    for (size_t i = ls.size(); i-- > 0;)
      for (std::vector<std::string>& cand : keep_one_branch(ls, i))
        if (still_fails(cand)) {
          ls = std::move(cand);
          progress = 1;
          break;
        }
    // Replace a statement (with its nested body) by a constant of its type: an array by
    // `replicate` of a literal (through a row for a matrix), a scalar by a literal. The
    // statements it read can then be dropped in the next round.
    for (size_t i = ls.size(); i-- > 0;) {
      if (i >= ls.size()) continue;
      const std::vector<std::vector<std::string>> replacements = constant_replacements(ls, i);
      for (const std::vector<std::string>& rep : replacements) {
        std::vector<std::string> cand(ls.begin(), ls.begin() + static_cast<std::ptrdiff_t>(i));
        cand.insert(cand.end(), rep.begin(), rep.end());
        cand.insert(cand.end(), ls.begin() + static_cast<std::ptrdiff_t>(extent(ls, i)), ls.end());
        if (still_fails(cand)) {
          ls = std::move(cand);
          progress = 1;
          break;
        }
      }
    }
    // Replace a sub-expression (an argument, an index, a slice bound, a condition) by one
    // of its operands, an index by 0.
    for (size_t i = ls.size(); i-- > 0;)
      for (std::string& line : simpler_expressions(ls[i])) {
        std::vector<std::string> cand = ls;
        cand[i] = std::move(line);
        if (still_fails(cand)) {
          ls = std::move(cand);
          progress = 1;
          break;
        }
      }
    progress |= shrink_inputs(ls, still_fails);
  }
  return join(ls);
}

std::vector<std::string> sc_refusals(const std::string& text) {
  std::vector<std::string> out;
  ParseResult r = parse_program(text, Lang::Fun);
  if (!r.program) return out;
  PipelineOptions opt;
  opt.stages = {Stage::FunToFunmem, Stage::Sc};
  PipelineResult res = run_pipeline(*r.program, opt);
  const ScReport* sc = res.sc_report();
  if (!sc) return out;
  for (const ScAttempt& a : sc->attempts)
    if (!a.proved) out.push_back(a.property);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace funmem
