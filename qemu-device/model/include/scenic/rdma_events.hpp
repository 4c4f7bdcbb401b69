// SPDX-License-Identifier: MIT
// RDMA event queue: a bounded FIFO of events for the driver (EVENT_POP / EVENT_ARG* /
// EVENT_LOST). Queuing an event raises MSI-X vector regs::kVecRdma; a full queue drops the
// event and counts it in EVENT_LOST (the driver then resynchronises; a TLB miss is raised again
// by the card until it is served, see rdma_tlb.hpp).
#pragma once

#include <array>
#include <cstdint>

#include "scenic/host.hpp"

namespace scenic::rdma {

class EventFifo {
  public:
    static constexpr unsigned kDepth = 256;

    EventFifo(Host& host, bool has_vector) : host_(host), has_vector_(has_vector) {}

    // false: the queue was full, the event is lost (and counted).
    bool push(uint32_t type, uint32_t id, uint32_t arg0 = 0, uint32_t arg1 = 0, uint32_t arg2 = 0);
    // EVENT_POP: the oldest event word (0 when empty); its arguments become args().
    uint32_t pop();
    [[nodiscard]] const std::array<uint32_t, 3>& args() const { return latched_; }
    [[nodiscard]] uint32_t lost() const { return lost_; }
    [[nodiscard]] unsigned size() const { return count_; }
    // Tests: use only the first n (1 .. kDepth) entries, a smaller ring that overflows sooner.
    void set_capacity(unsigned n) { capacity_ = n == 0 || n > kDepth ? kDepth : n; }
    [[nodiscard]] uint64_t now() { return host_.now_ns(); }
    void reset();

  private:
    struct Event {
        uint32_t word = 0;
        std::array<uint32_t, 3> args{};
    };
    Host& host_;
    bool has_vector_;
    std::array<Event, kDepth> ring_{};
    unsigned head_ = 0;
    unsigned count_ = 0;
    unsigned capacity_ = kDepth;
    std::array<uint32_t, 3> latched_{};
    uint32_t lost_ = 0;
};

}  // namespace scenic::rdma
