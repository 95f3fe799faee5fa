// The short-circuiting report as JSON (see sc_json.h).
#include "verifier/sc_json.h"

namespace funmem {

nlohmann::json sc_json(const ScReport& r) {
  using nlohmann::json;
  json att = json::array();
  for (const ScAttempt& a : r.attempts) {
    json proofs = json::array();
    for (const ScProof& p : a.proofs)
      proofs.push_back(
          {{"check", p.check}, {"write", p.write}, {"use", p.use}, {"answer", p.answer}});
    att.push_back({{"kind", sc_kind_name(a.kind)},
                   {"point", {{"line", a.pos.line}, {"column", a.pos.col}}},
                   {"source", a.source},
                   {"destination", a.dest},
                   {"destination_memory", a.dest_mem},
                   {"projected", a.projected},
                   {"creation", a.creation},
                   {"proved", a.proved},
                   {"property", a.property},
                   {"reason", a.reason},
                   {"proofs", proofs},
                   {"lifted", a.lifted},
                   {"rewritten", a.rewritten},
                   {"removed", a.removed},
                   {"ms", a.ms}});
  }
  return {{"points", r.proved_points()},
          {"scalar_maps", r.scalar_maps()},
          {"refused", r.refused()},
          {"ms", r.ms},
          {"attempts", att}};
}

} // namespace funmem
