// The generator's loops (generator_impl.h): `for`, `while` and `do` loops whose bounds
// and steps may read memory, and the `for` headers whose counters wrap or move down,
// with writes at counter values only C's semantics reach.
#include "frontend/campaign/generator_impl.h"

namespace funmem::frontend::gen_detail {

void Gen::loop(std::ostringstream& o, int ind) {
  std::string pad(static_cast<size_t>(ind) * 2, ' ');
  CType ct = int_type();
  if (ct.bits == 8 && ct.sign) ct = kInt;
  I start = static_cast<I>(below(3));
  // A bound start + (e & 3) and a step 1 + (e & 1): e may read memory.
  Val be = expr(1), se = expr(1);
  if (chance(30)) {
    // A bound or step read from an element other threads may write (a fixed element of
    // any object but an atomic one).
    std::vector<const Obj*> ok;
    for (const Obj& ob : objs_)
      if (ob.kind.empty() && ob.role != Role::Atomic) ok.push_back(&ob);
    if (!ok.empty()) {
      const Obj& ob = *pick(ok);
      Val r;
      r.s = ob.name + "[" + std::to_string(below(8)) + "]";
      r.t = ob.el;
      r.lo = tmin(ob.el);
      r.hi = tmax(ob.el);
      r.uniform = false;
      (chance(50) ? be : se) = r;
      cs_.insert("reads of memory");
    }
  }
  bool bound_mem = be.s.find('[') != std::string::npos,
       step_mem = se.s.find('[') != std::string::npos;
  std::string bound = "(" + lit(start) + " + (" + be.s + " & 3))";
  std::string step = chance(50) ? "1" : "(1 + (" + se.s + " & 1))";
  std::string c = fresh("i");
  Val cv;
  cv.s = c;
  cv.t = ct;
  cv.lo = start;
  cv.hi = start + 3;
  size_t scope = locals_.size();
  ++loop_depth_;
  bool was = in_loop_;
  in_loop_ = true;
  std::ostringstream body;
  int kind = static_cast<int>(below(3));
  // An unsigned counter from 6 below its type's maximum against a signed bound of -5..-2
  // (or -2..1): the comparison converts the bound to the counter's type, so a negative
  // bound runs the loop (at most 5 times, the counter never wraps) and a non-negative one
  // does not. Chosen from the spelling stream, so that no other choice changes.
  bool wrapped = kind == 0 && !ct.sign && ct.bits >= 32 && spell(35);
  std::string first = lit(start);
  if (wrapped) {
    int below_zero = spell(50) ? 5 : 2;
    first = lit(tmax(ct) - 6) + (ct.bits == 64 ? "ull" : "u");
    bound = "((int)(" + be.s + " & 3) - " + std::to_string(below_zero) + ")";
    cv.lo = tmax(ct) - 6;
    cv.hi = tmax(ct) - 1;
  }
  cv.uniform = false;
  if (kind == 0) {
    std::string header = ct.name + std::string(" ") + c + " = " + first + "; " + c + " < " + bound +
                         "; " + c + " += " + step;
    const std::string drawn = header;
    // In a plain kernel a header that reads memory stays as drawn (the broken variant
    // `unread-loop-headers` is caught on such a loop).
    std::string reached;
    std::string head_stmt =
        odd_loop(ct, c, "(int)((" + be.s + " & 0) + (" + se.s + " & 0))", header, cv,
                 wrapped || (plain_ && (bound_mem || step_mem)), reached);
    const bool odd = header != drawn; // the step's expression is in the condition
    // A hint that changes nothing.
    if (hint_() % 100 < 10) {
      o << "#pragma unroll\n";
      cs_.insert("#pragma unroll");
    }
    o << pad << "for (" << header << ") {\n";
    if (!head_stmt.empty()) o << pad << "  " << head_stmt << "\n";
    if (!reached.empty()) counter_guarded(o, pad + "  ", c, reached);
    locals_.push_back({cv, loop_depth_, false});
    stmts(o, 1 + static_cast<int>(below(3)), ind + 1);
    o << pad << "}\n";
    cs_.insert("for loops");
    if (bound_mem || (odd && step_mem)) cs_.insert("loop bounds read from memory");
    if (!odd && step_mem && step != "1") cs_.insert("loop steps read from memory");
    if (wrapped) cs_.insert("unsigned loop counters against signed bounds");
  } else {
    // while / do: the counter advances first, so that `continue` cannot loop for ever.
    o << pad << "{\n" << pad << "  " << ct.name << " " << c << " = " << lit(start) << ";\n";
    if (kind == 1)
      o << pad << "  while (" << c << " < " << bound << ") {\n";
    else
      o << pad << "  do {\n";
    o << pad << "    " << c << " += " << step << ";\n";
    cv.lo = start;
    cv.hi = start + 5;
    locals_.push_back({cv, loop_depth_, false});
    stmts(o, 1 + static_cast<int>(below(3)), ind + 2);
    if (kind == 1)
      o << pad << "  }\n";
    else
      o << pad << "  } while (" << c << " < " << bound << ");\n";
    o << pad << "}\n";
    cs_.insert(kind == 1 ? "while loops" : "do loops");
    if (bound_mem) cs_.insert("loop bounds read from memory");
  }
  in_loop_ = was;
  --loop_depth_;
  locals_.resize(scope);
}

std::string Gen::odd_loop(CType ct, const std::string& c, const std::string& zero,
                          std::string& header, Val& cv, bool taken, std::string& reached) {
  // A `for` header whose counter C wraps or moves otherwise than up by a positive step,
  // each ending within five iterations (from the spelling stream: no other choice
  // changes): a negative step that wraps an unsigned counter past its bound (3, 2, 1, 0,
  // then the type's maximum); an unsigned counter that `c >= 0` never stops, counting
  // down past zero to a break; an unsigned counter from its type's maximum whose
  // condition wraps (`(T)(c + 1) < 3`: the maximum, 0, 1); a signed counter of at most 32
  // bits stepped by `4294967295u` (computed in unsigned, converted back: a step of -1); a
  // halving loop, from a positive start or from a negative one (which rises: -8, -4, -2,
  // then -1, where a break ends it). The bound keeps the
  // drawn bound's and step's expressions (`zero`, their values times 0), reads of
  // memory included.
  if (taken || !spell(60)) return "";
  return odd_header(ct, c, zero, header, cv, reached);
}

std::string Gen::odd_header(CType ct, const std::string& c, const std::string& zero,
                            std::string& header, Val& cv, std::string& reached) {
  // `reached`: a value the counter takes only after it wrapped or moved down (where a
  // summary that counts up by the step as drawn never goes).
  const std::string t = ct.name;
  const uint64_t r = spell_();
  switch (ct.sign ? (ct.bits <= 32 && r % 2 ? 4 : 3) : r % 3) {
  case 0: {
    const int down = spell(50) ? 1 : 2;
    header = t + " " + c + " = " + std::to_string(2 + down) + "; " + c + " < 7 + " + zero + "; " +
             c + " += -" + std::to_string(down);
    cv.lo = 0;
    cv.hi = 2 + down;
    reached = "0";
    cs_.insert("negative steps of unsigned counters");
    return "";
  }
  case 1: {
    header = t + " " + c + " = 1; " + c + " >= " + zero + "; " + c + "--";
    cv.lo = 0;
    cv.hi = tmax(ct);
    cs_.insert("unsigned counters counting down past zero");
    const std::string suffix = ct.bits == 64 ? "ull" : ct.bits == 32 ? "u" : "";
    reached = lit(tmax(ct) - 1) + suffix;
    return "if (" + c + " == " + lit(tmax(ct) - 2) + suffix + ") break;";
  }
  case 2: {
    header = t + " " + c + " = " + lit(tmax(ct)) +
             (ct.bits == 64   ? "ull"
              : ct.bits == 32 ? "u"
                              : "") +
             "; (" + t + ")(" + c + " + 1) < 3 + " + zero + "; " + c + "++";
    cv.lo = 0;
    cv.hi = tmax(ct);
    reached = "1";
    cs_.insert("loop conditions that wrap");
    return "";
  }
  case 4: {
    header = t + " " + c + " = 3; " + c + " > -4 + " + zero + "; " + c + " += 4294967295u";
    cv.lo = -3;
    cv.hi = 3;
    reached = "-2";
    cs_.insert("signed counters stepped by unsigned values");
    return "";
  }
  default: {
    const bool neg = spell(50);
    const std::string op = spell(50) ? " >>= 1" : " /= 2";
    header = t + " " + c + " = " + (neg ? "-8; " : "8; ") + c + (neg ? " > -100 + " : " > ") +
             zero + "; " + c + op;
    cv.lo = neg ? -8 : 1;
    cv.hi = neg ? -2 : 8;
    cs_.insert("halving loops");
    reached = neg ? "-2" : "1";
    if (!neg) return "";
    cs_.insert("halving loops from negative starts");
    return "if (" + c + " == -1) break;";
  }
  }
}

void Gen::tail_loop(std::ostringstream& o) {
  // Now and then, after the last segment: a loop of its own whose counter wraps or moves
  // down, with a write at a value only C's semantics reach (the spelling stream: no
  // other choice changes).
  if (!spell(25)) return;
  static const CType counters[] = {kUChar, kUShort, kUInt, kULL, kUInt, kInt};
  const CType ct = counters[spell_() % std::size(counters)];
  std::string c = fresh("k"), header, reached;
  Val cv;
  const std::string head_stmt = odd_header(ct, c, "0", header, cv, reached);
  o << "  for (" << header << ") {\n";
  if (!head_stmt.empty()) o << "    " << head_stmt << "\n";
  counter_guarded(o, "    ", c, reached, true);
  o << "  }\n";
}

void Gen::counter_guarded(std::ostringstream& o, const std::string& pad, const std::string& c,
                          const std::string& reached, bool always) {
  // (Half of the time:) a write of one fixed element of a global object, by every
  // thread, at a counter value that only the loop's C semantics reach. The kernel is
  // racy at every launch of two threads or more; a summary that misses the value finds
  // no write.
  if (!always && !spell(50)) return;
  std::vector<const Obj*> ok;
  for (const Obj& ob : objs_)
    if (ob.kind.empty() && ob.role != Role::Atomic && !ob.shared) ok.push_back(&ob);
  if (ok.empty()) return;
  const Obj& ob = *ok[spell_() % ok.size()];
  o << pad << "if (" << c << " == " << reached << ") " << ob.name << "[" << spell_() % 4 << "] = ("
    << ob.el.name << ")" << 1 + spell_() % 7 << ";\n";
  cs_.insert("writes at counter values reached after a wrap");
}

} // namespace funmem::frontend::gen_detail
