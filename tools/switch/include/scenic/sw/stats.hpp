// SPDX-License-Identifier: MIT
// The switch's counters as JSON: the control socket's `stats` answer and switch.json
// (docs/cluster.md 3.9).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "scenic/sw/core.hpp"

namespace scenic::sw {

// {"t_ns": ns since origin, "macs": n, "mac_evictions": n, "ports": {"1": {counter: value}}}
nlohmann::json stats_json(const Switch& sw, uint64_t now_ns, uint64_t origin_ns);

}  // namespace scenic::sw
