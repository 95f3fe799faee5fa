// The short-circuiting report as JSON, shared by funmem-opt --json and funmem-check --json.
#pragma once

#include "analysis/short_circuit.h"

#include <nlohmann/json.hpp>

namespace funmem {

/// {"points", "scalar_maps", "refused", "ms", "attempts": [{kind, point, source,
/// destination, destination_memory, projected, creation, proved, property, reason,
/// proofs: [{check, write, use, answer}], lifted, rewritten, removed, ms}]}
nlohmann::json sc_json(const ScReport& r);

} // namespace funmem
