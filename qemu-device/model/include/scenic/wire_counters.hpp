// SPDX-License-Identifier: MIT
// What the fault-injecting wire (scenic/wire_faults.hpp) needs from its owner, without the
// card's whole Config and counters: the card passes a view of Config::wire_* and keeps these
// counters inside rdma::Counters (the WIRE_* registers); scenic-switch has one set per port.
#pragma once

#include <cstdint>
#include <string>

namespace scenic::wire {

struct FaultConfig {
    std::string rules;       // wire_fault_spec.hpp syntax; "" = none
    uint64_t seed = 0;       // of the ppm= rules' PRNGs
    std::string log_path;    // "" = no log file
    uint32_t drop_ppm = 0;   // legacy drop of every kind of frame, on rx
    std::string log_prefix;  // before each log line ("p2 " in the switch, "" on the card)
    std::string log_option = "scenic: wire-fault-log";  // names the option in errors
};

// The six WIRE_* values of fault-wire.md.
struct Counters {
    uint32_t drops = 0;
    uint32_t dups = 0;
    uint32_t reorders = 0;
    uint32_t delays = 0;
    uint32_t corrupts = 0;
    uint32_t ecn_marks = 0;
};

}  // namespace scenic::wire
