// Short-circuiting: the report's counts and its text for people (see short_circuit.h).
#include "analysis/short_circuit.h"

#include "analysis/short_circuit/pass.h"

#include <cmath>

namespace funmem {

const char* sc_kind_name(ScKind k) {
  switch (k) {
  case ScKind::Update:
    return "update";
  case ScKind::Concat:
    return "concat operand";
  case ScKind::KernelResult:
    return "kernel result";
  case ScKind::Copy:
    return "copy";
  case ScKind::ScalarMap:
    return "in-place scalar map";
  }
  return "?";
}

int ScReport::proved_points() const {
  int n = 0;
  for (const ScAttempt& a : attempts)
    n += a.proved && a.kind != ScKind::ScalarMap;
  return n;
}

int ScReport::scalar_maps() const {
  int n = 0;
  for (const ScAttempt& a : attempts)
    n += a.proved && a.kind == ScKind::ScalarMap;
  return n;
}

int ScReport::refused() const {
  int n = 0;
  for (const ScAttempt& a : attempts)
    n += !a.proved;
  return n;
}

const std::vector<ScRule>& sc_rules() {
  static const std::vector<ScRule> rules = {
      {"point proved: update", "an update's source built in the destination"},
      {"point proved: concat operand", "a concat operand built in the destination"},
      {"point proved: kernel result", "a kernel result built in the destination row"},
      {"point proved: in-place scalar map", "6.9: a kernel's scalar result in its input's block"},
      {"point proved: copy", "a copy built in the destination"},
      {"proved: bounds", "the place is inside the destination, by the facts at the creation"},
      {"proved: bounds at run time", "the update's bounds check moved to the creation"},
      {"proved: injective (nested strides)", "the place sends distinct elements to distinct cells"},
      {"proved: injective (SOSI)", "the same, by the prover per dimension"},
      {"proved: 6.4.3", "a write of the source against a later use of the destination"},
      {"proved: 6.6.1 later iterations", "a carrying loop's writes against later iterations"},
      {"proved: 6.6.2 other threads", "a creating kernel's thread against the other threads"},
      {"proved: 6.6.2 threads of the enclosing kernel", "the point's kernel, other threads"},
      {"applied: lift definition", "6.4.2: a scalar definition moved above the creation"},
      {"applied: lift allocation", "6.2 (1): the destination's alloc moved above the creation"},
      {"applied: scratch as replicate", "a scratch source became replicate n 0"},
      {"applied: hoist destination", "the destination's creation moved above the source's"},
      {"refused: creation point", "no creation point (parameter, outside, loop, if)"},
      {"refused: creation point: own layout races", "the source's own layout has a 0 stride"},
      {"refused: creation point: scratch of more than one dimension", "class 5"},
      {"refused: creation point: scratch count may fail", "its replicate's count may overflow"},
      {"refused: creation point: block shared with other arrays", "the block it takes over"},
      {"refused: creation point: block shared by the threads", "its creation races"},
      {"refused: creation point: branch result used otherwise", "an if's outside result"},
      {"refused: 6.4.1 change of layout", "a slice between the creation and the point"},
      {"refused: last use", "the source is used after the point"},
      {"refused: 6.2 (1) destination memory", "the destination's block comes too late"},
      {"refused: 6.2 (1) destination memory: not liftable", "its allocation cannot move"},
      {"refused: 6.2 (1) destination memory: depends on the source", "its size reads the source"},
      {"refused: 6.2 (1) destination memory: may fail", "it may fail, past one that may too"},
      {"refused: 6.4.2 index-function projection: not liftable", "a name of the place"},
      {"refused: 6.4.2 index-function projection: depends on the source", "read from it"},
      {"refused: 6.4.2 index-function projection: may fail", "a definition that may fail"},
      {"refused: 6.4.2 index-function projection: place divides", "evaluated at the creation"},
      {"refused: 6.4.2 index-function projection: stride may be 0", "class 6"},
      {"refused: 6.4.2 index-function projection: elements may share a cell", "class 6"},
      {"refused: bounds: LMAD-slice update", "not provably inside; no run-time check"},
      {"refused: bounds: an entry may fail", "its run-time check would change the order"},
      {"refused: bounds: blocked by a statement that may fail", "the check cannot move"},
      {"refused: bounds: destination checked after the creation",
       "its place rests on a later run-time check"},
      {"refused: bounds: stride sign unknown", "an LMAD-slice update"},
      {"refused: bounds: destination not shown inside its block", "its layout may leave it"},
      {"refused: bounds: source not shown inside its block", "its layout may leave it"},
      {"refused: bounds: address may wrap", "an access not shown within +-2^62"},
      {"refused: bounds: not liftable", "a name of the check"},
      {"refused: bounds: depends on the source", "a name of the check"},
      {"refused: bounds: may fail", "a name of the check"},
      {"refused: 6.4.3 non-overlap", "a write may overlap a later use"},
      {"refused: 6.6.1 later iterations non-overlap", "a later iteration may see a write"},
      {"refused: 6.6.2 other threads non-overlap", "another thread may see a write"},
      {"refused: 6.6.2 threads of the enclosing kernel non-overlap", "the point's kernel"},
      {"refused: 6.6.1 loops", "a loop's writes cannot be expanded"},
      {"refused: summary", "an access cannot be summarised"},
      {"refused: hoist destination: needs the source's creation", "the hoist is not tried"},
      {"refused: hoist destination: may fail", "moved and passed statements may both fail"},
      {"refused: hoist destination: passes a use of a moved block", "class 7"},
      {"refused: hoist destination: not a statement that can move", "a loop, if or view"},
      {"refused: hoist destination: writes a block it does not allocate", "not fresh"},
      {"dropped: a fact over floats", "class 2: a fact over non-integers is not used"},
  };
  return rules;
}

void count_sc_rules(const ScReport& r, std::map<std::string, int64_t>& counts) {
  for (const ScRule& rule : sc_rules())
    counts.emplace(rule.id, 0);
  for (const ScAttempt& a : r.attempts) {
    if (a.proved)
      ++counts[std::string("point proved: ") + sc_kind_name(a.kind)];
    else
      ++counts[a.rule];
    for (const ScProof& p : a.proofs) {
      if (p.answer.rfind("disjoint", 0) != 0 && p.answer.rfind("inside", 0) != 0 &&
          p.answer.rfind("checked at run time", 0) != 0 && p.answer.rfind("distinct", 0) != 0)
        continue; // the question that refused the attempt
      std::string id = "proved: " + p.check;
      if (p.check == "bounds" && p.answer.rfind("checked at run time", 0) == 0)
        id = "proved: bounds at run time";
      if (p.check == "injective")
        id = p.answer.find("nested strides") != std::string::npos
                 ? "proved: injective (nested strides)"
                 : "proved: injective (SOSI)";
      ++counts[id];
    }
    for (const std::string& f : a.fired)
      ++counts[f];
  }
  for (const auto& [id, n] : r.events)
    counts[id] += n;
}

std::string sc_report_text(const ScReport& r) {
  std::string s;
  for (const ScAttempt& a : r.attempts) {
    std::string what = a.kind == ScKind::ScalarMap ? a.dest + " built in the memory of " + a.source
                                                   : a.source + " into " + a.dest;
    s += sc::at(a.pos) + ": " + sc_kind_name(a.kind) + ": " + what + " (@" + a.dest_mem + " -> " +
         a.projected + "): " + (a.proved ? "proved" : "refused (" + a.property + ")") + "\n";
    if (!a.creation.empty()) s += "    creation: " + a.creation + "\n";
    s += "    cost: " + std::to_string(std::lround(a.ms)) + " ms, " + std::to_string(a.queries) +
         " solver questions, " + std::to_string(a.z3_calls) + " sent to Z3\n";
    if (!a.proved) s += "    why: " + a.reason + "\n";
    for (const std::string& l : a.lifted)
      s += "    lifted above the creation: " + l + "\n";
    for (const ScProof& p : a.proofs)
      s += "    " + p.check + ": " + p.write + "  vs  " + p.use + ": " + p.answer + "\n";
    if (!a.rewritten.empty()) {
      s += "    now in " + a.dest_mem + ":";
      for (const std::string& n : a.rewritten)
        s += " " + n;
      s += "\n";
    }
    for (const std::string& m : a.removed)
      s += "    removed: alloc of " + m + "\n";
  }
  s += "sc: " + std::to_string(r.proved_points()) + " points short-circuited, " +
       std::to_string(r.scalar_maps()) + " in-place scalar maps, " + std::to_string(r.refused()) +
       " refused (" + std::to_string(std::lround(r.ms)) + " ms)\n";
  return s;
}

namespace sc {

const char* property_name(Property p) {
  switch (p) {
  case Property::CreationPoint:
    return "creation point";
  case Property::ChangeOfLayout:
    return "6.4.1 change of layout";
  case Property::LastUse:
    return "last use";
  case Property::DestinationMemory:
    return "6.2 (1) destination memory";
  case Property::Projection:
    return "6.4.2 index-function projection";
  case Property::Bounds:
    return "bounds";
  case Property::NonOverlap:
    return "6.4.3 non-overlap";
  case Property::LaterIterations:
    return "6.6.1 later iterations non-overlap";
  case Property::OtherThreads:
    return "6.6.2 other threads non-overlap";
  case Property::EnclosingThreads:
    return "6.6.2 threads of the enclosing kernel non-overlap";
  case Property::Loops:
    return "6.6.1 loops";
  case Property::Summary:
    return "summary";
  }
  return "?";
}

const char* property_rule(Property p) {
  switch (p) {
  case Property::NonOverlap:
    return "6.4.3";
  case Property::LaterIterations:
    return "6.6.1 later iterations";
  case Property::OtherThreads:
    return "6.6.2 other threads";
  case Property::EnclosingThreads:
    return "6.6.2 threads of the enclosing kernel";
  default:
    return property_name(p);
  }
}

} // namespace sc

} // namespace funmem
