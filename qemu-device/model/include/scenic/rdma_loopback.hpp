// SPDX-License-Identifier: MIT
// Loopback: frames the engine addresses to the card itself (destination MAC = the card's MAC,
// i.e. one of its own GIDs) never reach the MAC. As on real RNICs, they turn around inside the
// card, after the same header and ICRC build, and enter the engine's RX path as frames from the
// wire do, so every RC rule (ACK, NAK, RNR, atomics, errors) applies unchanged.
//
// The turn-around is a fixed-depth queue drained from the card's timer, kBudget frames per run
// (the frames a run produces wait for the next run, kRunGapNs later):
// the RX engine is never called from inside a TX call (it may move QPs to ERR and flush them
// while the requester still works on them). A frame that finds the queue full is dropped and
// counted, as a congested wire would drop it; the requester's retransmission recovers it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <vector>

#include "scenic/config.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/rdma_context.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::rdma {

class Loopback {
  public:
    static constexpr size_t kDepth = 512;     // frames waiting to turn around
    static constexpr size_t kBudget = 128;    // frames delivered per timer run
    static constexpr uint64_t kRunGapNs = 1;  // from one run to the next: the host's next turn
    using Sink = std::function<void(std::span<const uint8_t>)>;

    // rx: the engine's RX entry (Engine::receive).
    Loopback(const Config& config, EventQueue& events, Counters& cnt, Sink rx)
        : config_(config), events_(events), cnt_(cnt), rx_(std::move(rx)) {}
    Loopback(const Loopback&) = delete;
    Loopback& operator=(const Loopback&) = delete;

    // A frame on this path is for the card itself.
    [[nodiscard]] bool ours(const roce::PathContext& path) const {
        return path.dst_mac == config_.mac;
    }
    // Queues a built frame (LOOPBACK_FRAMES), or drops it when the queue is full
    // (LOOPBACK_DROPS).
    void push(std::vector<uint8_t>&& frame);
    // Device / engine reset: the queued frames are dropped (not counted: counters reset too).
    void reset();

    [[nodiscard]] size_t queued() const { return q_.size(); }

  private:
    void schedule(uint64_t delay_ns);
    void drain();

    const Config& config_;
    EventQueue& events_;
    Counters& cnt_;
    Sink rx_;
    std::deque<std::vector<uint8_t>> q_;
    EventQueue::Id drain_ = 0;  // the pending drain event, 0: none
    bool draining_ = false;
};

}  // namespace scenic::rdma
