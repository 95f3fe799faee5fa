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

std::string sc_report_text(const ScReport& r) {
  std::string s;
  for (const ScAttempt& a : r.attempts) {
    std::string what = a.kind == ScKind::ScalarMap ? a.dest + " built in the memory of " + a.source
                                                   : a.source + " into " + a.dest;
    s += sc::at(a.pos) + ": " + sc_kind_name(a.kind) + ": " + what + " (@" + a.dest_mem + " -> " +
         a.projected + "): " + (a.proved ? "proved" : "refused (" + a.property + ")") + "\n";
    if (!a.creation.empty()) s += "    creation: " + a.creation + "\n";
    s += "    cost: " + std::to_string(std::lround(a.ms)) + " ms, " +
         std::to_string(a.queries) + " solver questions, " + std::to_string(a.z3_calls) +
         " sent to Z3\n";
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
