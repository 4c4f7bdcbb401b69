// SPDX-License-Identifier: MIT
// scenic::sw::Switch, the policy of scenic-switch (docs/cluster.md 3.4-3.10): L2 learning,
// one egress FIFO per port drained by a departure schedule at the port's line rate, ECN marking
// (step or RED), tail drop, PFC towards the nodes, counters and the fault rules of
// fault-wire.md per port. No sockets and no clock: every call takes now_ns (any monotonic
// origin), and frames leave through the Output callback, so tests run it in virtual time.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "scenic/sw/config.hpp"

namespace scenic::sw {

inline constexpr size_t kMinFrame = 14;
inline constexpr size_t kMaxFrame = 9022;  // 9000 MTU + 14 header + 4 VLAN tag + 4 spare
inline constexpr size_t kPfcFrameBytes = 60;
inline constexpr uint16_t kEtherTypeMacControl = 0x8808;
inline constexpr uint16_t kOpcodePfc = 0x0101;
inline constexpr unsigned kRocePriority = 3;
inline constexpr uint16_t kPfcQuantaMax = 0xffff;
inline constexpr size_t kLatenessBuckets = 22;  // < 1 us, [1, 2) us, ... [2^19, 2^20) us, more

// Per-port counters (docs/cluster.md 3.9); u64, cleared by reset_counters().
struct PortCounters {
    uint64_t rx_frames = 0;  // accepted on this port (after the rx fault rules)
    uint64_t rx_bytes = 0;
    uint64_t tx_frames = 0;  // left on this port (before the tx fault rules)
    uint64_t tx_bytes = 0;
    uint64_t flood_frames = 0;  // copies queued here because the destination was not known
    uint64_t drop_tail = 0;
    uint64_t drop_tail_bytes = 0;
    uint64_t drop_red = 0;
    uint64_t drop_headroom = 0;  // tail drops of priority-3 frames from a PFC ingress port
    uint64_t drop_fault = 0;     // dropped by this port's fault rules, either direction
    uint64_t drop_reserved = 0;  // 802.1D reserved destination (not 0x8808), never forwarded
    uint64_t runt = 0;
    uint64_t giant = 0;
    uint64_t foreign = 0;  // the process: a datagram whose source is not this port's node
    uint64_t hairpin = 0;
    uint64_t host_rx_drops = 0;  // the process: SO_RXQ_OVFL, datagrams the kernel dropped
    uint64_t host_tx_drops = 0;  // the process: a send the kernel refused (socket buffer full)
    uint64_t ecn_marked = 0;     // frames this port's queue turned into CE
    uint64_t ecn_ce_in = 0;      // frames that arrived CE already (marked upstream)
    uint64_t ect_frames = 0;     // ECN-capable frames queued here (ECT(0), ECT(1) or CE)
    uint64_t nonect_frames = 0;  // IP frames without ECN capability and non-IP frames
    uint64_t pfc_xoff_tx = 0;
    uint64_t pfc_xon_tx = 0;
    uint64_t pfc_rx = 0;  // MAC control frames from the node, dropped
    uint64_t paused_ns = 0;
    uint64_t q_max_bytes = 0;
};

// The lateness of departures (actual send time - scheduled time), log2 buckets of microseconds.
struct Lateness {
    std::array<uint64_t, kLatenessBuckets> buckets{};
    uint64_t count = 0;
    uint64_t max_ns = 0;

    void add(uint64_t late_ns);
    // The upper bound of the bucket holding the q-quantile (0 < q <= 1), in ns; 0 when empty.
    [[nodiscard]] uint64_t quantile_ns(double q) const;
};

// What a frame is, for queueing: ECN field and offset, PFC priority.
struct Classified {
    bool ip = false;
    bool ipv6 = false;
    size_t l3 = 0;          // IP header offset
    uint8_t ecn = 0;        // the two ECN bits (IP frames only)
    unsigned priority = 0;  // 3: RoCE v2 (UDP destination port 4791), else 0
};
Classified classify(std::span<const uint8_t> frame);

// Sets the ECN field of the IP frame at c.l3 to CE and, for IPv4, rewrites the header
// checksum. The frame must have been classified as IP.
void mark_ce(std::span<uint8_t> frame, const Classified& c);

// The 60-byte 802.1Qbb frame that port `port` sends for priority 3: quanta 0 = XON.
std::array<uint8_t, kPfcFrameBytes> pfc_frame(unsigned port, uint16_t quanta);

// splitmix64: one step per decision (RED draws).
uint64_t splitmix64(uint64_t& state);

class Switch {
  public:
    // port is 1-based.
    using Output = std::function<void(unsigned port, std::span<const uint8_t> frame)>;

    // Throws std::invalid_argument (naming the option) for a bad configuration, e.g. PFC on
    // with a buffer below (ports - 1) * (XOFF + HEADROOM), or fault rules that do not parse.
    Switch(const SwitchConfig& config, Output out, uint64_t now_ns);
    ~Switch();
    Switch(const Switch&) = delete;
    Switch& operator=(const Switch&) = delete;

    // A frame read on `port` at now_ns.
    void receive(unsigned port, std::span<const uint8_t> frame, uint64_t now_ns);
    // Sends every frame due by now_ns, runs the fault rules' timers and PFC refreshes.
    void advance(uint64_t now_ns);
    // When advance() has something to do next; nullopt: nothing pending.
    [[nodiscard]] std::optional<uint64_t> next_deadline_ns() const;

    // Runtime changes (control socket). Throw std::invalid_argument, changing nothing.
    void set_rate(unsigned port, uint64_t rate_bps);
    void set_ecn(unsigned port, const EcnPolicy& ecn);
    void set_pfc(unsigned port, bool on, uint64_t now_ns);
    void set_faults(unsigned port, const std::string& spec);

    // Counters, histograms and queue maxima to 0; queues, schedule and learning untouched.
    void reset_counters(uint64_t now_ns);

    [[nodiscard]] unsigned ports() const { return static_cast<unsigned>(ports_.size()); }
    [[nodiscard]] const SwitchConfig& config() const { return config_; }
    // paused_ns includes the pause running at now_ns.
    [[nodiscard]] PortCounters counters(unsigned port, uint64_t now_ns) const;
    [[nodiscard]] PortCounters& mutable_counters(unsigned port);  // the process's counters
    [[nodiscard]] const Lateness& lateness(unsigned port) const;
    [[nodiscard]] const wire::Counters& wire_counters(unsigned port) const;
    // Q(t) of the egress queue: bytes (frames) with arrival <= t < departure.
    [[nodiscard]] uint64_t queue_bytes(unsigned port, uint64_t now_ns) const;
    [[nodiscard]] uint64_t queue_frames(unsigned port, uint64_t now_ns) const;
    // The largest Q since the previous call (the series' q_max_bytes), then restarts.
    uint64_t take_window_max(unsigned port);
    // Bytes of priority-3 frames that entered on `port` and are still queued (PFC's I_p).
    [[nodiscard]] uint64_t ingress_bytes(unsigned port) const;
    [[nodiscard]] bool paused(unsigned port) const;
    // The RED average of the port (bytes), for tests.
    [[nodiscard]] double red_average(unsigned port) const;
    [[nodiscard]] size_t learned() const { return macs_.size(); }
    [[nodiscard]] std::optional<unsigned> lookup(const roce::Mac& mac, uint64_t now_ns) const;
    [[nodiscard]] uint64_t mac_evictions() const { return mac_evictions_; }

  private:
    struct Queued {
        std::vector<uint8_t> frame;
        uint64_t depart_ps;
        unsigned ingress;
        bool lossless;  // priority 3 from a PFC ingress port: counted in I_ingress
    };
    struct Port;
    class Timers;
    struct MacEntry {
        unsigned port;
        uint64_t seen_ns;
    };

    Port& port(unsigned p);
    [[nodiscard]] const Port& port(unsigned p) const;
    uint64_t rel_ps(uint64_t now_ns) const;
    void ingress(unsigned in, std::span<const uint8_t> frame);
    void enqueue(unsigned in, unsigned out, std::span<const uint8_t> frame, const Classified& c,
                 bool flooded);
    void dequeue_due(uint64_t now_ns);
    void pfc_check(unsigned p, uint64_t now_ns);
    void send_pfc(unsigned p, uint16_t quanta);
    [[nodiscard]] uint64_t pause_ns(unsigned p) const;
    void learn(const roce::Mac& src, unsigned p);
    void validate_pfc_buffers(const std::vector<PortConfig>& ports) const;

    SwitchConfig config_;
    Output out_;
    uint64_t origin_ns_;
    uint64_t now_ns_;  // of the call being handled
    std::unique_ptr<Timers> timers_;
    std::vector<std::unique_ptr<Port>> ports_;
    std::unordered_map<uint64_t, MacEntry> macs_;
    uint64_t mac_evictions_ = 0;
};

}  // namespace scenic::sw
