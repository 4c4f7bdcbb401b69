// SPDX-License-Identifier: MIT
// scenic-switch's settings and its command-line parser (docs/cluster.md 3.11). Errors are
// std::invalid_argument whose text names the option and the bad value.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenic/roce/headers.hpp"
#include "scenic/wire_counters.hpp"

namespace scenic::sw {

inline constexpr unsigned kMaxPorts = 8;
inline constexpr size_t kMaxMacs = 1024;

enum class EcnMode : uint8_t { kOff, kStep, kRed };

// docs/cluster.md 3.6. Sizes in bytes.
struct EcnPolicy {
    EcnMode mode = EcnMode::kStep;
    uint64_t k = 64 * 1024;  // step: mark when Q > k
    uint64_t kmin = 32 * 1024;
    uint64_t kmax = 256 * 1024;
    double pmax = 0.2;
    std::optional<unsigned> ewma_shift;  // red w=N: classic RED average with weight 2^-N
    bool drop_nonect = false;            // red: drop non-ECT frames with probability p
    bool operator==(const EcnPolicy&) const = default;
};

struct PortConfig {
    uint64_t rate_bps = 1'000'000'000;  // 0: no limit
    uint64_t buffer = 1024 * 1024;
    uint32_t overhead = 24;  // preamble 8, FCS 4, inter-frame gap 12
    EcnPolicy ecn;
    bool pfc = false;
    std::string faults;  // fault-wire.md rules for this port ("" = none)
};

struct PfcConfig {
    uint64_t xoff = 128 * 1024;
    uint64_t xon = 64 * 1024;
    uint64_t headroom = 512 * 1024;
};

struct SwitchConfig {
    std::vector<PortConfig> ports;  // [0] is port 1
    PfcConfig pfc;
    uint64_t age_ns = 300'000'000'000;
    size_t max_macs = kMaxMacs;
    uint64_t seed = 1;
    std::string fault_log;  // "" = none
};

// Everything the process takes from its command line.
struct Options {
    SwitchConfig sw;
    std::vector<uint16_t> peer;    // [0]: node 1's UDP port on 127.0.0.1
    std::vector<uint16_t> listen;  // [0]: port 1's own UDP port (0: any free one)
    std::string series;            // CSV path, "" = none
    uint64_t sample_us = 1000;     // 0: no time series
    std::string control;           // UNIX socket path, "" = none
    std::string stats_json;        // written at exit; "" = next to the series or control socket
    bool help = false;
};

// "64K", "1M", "1500": bytes, K/M/G powers of 1024.
uint64_t parse_size(std::string_view option, std::string_view v);
// "1G", "500M", "100000": bit/s, K/M/G powers of 1000; "0" = no limit.
uint64_t parse_rate(std::string_view option, std::string_view v);
// "off", "step:k=64K", "red:min=32K:max=256K:p=0.2[:w=N][:drop-nonect]".
EcnPolicy parse_ecn(std::string_view option, std::string_view v);
bool parse_on_off(std::string_view option, std::string_view v);
// One port option list "rate=500M,ecn=red:...,pfc=on,faults=SPEC" applied to pc (fault rules
// use ';' and ':', never ',').
void apply_port_opts(std::string_view option, std::string_view list, PortConfig& pc);

// argv without the program name. Checks what the switch core does not: every port has a peer.
Options parse_options(std::span<const std::string_view> args);
std::string usage();

}  // namespace scenic::sw
