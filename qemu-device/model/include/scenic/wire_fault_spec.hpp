// SPDX-License-Identifier: MIT
// The fault-injecting wire's rule language (QEMU property wire-faults, Config::wire_faults;
// docs/fault-wire.md). QEMU splits -device options at ',', so rules are separated by ';' and
// fields by ':':  rx:drop:nth=3;tx:delay:us=500:qp=0x11
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace scenic::wire {

// rx: frames the card receives, before it sees them; tx: frames it sends, before the wire.
enum class Dir : uint8_t { kRx, kTx };
enum class Action : uint8_t { kDrop, kDup, kReorder, kDelay, kCorrupt, kEcn };

std::string_view to_string(Dir d);
std::string_view to_string(Action a);

struct Rule {
    Dir dir = Dir::kRx;
    Action action = Action::kDrop;
    // Which matching packets fire: with probability ppm / 10^6 each, or the nth (1-based) and
    // the count - 1 after it (count 0: every one from nth on).
    std::optional<uint32_t> ppm;
    uint64_t nth = 1;
    uint64_t count = 1;
    // Filters on the BTH (unset: any).
    std::optional<uint32_t> qp;
    std::optional<uint8_t> opcode;
    std::optional<uint32_t> psn;
    uint64_t delay_us = 100;  // delay: virtual time the frame is held
    uint32_t depth = 1;       // reorder: later frames that overtake the held one
    // Not in the syntax: the legacy wire_drop_ppm property, which drops frames of every kind
    // (ARP, IP, QP1 too), not only RoCE RC packets.
    bool all_frames = false;

    bool operator==(const Rule&) const = default;
};

inline constexpr uint64_t kMaxDelayUs = 10'000'000;  // 10 s of virtual time
inline constexpr uint32_t kMaxReorderDepth = 1024;

// The rules of a SPEC, in order; "" has none. Throws std::invalid_argument naming the bad rule
// (1-based, and its text) and the bad action, key or value.
std::vector<Rule> parse_wire_faults(std::string_view spec);

// Splits s at every sep; empty pieces are kept, so that "a;;b" is reported, not skipped. Also
// the option parser of scenic-switch (tools/switch), whose options use the same fields.
std::vector<std::string_view> split(std::string_view s, char sep);

}  // namespace scenic::wire
