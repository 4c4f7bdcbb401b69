// SPDX-License-Identifier: MIT
// The fault-injecting wire (docs/fault-wire.md): the card's frames in both directions pass
// through the rules of Config::wire_faults (and the legacy Config::wire_drop_ppm), which drop,
// duplicate, reorder, delay, corrupt or ECN-mark RoCE v2 RC packets at exact positions or at a
// seeded rate. Every injected fault is logged so that a failing run can be replayed, and counted
// in the RDMA block's WIRE_* registers. scenic-switch runs one per port (docs/cluster.md 3.10).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <fstream>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scenic/event_queue.hpp"
#include "scenic/wire_counters.hpp"
#include "scenic/wire_fault_spec.hpp"

namespace scenic::wire {

// One injected fault. seq: the n-th (1-based) RoCE RC frame in that direction since reset;
// 0 with roce == false (a frame of another kind, only the legacy drop-ppm rule touches those).
struct FaultRecord {
    static constexpr int kDropPpmRule = -1;  // rule: the wire_drop_ppm property
    Dir dir = Dir::kRx;
    uint64_t seq = 0;
    Action action = Action::kDrop;
    int rule = 0;  // index in Config::wire_faults, or kDropPpmRule
    bool roce = false;
    uint32_t qpn = 0;  // BTH dest QP
    uint32_t psn = 0;
    uint8_t opcode = 0;
    bool operator==(const FaultRecord&) const = default;
};

// "tx #57 drop rule=0 qp=0x000011 psn=0x000100 op=0x06" (no newline).
std::string format(const FaultRecord& r);

class WireFaults {
  public:
    using Sink = std::function<void(std::span<const uint8_t>)>;
    struct Hooks {
        Sink rx;  // into the card (the ETH block)
        Sink tx;  // onto the wire (the host's eth_send)
        std::function<Counters&()> counters;
    };
    static constexpr size_t kLogRecords = 4096;
    static constexpr uint64_t kReorderTimeoutNs = 1'000'000;

    // Throws std::invalid_argument for malformed rules or a log file that cannot be opened.
    WireFaults(const FaultConfig& config, EventQueue& events, Hooks hooks);

    void receive(std::span<const uint8_t> frame) { pass(Dir::kRx, frame); }
    void transmit(std::span<const uint8_t> frame) { pass(Dir::kTx, frame); }

    // Device reset: PRNGs re-seeded, positions counted from 1 again, held frames dropped (and
    // counted in WIRE_DROPS). The log is kept.
    void reset();

    [[nodiscard]] const std::deque<FaultRecord>& log() const { return log_; }
    [[nodiscard]] size_t held_frames() const { return held_.size(); }

  private:
    struct RuleState {
        Rule rule;
        int index;
        uint64_t seed;
        uint64_t prng = 0;
        uint64_t matched = 0;
    };
    // Where the RoCE headers of a frame are, from one parse on entry.
    struct Roce {
        uint32_t qpn;
        uint32_t psn;
        uint8_t opcode;
        size_t l3;      // IP header offset
        size_t l3_end;  // one past the ICRC
        bool ipv6;
    };
    struct Held {
        uint64_t id;
        Dir dir;
        std::vector<uint8_t> frame;
        unsigned copies;                     // 2 when dup also fired
        std::optional<uint32_t> overtakers;  // reorder: later frames still to pass it
        EventQueue::Id event;
    };

    void pass(Dir dir, std::span<const uint8_t> frame);
    bool fires(RuleState& rs);
    void record(Dir dir, uint64_t seq, Action a, int rule, const std::optional<Roce>& roce);
    void hold(Dir dir, std::vector<uint8_t> frame, unsigned copies, const Rule& rule);
    void release(uint64_t id);
    // Delivers frame and lets it overtake the held reordered frames of its direction.
    void emit(Dir dir, std::span<const uint8_t> frame);

    EventQueue& events_;
    Hooks hooks_;
    std::vector<RuleState> rules_;
    std::array<uint64_t, 2> seq_{};
    std::deque<Held> held_;
    uint64_t next_held_ = 1;
    std::deque<FaultRecord> log_;
    std::optional<std::ofstream> log_file_;
    std::string log_prefix_;
};

}  // namespace scenic::wire
